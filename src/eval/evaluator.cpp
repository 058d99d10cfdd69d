#include "eval/evaluator.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "eval/arena.hpp"
#include "eval/evaluator_impl.hpp"
#include "eval/symbols.hpp"
#include "util/build_info.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/install_layout.hpp"
#include "util/report.hpp"
#include "util/stats.hpp"

namespace galapagos::eval {

namespace detail {

double seconds_since(clock_type::time_point t0) { return std::chrono::duration<double>(clock_type::now() - t0).count(); }

std::filesystem::path abi_include_dir(const families::family& f) {
  auto beside = f.dir.parent_path() / "include";
  if (std::filesystem::exists(beside / "glp_kernel.h")) return beside;
  return util::kernels_dir() / "include";
}

// The first line of a compiler log that says "error", else its first line.
std::string first_error_line(const std::string& log) {
  std::size_t pos = log.find("error");
  std::size_t start = pos == std::string::npos ? 0 : log.rfind('\n', pos);
  start = (start == std::string::npos || pos == std::string::npos) ? 0 : start + 1;
  std::string line = log.substr(start, log.find('\n', start) - start);
  return line.size() > 300 ? line.substr(0, 300) : line;
}

}  // namespace detail

using namespace detail;

sample_stats summarize(std::vector<double> v) {
  sample_stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.median = util::quantile_of_sorted(v, 0.5);
  s.min = v.front();
  s.iqr = util::quantile_of_sorted(v, 0.75) - util::quantile_of_sorted(v, 0.25);
  s.p99 = util::quantile_of_sorted(v, 0.99);
  s.count = v.size();
  return s;
}

evaluator::evaluator(const families::family& f, std::string backend, eval_settings settings, ceilings c,
                     std::uint64_t secret_seed)
    : family_(f),
      backend_(std::move(backend)),
      settings_(std::move(settings)),
      ceilings_(c),
      secret_(secret_seed),
      builder_(settings_.compiler, settings_.cache_dir.empty() ? default_cache_dir() : settings_.cache_dir) {
  family_.backend(backend_);  // throws for a backend the family lacks
  toolchain_ = toolchain_for(backend_, settings_.compiler, abi_include_dir(f));
  if (toolchain_.worker_backend != "cpu")
    device_index_ = settings_.device >= 0 ? settings_.device : local_device_index(toolchain_.gpu_count);
  void* ref = load_trusted(f.reference_source, "reference");
  reference_ = reinterpret_cast<reference_fn>(dlsym(ref, "glp_reference"));
  if (!reference_) throw error(f.reference_source.string(), "the reference does not export glp_reference");
  checker_ = reinterpret_cast<check_fn>(dlsym(ref, "glp_check"));
  if (!f.generator_source.empty()) {
    void* gen = load_trusted(f.generator_source, "generator");
    generator_.problem_sizes = reinterpret_cast<decltype(generator_.problem_sizes)>(dlsym(gen, "glp_problem_sizes"));
    generator_.generate = reinterpret_cast<decltype(generator_.generate)>(dlsym(gen, "glp_generate"));
    generator_.last_error = reinterpret_cast<decltype(generator_.last_error)>(dlsym(gen, "glp_generator_error"));
    if (!generator_.problem_sizes || !generator_.generate)
      throw error(f.generator_source.string(), "the generator must export glp_problem_sizes and glp_generate");
  }

  families::problem_spec fit = f.fitness_size(settings_.fitness_size);
  if (!settings_.fitness_problem.empty()) {
    if (f.generator_source.empty()) throw error(f.toml_file.string(), "this family has no [generator] for problem specs");
    fit = {"problem", {}, settings_.fitness_problem};
  }
  fitness_ = resolve(fit);
  fitness_spec_ = fit.generator_spec;
  std::vector<families::sizes> accept;
  for (const auto& a : f.accept_sizes) accept.push_back(resolve(a));
  const std::size_t misalign = settings_.checks.misalign_bytes;
  std::size_t bytes = problem::arena_bytes(f, fitness_, misalign);
  for (const auto& s : accept) bytes = std::max(bytes, problem::arena_bytes(f, s, misalign));
  // A timing batch's further input sets get regions of their own (faulted in only when used).
  const int sets = settings_.timing.batch > 0           ? settings_.timing.batch
                   : toolchain_.worker_backend == "cpu" ? 1
                                                        : arena::max_regions;
  if (sets < 1 || sets > arena::max_regions)
    throw error("timing.batch", "must be 0 (automatic) or 1.." + std::to_string(arena::max_regions));
  arena_ = std::make_unique<arena>(bytes, sets, misalign);
  // The CPU worker's flush buffer, faulted in once here for every worker of the search.
  if (toolchain_.worker_backend == "cpu" && ceilings_.llc_bytes > 0)
    flush_memory_ = std::make_unique<arena>(3 * ceilings_.llc_bytes);
  const generator_fns* gen = f.generator_source.empty() ? nullptr : &generator_;
  family_code_ = std::make_unique<family_process>(f, &problem::serve);
  for (std::size_t i = 0; i < accept.size(); ++i)
    accept_problems_.push_back(
        std::make_unique<problem>(f, accept[i], *arena_, *family_code_, f.accept_sizes[i].generator_spec, gen));
  timing_problem_ = std::make_unique<problem>(f, fitness_, *arena_, *family_code_, fitness_spec_, gen);
  for (int k = 1; k < sets; ++k)
    batch_problems_.push_back(std::make_unique<problem>(f, fitness_, *arena_, *family_code_, fitness_spec_, gen, k));
  batch_ = settings_.timing.batch > 0 ? settings_.timing.batch : sets == 1 ? 1 : 0;  // 0: chosen at the first timed run
  family_code_->start();  // after every problem it serves exists, before any thread does
  if (toolchain_.worker_backend != "cpu") probe_device();
  measured_ = ceilings_;
  int jobs = settings_.compile_jobs;
  if (jobs < 0)
    jobs = toolchain_.worker_backend == "cpu" ? 0 : std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1);
  if (jobs > 0) ahead_ = std::make_unique<compile_queue>(builder_, jobs);
}

// Input seeds: derived from the secret run seed, never from anything a candidate can see. The
// inputs' values are splitmix64 outputs, which can be inverted: a candidate can recover the seed
// an input was drawn from. So seeds come from a one-way function of (secret, counter), and knowing
// one seed tells nothing of the next run's inputs or of the seed a checker draws after the run.
std::uint64_t evaluator::next_seed() {
  const std::uint64_t words[2] = {secret_, ++counter_};
  const std::string digest = util::sha256().add(std::string_view(reinterpret_cast<const char*>(words), sizeof words)).hex();
  return std::stoull(digest.substr(0, 16), nullptr, 16);
}

void evaluator::raise_ceilings(double bandwidth_gbs, double peak_gflops, double peak_gflops_f32, const std::string& source) {
  auto raise = [&](double& value, std::string& from, double candidate) {
    if (candidate > value) value = candidate, from = source;
  };
  raise(ceilings_.bandwidth_gbs, ceilings_.bandwidth_source, bandwidth_gbs);
  raise(ceilings_.peak_gflops, ceilings_.peak_source, peak_gflops);
  raise(ceilings_.peak_gflops_f32, ceilings_.peak_f32_source, peak_gflops_f32);
}

std::string evaluator::describe_ceilings() const {
  char buf[600];
  std::snprintf(buf, sizeof buf, "bandwidth %.1f GB/s (%s), float64 %.1f GFLOP/s (%s), float32 %.1f GFLOP/s (%s)",
                ceilings_.bandwidth_gbs, ceilings_.bandwidth_source.c_str(), ceilings_.peak_gflops, ceilings_.peak_source.c_str(),
                ceilings_.peak_gflops_f32, ceilings_.peak_f32_source.c_str());
  std::string out = buf;
  if (ceilings_.hardware_gflops > 0) {
    std::snprintf(buf, sizeof buf, "; at most %.1f / %.1f GFLOP/s float64/float32 (%s)", ceilings_.hardware_gflops,
                  ceilings_.hardware_gflops_f32, ceilings_.hardware_source.c_str());
    out += buf;
  }
  return out;
}

// Measures the ceilings again where a run looks impossible: a shared node's throughput swings,
// and the best any probe saw counts. On CPUs only the ceiling that binds is measured again
// (bandwidth, or the peak of the family's precision): a probe costs a second or more.
void evaluator::reprobe(bool bandwidth, bool arithmetic) {
  if (toolchain_.worker_backend == "cpu") {
    const bool f32 = family_.compute_type() == families::dtype::float32;
    raise_ceilings(bandwidth ? measure_bandwidth_gbs(ceilings_.llc_bytes) : 0,
                   arithmetic && !f32 ? measure_peak_gflops(false) : 0, arithmetic && f32 ? measure_peak_gflops(true) : 0,
                   "probe repeated during the search");
    return;
  }
  const ceilings before = ceilings_;
  probe_device();
  ceilings next = ceilings_;
  ceilings_ = before;
  raise_ceilings(next.bandwidth_gbs, next.peak_gflops, next.peak_gflops_f32, "device probe repeated during the search");
}

// A device's ceilings are measured by a worker: only the worker links the device runtime.
void evaluator::probe_device() {
  auto s = start_worker();
  measurement m;
  protocol::request q{};
  q.kind = protocol::request_kind::probe;
  const auto r = s->worker->call(q, std::max(settings_.timeout_s, 120.0));
  if (!r.replied || r.reply.status != protocol::reply_status::ok)
    throw error(toolchain_.worker_backend + " device " + std::to_string(device_index_),
                "cannot probe the device: " + (r.replied ? std::string(r.reply.message) : to_string(r.status) + " " + r.reason));
  ceilings_.bandwidth_gbs = r.reply.ceilings[0];
  ceilings_.peak_gflops = r.reply.ceilings[1];
  ceilings_.peak_gflops_f32 = r.reply.ceilings[2];
  device_free_bytes_ = r.reply.free_memory_bytes;
  ceilings_.bandwidth_source = "device copy probe";
  ceilings_.peak_source = "device BLAS float64 probe";
  ceilings_.peak_f32_source = "device BLAS float32 probe";
  ceilings_.hardware_gflops = ceilings_.hardware_gflops_f32 = 0;  // the host's bound says nothing of a device
  ceilings_.hardware_source.clear();
  monitor_ = gpu_monitor::open(std::string(r.reply.message, strnlen(r.reply.message, sizeof r.reply.message)));
}

void* evaluator::load_trusted(const std::filesystem::path& source, const char* what) {
  build_request r;
  r.source = source;
  r.flags = {"-std=c++17", "-O3", "-march=native"};
  r.include_dirs = {abi_include_dir(family_).string(), build_info::kokkos_include_dir};
  r.libs = {std::string("-L") + build_info::kokkos_lib_dir, "-ltrilinos_kokkoscore", "-ltrilinos_kokkoscontainers"};
  const auto built = builder_.build(r);
  if (!built.ok) throw error(source.string(), std::string(what) + " does not build: " + first_error_line(built.log));
  void* h = dlopen(built.shared_object.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw error(source.string(), std::string("cannot load the ") + what + ": " + dlerror());
  trusted_handles_.push_back(h);
  return h;
}

namespace {
// The generator's glp_problem_sizes, in a process of its own (family_process.hpp).
void problem_sizes_here(const family_process::request& q, family_process::reply& r) {
  const auto* gen = static_cast<const generator_fns*>(q.target);
  std::fill(std::begin(r.sizes), std::end(r.sizes), -1);
  r.rc = gen->problem_sizes(static_cast<const char*>(q.function), r.sizes);
  if (r.rc != 0) std::snprintf(r.message, sizeof r.message, "%s", gen->error().c_str());
}
}  // namespace

families::sizes evaluator::resolve(const families::problem_spec& p) const {
  if (p.generator_spec.empty()) return p.values;
  if (family_.symbols.size() > std::size(family_process::reply{}.sizes))
    throw error(family_.toml_file.string(), "more symbols than a generated problem can size");
  family_process sizing(family_, &problem_sizes_here);
  family_process::request q;
  q.target = &generator_;
  q.function = p.generator_spec.c_str();
  const auto r = sizing.call(q, family_code::generator, "problem '" + p.generator_spec + "'");
  families::sizes s(r.sizes, r.sizes + family_.symbols.size());
  if (r.rc != 0) throw error(family_.generator_source.string(), "problem '" + p.generator_spec + "': " + r.message);
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] < 0)
      throw error(family_.generator_source.string(), "problem '" + p.generator_spec + "': no value for " + family_.symbols[i]);
  return s;
}

evaluator::~evaluator() {
  ahead_.reset();
  timing_problem_.reset();
  accept_problems_.clear();
  batch_problems_.clear();
  for (void* h : trusted_handles_) dlclose(h);
}

// The measured peak in the family's precision (float64's where float32 was not measured).
double evaluator::family_peak_gflops() const {
  return family_.compute_type() == families::dtype::float32 && ceilings_.peak_gflops_f32 > 0 ? ceilings_.peak_gflops_f32
                                                                                             : ceilings_.peak_gflops;
}

double evaluator::floor_s(const families::sizes& s) const {
  const double peak = family_peak_gflops();
  double t = 0;
  if (ceilings_.bandwidth_gbs > 0) t = std::max(t, family_.bytes(s) / (ceilings_.bandwidth_gbs * 1e9));
  if (peak > 0) t = std::max(t, family_.flops(s) / (peak * 1e9));
  return t;
}

std::unique_ptr<evaluator::session> evaluator::start_worker(std::vector<std::string> launcher, bool profiled) {
  worker_options opt;
  opt.executable = default_worker_executable();
  opt.scratch_root = settings_.scratch_dir;
  opt.threads = settings_.threads;
  opt.flush_bytes = 3 * ceilings_.llc_bytes;
  if (flush_memory_) opt.flush_fd = flush_memory_->fd();
  opt.address_space_bytes = arena_->bytes() + opt.flush_bytes + settings_.memory_limit_bytes;
  opt.cpu_seconds = static_cast<std::uint64_t>(std::max(120.0, 20 * settings_.timeout_s));
  opt.backend = toolchain_.worker_backend + (profiled ? ":profiled" : "");
  opt.device_index = device_index_;
  opt.launcher = std::move(launcher);
  auto s = std::make_unique<session>();
  s->worker = std::make_unique<worker_process>(opt, *arena_);
  return s;
}

std::unique_ptr<evaluator::session> evaluator::open(const candidate_source& c, measurement& m,
                                                    std::optional<std::chrono::steady_clock::time_point>* held,
                                                    std::vector<std::string> launcher, bool profiled) {
  const auto built = build(c);
  m.source_hash = built.source_hash;
  m.compile_time_s = built.compile_time_s;
  m.build_command = built.command;
  if (!built.ok) {
    m.status = candidate_status::compile_error;
    m.reason = first_error_line(built.log);
    m.build_log = built.log;
    return nullptr;
  }
  const std::string bad = check_exports(exported_symbols(built.shared_object), "glp_kernel");
  if (!bad.empty()) {
    m.status = candidate_status::forbidden_symbol;
    m.reason = bad;
    return nullptr;
  }
  if (held) *held = clock_type::now();
  auto s = start_worker(std::move(launcher), profiled);
  // What the orchestrator's clock adds to a run is measured before any candidate code exists.
  if (!profiled && !calibrate(*s, m)) return nullptr;
  protocol::request q{};
  const std::string path = built.shared_object.string();
  std::string preload;
  for (const auto& lib : needed_libraries(built.shared_object)) preload += lib + "\n";
  if (path.size() >= sizeof q.path || preload.size() >= sizeof q.preload)
    throw error(path, "path or library list too long for the worker protocol");
  std::copy(path.begin(), path.end(), q.path);
  std::copy(preload.begin(), preload.end(), q.preload);
  for (const auto kind : {protocol::request_kind::preload, protocol::request_kind::load}) {
    q.kind = kind;
    const auto res = s->worker->call(q, settings_.timeout_s);
    if (!res.replied) {
      m.status = res.status;
      m.reason = res.reason + " (while loading)";
      return nullptr;
    }
    if (res.reply.status != protocol::reply_status::ok) {
      m.status = candidate_status::load_error;
      m.reason = res.reply.message;
      return nullptr;
    }
    // The libraries it links may start threads of their own; a thread its constructors start is its.
    if (kind == protocol::request_kind::preload) s->threads = s->worker->thread_count();
  }
  return s;
}

measurement evaluator::evaluate(const candidate_source& c) {
  const auto t0 = clock_type::now();
  measurement m;
  m.floor_s = floor_s(fitness_);
  std::optional<clock_type::time_point> held;  // from the worker's start: the device is in use
  std::unique_ptr<session> s;
  double open_s = 0;
  auto done = [&]() -> measurement {
    m.eval_time_s = seconds_since(t0);
    if (held) {
      m.device_time_s = seconds_since(*held);
      device_busy_s_ += m.device_time_s;
    }
    if (m.status != candidate_status::ok)
      m.time_median_s = m.time_min_s = m.time_spread_s = std::numeric_limits<double>::quiet_NaN();
    if (s && std::getenv("GALAPAGOS_TIMING_TRACE")) {
      s->phase_s["open: build, worker, calibration, load"] = open_s;
      for (const auto& [phase, seconds] : s->phase_s) report::problem("phase %-40s %8.3f s", phase.c_str(), seconds);
      report::problem("phase %-40s %8.3f s", "whole evaluation", m.eval_time_s);
    }
    return m;
  };
  s = open(c, m, &held);
  open_s = seconds_since(t0);
  if (!s || !accept(*s, m)) return done();

  problem& p = *timing_problem_;
  {
    phase_timer pt(s->phase_s, "timed: first fill");
    p.fill(next_seed(), 0);
  }
  // Warm-up: two runs on identical inputs, verified, and compared with each other.
  std::vector<double> warm;
  if (!timed_run(*s, p, m, warm, 0, c, true)) return done();
  {
    phase_timer pt(s->phase_s, "timed: determinism check");
    p.snapshot_outputs();
  }
  if (!timed_run(*s, p, m, warm, 0, c, true)) return done();
  const double diff = [&] {
    phase_timer pt(s->phase_s, "timed: determinism check");
    return p.max_difference_ulps();
  }();
  if (diff > settings_.checks.determinism_ulps) {
    m.status = candidate_status::nondeterministic;
    char buf[160];
    std::snprintf(buf, sizeof buf, "two runs on identical inputs differ by %.3g ulps of the output scale (at most %g)", diff,
                  settings_.checks.determinism_ulps);
    m.reason = buf;
    return done();
  }
  for (int i = 2; i < settings_.timing.warmup; ++i)
    if (!timed_run(*s, p, m, warm, next_seed(), c)) return done();

  // Timed runs: how many is decided by these runs alone, never by the warm-up.
  std::vector<double> times;
  m.worker_clock_s.clear();
  const auto tt = clock_type::now();
  const auto& tp = settings_.timing;
  while (static_cast<int>(times.size()) < tp.max_repetitions) {
    if (!timed_run(*s, p, m, times, next_seed(), c)) return done();
    if (static_cast<int>(times.size()) < tp.min_repetitions) continue;
    const auto st = summarize(times);
    if (st.iqr <= tp.target_spread * st.median || seconds_since(tt) > tp.time_cap_s) break;
  }
  m.repetitions = static_cast<int>(times.size());
  finish_statistics(m, times);
  measure_energy(*s, p, m);
  return done();
}

// The floor of an interleaved comparison taken side by side with its runs (CPU only: a GPU's
// probes need a worker of their own and its ceilings do not swing with other tenants): after each
// round, the ceiling that binds the family's floor at the fitness size (bandwidth, or the peak of
// its precision) is measured again, a short probe of its own (~0.15 s for bandwidth, ~0.3 s for a
// BLAS peak), and the floor follows it; the other ceiling stays the run's.
class evaluator::side_by_side_floor {
 public:
  side_by_side_floor(const evaluator& e, int rounds) : e_(e) {
    if (e.toolchain_.worker_backend != "cpu" || rounds < 1) return;
    const double bytes = e.family_.bytes(e.fitness_), flops = e.family_.flops(e.fitness_);
    const double bw = e.ceilings_.bandwidth_gbs, peak = e.family_peak_gflops();
    const double by_bytes = bw > 0 ? bytes / (bw * 1e9) : 0, by_flops = peak > 0 ? flops / (peak * 1e9) : 0;
    if (by_bytes <= 0 && by_flops <= 0) return;
    kind_ = by_bytes >= by_flops ? binds::bandwidth : binds::arithmetic;
    if (kind_ == binds::bandwidth) stream_.emplace(e.ceilings_.llc_bytes);
  }
  // The floor now, in seconds (0 when nothing is measured).
  double measure() {
    if (kind_ == binds::nothing) return 0;
    const bool f32 = e_.family_.compute_type() == families::dtype::float32;
    const double c = kind_ == binds::bandwidth ? stream_->gbs(3) : measure_peak_gflops(f32, 2);
    if (!(c > 0)) return 0;
    seen_.push_back(c);
    const double bw = kind_ == binds::bandwidth ? c : e_.ceilings_.bandwidth_gbs;
    const double peak = kind_ == binds::arithmetic ? c : e_.family_peak_gflops();
    double t = 0;
    if (bw > 0) t = std::max(t, e_.family_.bytes(e_.fitness_) / (bw * 1e9));
    if (peak > 0) t = std::max(t, e_.family_.flops(e_.fitness_) / (peak * 1e9));
    return t;
  }
  // e.g. "bandwidth 33.0 GB/s (median of 10 STREAM-like probes, one after each round; 29.1 to 36.0)"
  std::string describe() const {
    if (seen_.empty()) return "";
    const auto st = summarize(seen_);
    const bool bw = kind_ == binds::bandwidth;
    const bool f32 = e_.family_.compute_type() == families::dtype::float32;
    char buf[240];
    std::snprintf(buf, sizeof buf, "%s %.1f %s (median of %zu %s probes, one after each round; %.1f to %.1f)",
                  bw ? "bandwidth" : (f32 ? "float32" : "float64"), st.median, bw ? "GB/s" : "GFLOP/s", seen_.size(),
                  bw ? "STREAM-like" : (f32 ? "sgemm" : "dgemm"), st.min, *std::max_element(seen_.begin(), seen_.end()));
    return buf;
  }

 private:
  enum class binds { nothing, bandwidth, arithmetic };
  const evaluator& e_;
  binds kind_ = binds::nothing;
  std::optional<bandwidth_probe> stream_;
  std::vector<double> seen_;
};

std::vector<measurement> evaluator::evaluate_interleaved(const std::vector<candidate_source>& cs, int rounds) {
  std::vector<measurement> ms(cs.size());
  std::vector<std::unique_ptr<session>> sessions(cs.size());
  std::vector<std::vector<double>> times(cs.size());
  std::vector<clock_type::time_point> starts(cs.size(), clock_type::now());
  for (std::size_t i = 0; i < cs.size(); ++i) {
    sessions[i] = open(cs[i], ms[i]);
    if (sessions[i] && !accept(*sessions[i], ms[i])) sessions[i].reset();
  }
  problem& p = *timing_problem_;
  p.fill(next_seed(), 0);
  std::vector<double> warm;
  for (std::size_t i = 0; i < cs.size(); ++i)
    if (sessions[i] && !timed_run(*sessions[i], p, ms[i], warm, next_seed(), cs[i], true)) sessions[i].reset();
  for (auto& mi : ms) mi.worker_clock_s.clear();
  side_by_side_floor beside(*this, rounds);
  std::vector<std::vector<double>> fractions(cs.size());  // per candidate: round floor / round time
  // Each round starts with the next candidate (A B, B A, ...): none is always the one that runs
  // right after the round's probe, or the longest after its own last run.
  for (int r = 0; r < rounds; ++r) {
    std::vector<std::size_t> before(cs.size());
    for (std::size_t k = 0; k < cs.size(); ++k) {
      const std::size_t i = (k + static_cast<std::size_t>(r)) % cs.size();
      before[i] = times[i].size();
      if (sessions[i] && !timed_run(*sessions[i], p, ms[i], times[i], next_seed(), cs[i], true)) sessions[i].reset();
    }
    if (const double floor = beside.measure(); floor > 0)
      for (std::size_t i = 0; i < cs.size(); ++i)
        if (times[i].size() > before[i]) fractions[i].push_back(floor / times[i].back());
  }
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (ms[i].status == candidate_status::ok) {
      ms[i].repetitions = static_cast<int>(times[i].size());
      finish_statistics(ms[i], times[i]);
      if (!fractions[i].empty()) {
        ms[i].rounds_roofline_fraction = summarize(fractions[i]).median;
        ms[i].rounds_ceiling = beside.describe();
      }
      if (sessions[i]) measure_energy(*sessions[i], p, ms[i]);
    } else {
      ms[i].time_median_s = ms[i].time_min_s = ms[i].time_spread_s = std::numeric_limits<double>::quiet_NaN();
    }
    ms[i].eval_time_s = seconds_since(starts[i]);
  }
  return ms;
}

}  // namespace galapagos::eval
