#include "eval/evaluator.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <map>
#include <chrono>
#include <cmath>
#include <limits>

#include "eval/arena.hpp"
#include "eval/symbols.hpp"
#include "util/build_info.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace galapagos::eval {

namespace {

using clock_type = std::chrono::steady_clock;
double seconds_since(clock_type::time_point t0) {
  return std::chrono::duration<double>(clock_type::now() - t0).count();
}

std::filesystem::path abi_include_dir(const families::family& f) {
  auto beside = f.dir.parent_path() / "include";
  if (std::filesystem::exists(beside / "glp_kernel.h")) return beside;
  return std::filesystem::path(build_info::source_kernels_dir) / "include";
}

// The first line of a compiler log that says "error", else its first line.
std::string first_error_line(const std::string& log) {
  std::size_t pos = log.find("error");
  std::size_t start = pos == std::string::npos ? 0 : log.rfind('\n', pos);
  start = (start == std::string::npos || pos == std::string::npos) ? 0 : start + 1;
  std::string line = log.substr(start, log.find('\n', start) - start);
  return line.size() > 300 ? line.substr(0, 300) : line;
}

}  // namespace

sample_stats summarize(std::vector<double> v) {
  sample_stats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    const double x = p * static_cast<double>(v.size() - 1);
    const auto i = static_cast<std::size_t>(x);
    const double frac = x - static_cast<double>(i);
    return i + 1 < v.size() ? v[i] * (1 - frac) + v[i + 1] * frac : v[i];
  };
  s.median = q(0.5);
  s.min = v.front();
  s.iqr = q(0.75) - q(0.25);
  return s;
}

struct evaluator::session {
  std::unique_ptr<worker_process> worker;
  std::map<const problem*, std::uint64_t> set_up;  // problem instance glp_setup last ran on
};

evaluator::evaluator(const families::family& f, std::string backend, eval_settings settings, ceilings c, std::uint64_t secret_seed)
    : family_(f),
      backend_(std::move(backend)),
      settings_(std::move(settings)),
      ceilings_(c),
      secret_(secret_seed),
      builder_(settings_.compiler, settings_.cache_dir.empty() ? default_cache_dir() : settings_.cache_dir) {
  family_.backend(backend_);  // throws for a backend the family lacks
  toolchain_ = toolchain_for(backend_, settings_.compiler, abi_include_dir(f));
  if (toolchain_.worker_backend != "cpu")
    device_index_ = settings_.device >= 0 ? settings_.device : local_device_index(nvidia_gpus().count);
  void* ref = load_trusted(f.reference_source, "reference");
  reference_ = reinterpret_cast<reference_fn>(dlsym(ref, "glp_reference"));
  if (!reference_) throw error(f.reference_source.string(), "the reference does not export glp_reference");
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
  std::size_t bytes = problem::arena_bytes(f, fitness_);
  for (const auto& s : accept) bytes = std::max(bytes, problem::arena_bytes(f, s));
  arena_ = std::make_unique<arena>(bytes);
  const generator_fns* gen = f.generator_source.empty() ? nullptr : &generator_;
  for (std::size_t i = 0; i < accept.size(); ++i)
    accept_problems_.push_back(std::make_unique<problem>(f, accept[i], *arena_, f.accept_sizes[i].generator_spec, gen));
  timing_problem_ = std::make_unique<problem>(f, fitness_, *arena_, fitness_spec_, gen);
  if (toolchain_.worker_backend != "cpu") probe_device();
  measured_ = ceilings_;
}

// Input seeds: derived from the secret run seed, never from anything a candidate can see.
std::uint64_t evaluator::next_seed() { return util::mix64(secret_ ^ util::mix64(++counter_)); }

void evaluator::raise_ceilings(double bandwidth_gbs, double peak_gflops, double peak_gflops_f32) {
  ceilings_.bandwidth_gbs = std::max(ceilings_.bandwidth_gbs, bandwidth_gbs);
  ceilings_.peak_gflops = std::max(ceilings_.peak_gflops, peak_gflops);
  ceilings_.peak_gflops_f32 = std::max(ceilings_.peak_gflops_f32, peak_gflops_f32);
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
                "cannot probe the device: " + (r.replied ? std::string(r.reply.message) : r.status + " " + r.reason));
  ceilings_.bandwidth_gbs = r.reply.ceilings[0];
  ceilings_.peak_gflops = r.reply.ceilings[1];
  ceilings_.peak_gflops_f32 = r.reply.ceilings[2];
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

families::sizes evaluator::resolve(const families::problem_spec& p) const {
  if (p.generator_spec.empty()) return p.values;
  families::sizes s(family_.symbols.size(), -1);
  if (generator_.problem_sizes(p.generator_spec.c_str(), s.data()) != 0)
    throw error(family_.generator_source.string(), "problem '" + p.generator_spec + "': " + generator_.error());
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] < 0) throw error(family_.generator_source.string(), "problem '" + p.generator_spec + "': no value for " + family_.symbols[i]);
  return s;
}

evaluator::~evaluator() {
  timing_problem_.reset();
  accept_problems_.clear();
  for (void* h : trusted_handles_) dlclose(h);
}

double evaluator::floor_s(const families::sizes& s) const {
  const double peak = family_.compute_type() == families::dtype::float32 && ceilings_.peak_gflops_f32 > 0
                          ? ceilings_.peak_gflops_f32 : ceilings_.peak_gflops;
  double t = 0;
  if (ceilings_.bandwidth_gbs > 0) t = std::max(t, family_.bytes(s) / (ceilings_.bandwidth_gbs * 1e9));
  if (peak > 0) t = std::max(t, family_.flops(s) / (peak * 1e9));
  return t;
}

std::unique_ptr<evaluator::session> evaluator::start_worker() {
  worker_options opt;
  opt.executable = default_worker_executable();
  opt.scratch_root = settings_.scratch_dir;
  opt.threads = settings_.threads;
  opt.flush_bytes = 3 * ceilings_.llc_bytes;
  opt.address_space_bytes = arena_->bytes() + opt.flush_bytes + settings_.memory_limit_bytes;
  opt.cpu_seconds = static_cast<std::uint64_t>(std::max(120.0, 20 * settings_.timeout_s));
  opt.backend = toolchain_.worker_backend;
  opt.device_index = device_index_;
  auto s = std::make_unique<session>();
  s->worker = std::make_unique<worker_process>(opt, *arena_);
  return s;
}

std::unique_ptr<evaluator::session> evaluator::open(const candidate_source& c, measurement& m) {
  build_request r;
  r.compiler = toolchain_.compiler;
  r.shared_flags = toolchain_.shared_flags;
  r.source = c.source;
  r.source_text = c.text;
  // Families name the Kokkos found at configure time as @KOKKOS_INCLUDE_DIR@ / @KOKKOS_LIB_DIR@.
  auto expand = [](std::string s) {
    for (const auto& [token, value] : {std::pair<std::string, std::string>{"@KOKKOS_INCLUDE_DIR@", build_info::kokkos_include_dir},
                                       {"@KOKKOS_LIB_DIR@", build_info::kokkos_lib_dir}})
      for (auto pos = s.find(token); pos != std::string::npos; pos = s.find(token)) s.replace(pos, token.size(), value);
    return s;
  };
  for (const auto& f : c.flags) r.flags.push_back(expand(f));
  for (const auto& l : c.libs) r.libs.push_back(expand(l));
  r.include_dirs = {abi_include_dir(family_).string()};
  for (const auto& [k, v] : c.params) r.defines.push_back("GLP_" + k + "=" + v);
  const auto built = builder_.build(r);
  m.source_hash = built.source_hash;
  m.compile_time_s = built.compile_time_s;
  m.build_command = built.command;
  if (!built.ok) {
    m.status = "compile_error";
    m.reason = first_error_line(built.log);
    m.build_log = built.log;
    return nullptr;
  }
  const std::string bad = check_exports(exported_symbols(built.shared_object), "glp_kernel");
  if (!bad.empty()) {
    m.status = "forbidden_symbol";
    m.reason = bad;
    return nullptr;
  }
  auto s = start_worker();
  protocol::request q{};
  q.kind = protocol::request_kind::load;
  const std::string path = built.shared_object.string();
  std::string preload;
  for (const auto& lib : needed_libraries(built.shared_object)) preload += lib + "\n";
  if (path.size() >= sizeof q.path || preload.size() >= sizeof q.preload)
    throw error(path, "path or library list too long for the worker protocol");
  std::copy(path.begin(), path.end(), q.path);
  std::copy(preload.begin(), preload.end(), q.preload);
  const auto res = s->worker->call(q, settings_.timeout_s);
  if (!res.replied) {
    m.status = res.status;
    m.reason = res.reason + " (while loading)";
    return nullptr;
  }
  if (res.reply.status != protocol::reply_status::ok) {
    m.status = "load_error";
    m.reason = res.reply.message;
    return nullptr;
  }
  return s;
}

// One request that must simply succeed (stage, flush, collect). False with m.status set when not.
bool evaluator::request(session& s, protocol::request_kind kind, const protocol::request* args, measurement& m) {
  protocol::request q = args ? *args : protocol::request{};
  q.kind = kind;
  const auto r = s.worker->call(q, settings_.timeout_s);
  if (!r.replied) {
    m.status = r.status;
    m.reason = r.reason;  // never the candidate's own output: it could carry what it read
    return false;
  }
  if (r.reply.status == protocol::reply_status::device_fault) {
    m.status = "crash";
    m.reason = std::string("device fault: ") + r.reply.message;
    return false;
  }
  if (r.reply.status != protocol::reply_status::ok) {
    m.status = "protocol_error";
    m.reason = "unexpected worker reply";
    return false;
  }
  return true;
}

// Runs the problem once: stage its arena onto the device, flush the caches when timing, call the
// candidate (after its glp_setup, when this is a problem instance the session has not prepared
// yet), collect the results back into the arena. Returns false with m.status set on failure.
// The worker shares its address space with the candidate, so its clock is believed only within
// the orchestrator's own measurement around the request. A disagreement can also be a hiccup
// of a loaded node, so the run is repeated; only a persistent one is a verdict.
bool evaluator::run_once(session& s, problem& p, measurement& m, double& time_s, bool flush) {
  const auto& chk = settings_.checks;
  for (int attempt = 0;; ++attempt) {
    protocol::request q = p.run_request();
    if (!request(s, protocol::request_kind::stage, &q, m)) return false;
    if (flush && !request(s, protocol::request_kind::flush, nullptr, m)) return false;
    const bool setup = s.set_up[&p] != p.instance();
    if (setup) q.flags |= protocol::run_setup_first;
    const auto r = s.worker->call(q, settings_.timeout_s);
    if (!r.replied) {
      m.status = r.status;
      m.reason = r.reason;
      return false;
    }
    using rs = protocol::reply_status;
    switch (r.reply.status) {
      case rs::ok: break;
      case rs::kernel_error: m.status = "kernel_error"; m.reason = r.reply.message[0] ? r.reply.message : "entry point returned " + std::to_string(r.reply.kernel_rc); return false;
      case rs::out_of_memory: m.status = "out_of_memory"; m.reason = "std::bad_alloc escaped the entry point"; return false;
      case rs::exception: m.status = "crash"; m.reason = "a C++ exception escaped the entry point"; return false;
      case rs::device_fault: m.status = "crash"; m.reason = std::string("device fault: ") + r.reply.message; return false;
      case rs::leaked_thread: m.status = "leaked_thread"; m.reason = std::to_string(r.reply.extra_threads) + " threads still running after the entry point returned"; return false;
      default: m.status = "protocol_error"; m.reason = "unexpected worker reply"; return false;
    }
    if (setup) {
      s.set_up[&p] = p.instance();
      if (&p == timing_problem_.get()) m.setup_time_s = r.reply.setup_time_s;
    }
    if (!request(s, protocol::request_kind::collect, nullptr, m)) return false;
    // Both processes read the same monotonic clock. The worker's busy interval must lie inside
    // the orchestrator's interval around the request (a clock the candidate dilated or shifted
    // drifts out of it), and the times it reports must fill that busy interval up to the
    // worker's own bookkeeping. Delays in handing the request over do not count against it.
    const double t = r.reply.time_s;
    const double worker_total = t + (setup ? r.reply.setup_time_s : 0.0);
    const double busy = r.reply.replied_at_s - r.reply.received_at_s;
    const double eps = 5e-5;
    const double slack = chk.timer_slack_s + chk.timer_slack_rel * busy +
                         (toolchain_.worker_backend == "cpu" ? 0.0 : chk.gpu_timer_slack_s);
    const bool inside = r.reply.received_at_s >= r.sent_at_s - eps && r.reply.replied_at_s <= r.sent_at_s + r.elapsed_s + eps;
    const bool plausible = inside && t >= 0 && r.reply.setup_time_s >= 0 && worker_total <= busy + eps &&
                           busy - worker_total <= slack;
    if (plausible) {
      time_s = t;
      return true;
    }
    if (attempt + 1 >= chk.timer_attempts) {
      m.status = "timer_mismatch";
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "worker reported %.6f s of a busy interval of %.6f s (%s the orchestrator's %.6f s around the run; %d attempts)",
                    worker_total, busy, inside ? "inside" : "outside", r.elapsed_s, attempt + 1);
      m.reason = buf;
      return false;
    }
    p.stage();
  }
}

bool evaluator::accept(session& s, measurement& m) {
  int dist = 0;
  for (auto& p : accept_problems_) {
    for (int k = 0; k < settings_.checks.seeds; ++k) {
      p->fill(next_seed(), dist++);
      p->compute_reference(reference_);
      p->stage();
      double t = 0;
      if (!run_once(s, *p, m, t, false)) return false;
      const verdict v = p->verify();
      m.rel_error = std::max(m.rel_error, v.rel_error);
      ++m.verified_runs;
      if (v.status != "ok") {
        m.status = v.status;
        m.reason = v.reason;
        return false;
      }
    }
  }
  return true;
}

bool evaluator::timed_run(session& s, problem& p, measurement& m, std::vector<double>& times, std::uint64_t run_seed) {
  if (run_seed != 0) {
    p.perturb(run_seed, settings_.checks.perturb_count);
    p.compute_reference(reference_);
  }
  p.stage();
  double t = 0;
  if (!run_once(s, p, m, t, true)) return false;
  double floor = floor_s(p.size());
  if (floor > 0 && t < floor / settings_.checks.physics_margin && toolchain_.worker_backend == "cpu") {
    // A shared node's throughput swings: before calling a run impossible, measure the ceilings
    // again and keep the best this run has seen.
    raise_ceilings(measure_bandwidth_gbs(ceilings_.llc_bytes), measure_peak_gflops(false), measure_peak_gflops(true));
    floor = floor_s(p.size());
  }
  if (floor > 0 && t < floor / settings_.checks.physics_margin) {
    m.status = "suspect_too_fast";
    char buf[200];
    std::snprintf(buf, sizeof buf, "%.3e s is below the physical floor %.3e s (%.0f%% of roofline) at %s", t, floor,
                  100 * floor / t, p.describe().c_str());
    m.reason = buf;
    return false;
  }
  const verdict v = p.verify();
  m.rel_error = std::max(m.rel_error, v.rel_error);
  ++m.verified_runs;
  if (v.status != "ok") {
    m.status = v.status;
    m.reason = v.reason + " (timed run)";
    return false;
  }
  times.push_back(t);
  return true;
}

void evaluator::finish_statistics(measurement& m, std::vector<double> times) const {
  const auto st = summarize(std::move(times));
  m.time_median_s = st.median;
  m.time_min_s = st.min;
  m.time_spread_s = st.iqr;
  m.floor_s = floor_s(fitness_);
}

measurement evaluator::evaluate(const candidate_source& c) {
  const auto t0 = clock_type::now();
  measurement m;
  m.floor_s = floor_s(fitness_);
  auto done = [&]() -> measurement {
    m.eval_time_s = seconds_since(t0);
    if (m.status != "ok") m.time_median_s = m.time_min_s = m.time_spread_s = std::numeric_limits<double>::quiet_NaN();
    return m;
  };
  auto s = open(c, m);
  if (!s || !accept(*s, m)) return done();

  problem& p = *timing_problem_;
  p.fill(next_seed(), 0);
  p.compute_reference(reference_);
  // Warm-up: two runs on identical inputs, verified, and compared with each other.
  std::vector<double> warm;
  if (!timed_run(*s, p, m, warm, 0)) return done();
  const auto first = p.snapshot_outputs();
  if (!timed_run(*s, p, m, warm, 0)) return done();
  const double diff = p.max_relative_difference(first);
  if (diff > settings_.checks.determinism_ulps * std::numeric_limits<double>::epsilon()) {
    m.status = "nondeterministic";
    char buf[120];
    std::snprintf(buf, sizeof buf, "two runs on identical inputs differ by %.3e relative", diff);
    m.reason = buf;
    return done();
  }
  for (int i = 2; i < settings_.timing.warmup; ++i)
    if (!timed_run(*s, p, m, warm, next_seed())) return done();

  // Timed runs: how many is decided by these runs alone, never by the warm-up.
  std::vector<double> times;
  const auto tt = clock_type::now();
  const auto& tp = settings_.timing;
  while (static_cast<int>(times.size()) < tp.max_repetitions) {
    if (!timed_run(*s, p, m, times, next_seed())) return done();
    if (static_cast<int>(times.size()) < tp.min_repetitions) continue;
    const auto st = summarize(times);
    if (st.iqr <= tp.target_spread * st.median || seconds_since(tt) > tp.time_cap_s) break;
  }
  m.repetitions = static_cast<int>(times.size());
  finish_statistics(m, times);
  return done();
}

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
  p.compute_reference(reference_);
  std::vector<double> warm;
  for (std::size_t i = 0; i < cs.size(); ++i)
    if (sessions[i] && !timed_run(*sessions[i], p, ms[i], warm, next_seed())) sessions[i].reset();
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < cs.size(); ++i)
      if (sessions[i] && !timed_run(*sessions[i], p, ms[i], times[i], next_seed())) sessions[i].reset();
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (ms[i].status == "ok") {
      ms[i].repetitions = static_cast<int>(times[i].size());
      finish_statistics(ms[i], times[i]);
    } else {
      ms[i].time_median_s = ms[i].time_min_s = ms[i].time_spread_s = std::numeric_limits<double>::quiet_NaN();
    }
    ms[i].eval_time_s = seconds_since(starts[i]);
  }
  return ms;
}

}  // namespace galapagos::eval
