#include "eval/evaluator.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <condition_variable>
#include <deque>
#include <fstream>
#include <future>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include "eval/arena.hpp"
#include "eval/symbols.hpp"
#include "util/build_info.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/stats.hpp"

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
  s.median = util::quantile_of_sorted(v, 0.5);
  s.min = v.front();
  s.iqr = util::quantile_of_sorted(v, 0.75) - util::quantile_of_sorted(v, 0.25);
  return s;
}

struct evaluator::session {
  std::unique_ptr<worker_process> worker;
  std::map<const problem*, std::uint64_t> set_up;  // problem instance glp_setup last ran on
};

// Builds waiting for their turn on spare cores while the device measures. A build that has not
// started when its candidate comes up is taken back and built by the caller.
struct evaluator::compile_queue {
  struct entry {
    build_request request;
    bool started = false;
    std::promise<build_result> done;
    std::shared_future<build_result> result;
  };
  const builder& b;
  std::mutex mutex;
  std::condition_variable wake;
  std::deque<std::string> waiting;
  std::map<std::string, std::shared_ptr<entry>> entries;
  bool stopping = false;
  std::vector<std::thread> threads;

  compile_queue(const builder& bld, int jobs) : b(bld) {
    for (int i = 0; i < jobs; ++i) threads.emplace_back([this] { work(); });
  }
  ~compile_queue() {
    {
      std::lock_guard<std::mutex> hold(mutex);
      stopping = true;
    }
    wake.notify_all();
    for (auto& t : threads) t.join();
  }
  void work() {
    for (;;) {
      std::shared_ptr<entry> e;
      {
        std::unique_lock<std::mutex> hold(mutex);
        wake.wait(hold, [&] { return stopping || !waiting.empty(); });
        if (stopping) return;
        e = entries.at(waiting.front());
        waiting.pop_front();
        e->started = true;
      }
      try {
        e->done.set_value(b.build(e->request));
      } catch (...) {
        e->done.set_exception(std::current_exception());
      }
    }
  }
  void add(const std::string& key, build_request r) {
    std::lock_guard<std::mutex> hold(mutex);
    if (entries.count(key)) return;
    auto e = std::make_shared<entry>();
    e->request = std::move(r);
    e->result = e->done.get_future().share();
    entries[key] = e;
    waiting.push_back(key);
    wake.notify_one();
  }
  // The build of an earlier add(), waited for; nothing when there was none or it had not started.
  std::optional<build_result> take(const std::string& key) {
    std::shared_ptr<entry> e;
    {
      std::lock_guard<std::mutex> hold(mutex);
      const auto it = entries.find(key);
      if (it == entries.end()) return std::nullopt;
      e = it->second;
      entries.erase(it);
      if (!e->started) {
        waiting.erase(std::find(waiting.begin(), waiting.end(), key));
        return std::nullopt;
      }
    }
    return e->result.get();
  }
};

namespace {
std::string request_key(const build_request& r) {
  util::content_hash k;
  k.add(r.compiler).add(r.source.string()).add(r.source_text);
  for (const auto* list : {&r.shared_flags, &r.flags, &r.defines, &r.include_dirs, &r.libs})
    for (const auto& x : *list) k.add(x);
  return k.hex();
}
}  // namespace

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
  int jobs = settings_.compile_jobs;
  if (jobs < 0) jobs = toolchain_.worker_backend == "cpu" ? 0 : std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1);
  if (jobs > 0) ahead_ = std::make_unique<compile_queue>(builder_, jobs);
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
  ahead_.reset();
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

std::unique_ptr<evaluator::session> evaluator::start_worker(std::vector<std::string> launcher, bool profiled) {
  worker_options opt;
  opt.executable = default_worker_executable();
  opt.scratch_root = settings_.scratch_dir;
  opt.threads = settings_.threads;
  opt.flush_bytes = 3 * ceilings_.llc_bytes;
  opt.address_space_bytes = arena_->bytes() + opt.flush_bytes + settings_.memory_limit_bytes;
  opt.cpu_seconds = static_cast<std::uint64_t>(std::max(120.0, 20 * settings_.timeout_s));
  opt.backend = toolchain_.worker_backend + (profiled ? ":profiled" : "");
  opt.device_index = device_index_;
  opt.launcher = std::move(launcher);
  auto s = std::make_unique<session>();
  s->worker = std::make_unique<worker_process>(opt, *arena_);
  return s;
}

build_request evaluator::build_request_for(const candidate_source& c) const {
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
  return r;
}

build_result evaluator::build(const candidate_source& c) {
  build_request r = build_request_for(c);
  if (ahead_)
    if (auto done = ahead_->take(request_key(r))) return *done;
  return builder_.build(r);
}

void evaluator::compile_ahead(const std::vector<candidate_source>& cs) {
  if (!ahead_) return;
  for (const auto& c : cs) {
    build_request r = build_request_for(c);
    const std::string key = request_key(r);
    ahead_->add(key, std::move(r));
  }
}

std::unique_ptr<evaluator::session> evaluator::open(const candidate_source& c, measurement& m,
                                                    std::optional<std::chrono::steady_clock::time_point>* held,
                                                    std::vector<std::string> launcher, bool profiled) {
  const auto built = build(c);
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
  if (held) *held = clock_type::now();
  auto s = start_worker(std::move(launcher), profiled);
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

bool evaluator::timed_run(session& s, problem& p, measurement& m, std::vector<double>& times, std::uint64_t run_seed,
                          bool always_verify) {
  if (run_seed != 0) p.perturb(run_seed, settings_.checks.perturb_count);
  p.stage();
  double t = 0;
  if (!run_once(s, p, m, t, true)) return false;
  sample_clock(m);
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
  // Whether this run is compared with the reference is drawn after it ran, from the secret stream.
  const double fraction = settings_.checks.verify_fraction;
  const bool full = always_verify || fraction >= 1 || static_cast<double>(next_seed() >> 11) * 0x1.0p-53 < fraction;
  if (full && !p.reference_current()) p.compute_reference(reference_);
  const verdict v = p.verify(full);
  if (full) {
    m.rel_error = std::max(m.rel_error, v.rel_error);
    ++m.verified_runs;
  }
  if (v.status != "ok") {
    m.status = v.status;
    m.reason = v.reason + " (timed run)";
    return false;
  }
  times.push_back(t);
  return true;
}

void evaluator::sample_clock(measurement& m) {
  if (!monitor_) return;
  const auto now = monitor_->now();
  m.sm_clocks_mhz.push_back(now.sm_clock_mhz);
  if (gpu_monitor::throttled(now.event_reasons)) ++m.throttled_runs;
}

// The board's power while the candidate runs back to back for energy_burst_s, from the steps of
// its energy counter; energy per call = power x the orchestrator's time per call. Informational:
// nothing here feeds the fitness.
void evaluator::measure_energy(session& s, problem& p, measurement& m) {
  const double burst_s = settings_.timing.energy_burst_s;
  if (!monitor_ || burst_s <= 0 || !(m.time_median_s > 0)) return;
  const int repeat = static_cast<int>(std::clamp(std::ceil(burst_s / m.time_median_s), 1.0, double(1 << 20)));
  if (s.set_up[&p] != p.instance()) return;  // the timing runs set this instance up
  protocol::request q = p.run_request();
  p.stage();
  if (!request(s, protocol::request_kind::stage, &q, m)) return;
  q.kind = protocol::request_kind::run;
  q.repeat = repeat;
  gpu_monitor::recorder rec(*monitor_, 0.002);
  const auto r = s.worker->call(q, settings_.timeout_s + 2 * burst_s);
  const auto samples = rec.stop();
  if (!r.replied || r.reply.status != protocol::reply_status::ok) {
    m.status = r.replied ? "crash" : r.status;
    m.reason = r.replied ? "the candidate failed when called back to back (energy reading)" : r.reason;
    return;
  }
  const double power = mean_power_w(samples, r.sent_at_s, r.sent_at_s + r.elapsed_s);
  if (!std::isfinite(power)) return;
  m.power_w = power;
  m.energy_j = power * r.elapsed_s / repeat;
}

void evaluator::finish_statistics(measurement& m, std::vector<double> times) const {
  const auto st = summarize(std::move(times));
  m.time_median_s = st.median;
  m.time_min_s = st.min;
  m.time_spread_s = st.iqr;
  m.floor_s = floor_s(fitness_);
  if (!m.sm_clocks_mhz.empty()) m.sm_clock_mhz = summarize(m.sm_clocks_mhz).median;
}

measurement evaluator::evaluate(const candidate_source& c) {
  const auto t0 = clock_type::now();
  measurement m;
  m.floor_s = floor_s(fitness_);
  std::optional<clock_type::time_point> held;  // from the worker's start: the device is in use
  auto done = [&]() -> measurement {
    m.eval_time_s = seconds_since(t0);
    if (held) {
      m.device_time_s = seconds_since(*held);
      device_busy_s_ += m.device_time_s;
    }
    if (m.status != "ok") m.time_median_s = m.time_min_s = m.time_spread_s = std::numeric_limits<double>::quiet_NaN();
    return m;
  };
  auto s = open(c, m, &held);
  if (!s || !accept(*s, m)) return done();

  problem& p = *timing_problem_;
  p.fill(next_seed(), 0);
  p.compute_reference(reference_);
  // Warm-up: two runs on identical inputs, verified, and compared with each other.
  std::vector<double> warm;
  if (!timed_run(*s, p, m, warm, 0, true)) return done();
  const auto first = p.snapshot_outputs();
  if (!timed_run(*s, p, m, warm, 0, true)) return done();
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
  measure_energy(*s, p, m);
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
    if (sessions[i] && !timed_run(*sessions[i], p, ms[i], warm, next_seed(), true)) sessions[i].reset();
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < cs.size(); ++i)
      if (sessions[i] && !timed_run(*sessions[i], p, ms[i], times[i], next_seed(), true)) sessions[i].reset();
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (ms[i].status == "ok") {
      ms[i].repetitions = static_cast<int>(times[i].size());
      finish_statistics(ms[i], times[i]);
      if (sessions[i]) measure_energy(*sessions[i], p, ms[i]);
    } else {
      ms[i].time_median_s = ms[i].time_min_s = ms[i].time_spread_s = std::numeric_limits<double>::quiet_NaN();
    }
    ms[i].eval_time_s = seconds_since(starts[i]);
  }
  return ms;
}

}  // namespace galapagos::eval

namespace galapagos::eval {

namespace {

// What the report and the proposers read of a profiled elite: its kernels' time, achieved DRAM
// bandwidth, SM and memory throughput, achieved occupancy, registers per thread and local-memory
// traffic (register spills and local arrays).
const char* const profile_metrics =
    "gpu__time_duration.sum,dram__bytes.sum.per_second,dram__throughput.avg.pct_of_peak_sustained_elapsed,"
    "sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,"
    "sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,"
    "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum";

std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') cur += '"', ++i;
      else if (ch == '"') quoted = false;
      else cur += ch;
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      out.push_back(std::move(cur));
      cur.clear();
    } else if (ch != '\r') {
      cur += ch;
    }
  }
  out.push_back(std::move(cur));
  return out;
}

// A number as the profiler prints it ("1,234.5"); NaN when it is not one.
double profiler_number(std::string text) {
  text.erase(std::remove(text.begin(), text.end(), ','), text.end());
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  return end && end != text.c_str() && *end == '\0' ? v : std::numeric_limits<double>::quiet_NaN();
}

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : "";
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  path += ":/usr/local/cuda/bin";
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) return dir + "/" + name;
  return "";
}

}  // namespace

bool evaluator::can_profile() const {
  return toolchain_.worker_backend == "cuda" && settings_.profile_elites > 0 && !find_program(settings_.profiler).empty();
}

std::vector<profile_metric> evaluator::profile(const candidate_source& c, std::string& why) {
  const std::string ncu = find_program(settings_.profiler);
  if (toolchain_.worker_backend != "cuda" || ncu.empty()) {
    why = "no profiler '" + settings_.profiler + "' for the " + backend_ + " backend";
    return {};
  }
  std::string log = (settings_.scratch_dir / "galapagos-profile-XXXXXX").string();
  const int fd = mkstemp(log.data());
  if (fd < 0) {
    why = "cannot create a file for the profiler's report in " + settings_.scratch_dir.string();
    return {};
  }
  close(fd);
  struct remove_at_exit {
    std::string path;
    ~remove_at_exit() { std::remove(path.c_str()); }
  } cleanup{log};
  // The card's clocks stay as they are (--clock-control none): the metrics describe the same
  // conditions the timings were taken in.
  const std::vector<std::string> launcher = {ncu, "--clock-control", "none", "--profile-from-start", "off",
                                             "--target-processes", "all", "--csv", "--page", "raw",
                                             "--metrics", profile_metrics, "--log-file", log};
  measurement m;
  auto s = open(c, m, nullptr, launcher, true);
  if (!s) {
    why = "the candidate did not start under the profiler: " + m.status + ": " + m.reason;
    return {};
  }
  problem& p = *timing_problem_;
  if (p.instance() == 0) p.fill(next_seed(), 0);  // the inputs of the last timing serve: nothing is verified here
  p.stage();
  protocol::request q = p.run_request();
  if (!request(*s, protocol::request_kind::stage, &q, m) || !request(*s, protocol::request_kind::flush, nullptr, m)) {
    why = "staging under the profiler failed: " + m.status + ": " + m.reason;
    return {};
  }
  q.kind = protocol::request_kind::run;
  q.flags |= protocol::run_profiled | protocol::run_setup_first;  // setup runs outside the capture range
  const double replay_allowance = 50;  // the profiler replays each kernel once per metric pass
  const auto r = s->worker->call(q, settings_.timeout_s * replay_allowance);
  if (!r.replied || r.reply.status != protocol::reply_status::ok) {
    why = "the profiled run failed: " + (r.replied ? std::string(r.reply.message) : r.status + ": " + r.reason);
    return {};
  }
  if (!s->worker->finish(settings_.timeout_s * replay_allowance)) {
    why = "the profiler did not finish cleanly";
    return {};
  }
  std::ifstream in(log);
  std::vector<std::string> header, units;
  std::vector<profile_metric> out;
  int launch = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("\"ID\"", 0) == 0) {
      header = split_csv(line);
      continue;
    }
    if (header.empty() || line.empty() || line[0] != '"') continue;
    const auto cells = split_csv(line);
    if (cells.size() != header.size()) continue;
    if (cells[0].empty()) {  // the row of units under the header
      units = cells;
      continue;
    }
    std::string kernel;
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == "Kernel Name") kernel = cells[i];
    for (std::size_t i = 0; i < header.size(); ++i) {
      // The raw page also lists the device's attributes and launch details: keep what was asked.
      if (("," + std::string(profile_metrics) + ",").find("," + header[i] + ",") == std::string::npos) continue;
      out.push_back({kernel, launch, header[i], i < units.size() ? units[i] : "", profiler_number(cells[i])});
    }
    ++launch;
  }
  if (out.empty()) why = "the profiler reported no kernel launch of the candidate";
  return out;
}

}  // namespace galapagos::eval
