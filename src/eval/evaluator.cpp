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
  double empty_run_s = 0;   // the orchestrator's clock around an empty run, calibrated before loading
  double busy_excess_s = 0; // GPUs: what a run of real device work adds beyond its events (calibrated)
  int threads = -1;         // the worker's threads before the candidate was loaded
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
  std::size_t bytes = problem::arena_bytes(f, fitness_);
  for (const auto& s : accept) bytes = std::max(bytes, problem::arena_bytes(f, s));
  arena_ = std::make_unique<arena>(bytes);
  const generator_fns* gen = f.generator_source.empty() ? nullptr : &generator_;
  family_code_ = std::make_unique<family_process>(f, &problem::serve);
  for (std::size_t i = 0; i < accept.size(); ++i)
    accept_problems_.push_back(std::make_unique<problem>(f, accept[i], *arena_, *family_code_, f.accept_sizes[i].generator_spec, gen));
  timing_problem_ = std::make_unique<problem>(f, fitness_, *arena_, *family_code_, fitness_spec_, gen);
  family_code_->start();  // after every problem it serves exists, before any thread does
  if (toolchain_.worker_backend != "cpu") probe_device();
  measured_ = ceilings_;
  int jobs = settings_.compile_jobs;
  if (jobs < 0) jobs = toolchain_.worker_backend == "cpu" ? 0 : std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1);
  if (jobs > 0) ahead_ = std::make_unique<compile_queue>(builder_, jobs);
}

// Input seeds: derived from the secret run seed, never from anything a candidate can see.
std::uint64_t evaluator::next_seed() { return util::mix64(secret_ ^ util::mix64(++counter_)); }

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
                ceilings_.bandwidth_gbs, ceilings_.bandwidth_source.c_str(), ceilings_.peak_gflops,
                ceilings_.peak_source.c_str(), ceilings_.peak_gflops_f32, ceilings_.peak_f32_source.c_str());
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
    raise_ceilings(bandwidth ? measure_bandwidth_gbs(ceilings_.llc_bytes) : 0, arithmetic && !f32 ? measure_peak_gflops(false) : 0,
                   arithmetic && f32 ? measure_peak_gflops(true) : 0, "probe repeated during the search");
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
                "cannot probe the device: " + (r.replied ? std::string(r.reply.message) : r.status + " " + r.reason));
  ceilings_.bandwidth_gbs = r.reply.ceilings[0];
  ceilings_.peak_gflops = r.reply.ceilings[1];
  ceilings_.peak_gflops_f32 = r.reply.ceilings[2];
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
  if (r.rc != 0)
    throw error(family_.generator_source.string(), "problem '" + p.generator_spec + "': " + r.message);
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
      m.status = "load_error";
      m.reason = res.reply.message;
      return nullptr;
    }
    // The libraries it links may start threads of their own; a thread its constructors start is its.
    if (kind == protocol::request_kind::preload) s->threads = s->worker->thread_count();
  }
  return s;
}

// Empty runs through the same path as a timed one (request, the device's events and
// synchronisation, reply, freeze): the least of them is what the orchestrator's clock adds. On
// GPUs also runs of the device's own work: how much more a run that keeps the device busy adds
// to the orchestrator's clock beyond its events (the launch, the wake-up after the work) is
// taken from them, never from anything a candidate could touch.
bool evaluator::calibrate(session& s, measurement& m) {
  auto run = [&](std::int32_t flags, double& elapsed, double& events) {
    protocol::request q{};
    q.kind = protocol::request_kind::run;
    q.flags = flags;
    const auto r = s.worker->call(q, settings_.timeout_s);
    if (!r.replied || r.reply.status != protocol::reply_status::ok) {
      m.status = r.replied ? "protocol_error" : r.status;
      m.reason = r.replied ? "the worker failed an empty run" : r.reason + " (calibrating)";
      return false;
    }
    elapsed = r.elapsed_s;
    events = r.reply.time_s;
    if (std::getenv("GALAPAGOS_TIMING_TRACE"))
      std::fprintf(stderr, "calibration (flags %d): elapsed %.1f us, worker %.1f us\n", flags, 1e6 * elapsed, 1e6 * events);
    return true;
  };
  double least = std::numeric_limits<double>::infinity(), elapsed = 0, events = 0;
  for (int i = 0; i < 9; ++i) {
    if (!run(protocol::run_empty, elapsed, events)) return false;
    least = std::min(least, elapsed);
  }
  s.empty_run_s = least;
  if (toolchain_.worker_backend != "cpu") {
    std::vector<double> excess;
    for (int i = 0; i < 5; ++i) {
      if (!run(protocol::run_calibration, elapsed, events)) return false;
      excess.push_back(elapsed - least - events);
    }
    s.busy_excess_s = std::max(0.0, summarize(excess).median);
  }
  return true;
}

// A thread the candidate started and did not join could still be writing the outputs or
// computing ahead. Counted by the orchestrator while the worker is frozen; a joined thread may
// take a moment to leave /proc, so look a few times.
bool evaluator::leaked_threads(session& s, measurement& m) {
  if (s.threads < 0) return false;
  int extra = 0;
  for (int attempt = 0; attempt < 20; ++attempt) {
    const int now = s.worker->thread_count();
    if (now < 0) return false;  // the worker is gone: the next request says why
    extra = now - s.threads;
    if (extra <= 0) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  m.status = "leaked_thread";
  m.reason = std::to_string(extra) + " threads still running after the entry point returned";
  return true;
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

namespace {

// A reply's status as the candidate's status; "" when the run went well.
std::string run_failure(const call_result& r, std::string& reason) {
  using rs = protocol::reply_status;
  switch (r.reply.status) {
    case rs::ok: return "";
    case rs::kernel_error:
      reason = r.reply.message[0] ? r.reply.message : "entry point returned " + std::to_string(r.reply.kernel_rc);
      return "kernel_error";
    case rs::out_of_memory: reason = "std::bad_alloc escaped the entry point"; return "out_of_memory";
    case rs::exception: reason = "a C++ exception escaped the entry point"; return "crash";
    case rs::device_fault: reason = std::string("device fault: ") + r.reply.message; return "crash";
    default: reason = "unexpected worker reply"; return "protocol_error";
  }
}

}  // namespace

// Runs the problem once: stage its arena onto the device, flush the caches when timing, call the
// candidate's glp_setup when the session has not prepared this problem instance yet (its own
// request, timed apart), call the candidate, collect the results back into the arena. Returns
// false with m.status set on failure.
// The worker shares its address space with the candidate, so nothing it reports is believed on
// its own. The worker is frozen the moment each reply arrives (worker_process::call), so the
// outputs the checks read are those of the reply, and the orchestrator's clock from the request
// to the freeze, less the calibrated empty run, covers everything the candidate did. On CPUs that
// is the time. On GPUs the device's events are more precise; they are believed down to
// gpu_timer_slack_rel below the orchestrator's figure, and replaced by it below that.
bool evaluator::run_once(session& s, problem& p, measurement& m, double& time_s, bool flush, double* worker_s) {
  const auto& chk = settings_.checks;
  const bool gpu = toolchain_.worker_backend != "cpu";
  for (int attempt = 0;; ++attempt) {
    protocol::request q = p.run_request();
    if (!request(s, protocol::request_kind::stage, &q, m)) return false;
    if (s.set_up[&p] != p.instance()) {
      protocol::request setup = q;
      setup.flags |= protocol::run_setup_only;
      const auto r = s.worker->call(setup, settings_.timeout_s);
      if (!r.replied) {
        m.status = r.status;
        m.reason = r.reason + " (in glp_setup)";
        return false;
      }
      if (const auto st = run_failure(r, m.reason); !st.empty()) {
        m.status = st;
        return false;
      }
      if (leaked_threads(s, m)) return false;
      s.set_up[&p] = p.instance();
      if (&p == timing_problem_.get()) m.setup_time_s = std::max(0.0, r.elapsed_s - s.empty_run_s);
    }
    if (flush && !request(s, protocol::request_kind::flush, nullptr, m)) return false;
    const auto r = s.worker->call(q, settings_.timeout_s);
    if (!r.replied) {
      m.status = r.status;
      m.reason = r.reason;
      return false;
    }
    if (const auto st = run_failure(r, m.reason); !st.empty()) {
      m.status = st;
      return false;
    }
    if (leaked_threads(s, m)) return false;
    if (gpu && !request(s, protocol::request_kind::collect, nullptr, m)) return false;
    const double own = std::max(0.0, r.elapsed_s - s.empty_run_s);
    if (worker_s) *worker_s = r.reply.time_s;
    if (std::getenv("GALAPAGOS_TIMING_TRACE"))
      std::fprintf(stderr, "run: elapsed %.1f us, empty %.1f us, worker %.1f us\n", 1e6 * r.elapsed_s, 1e6 * s.empty_run_s,
                   1e6 * r.reply.time_s);
    // A worker clock that saw more time than passed around the request has been tampered with
    // (the bound in the other direction is the figure itself).
    const double events = r.reply.time_s;
    if (std::isfinite(events) && events >= 0 && events <= r.elapsed_s + 5e-5) {
      time_s = gpu ? std::max(events, std::max(0.0, own - s.busy_excess_s) * (1 - chk.gpu_timer_slack_rel)) : own;
      return true;
    }
    if (attempt + 1 >= chk.timer_attempts) {
      m.status = "timer_mismatch";
      char buf[200];
      std::snprintf(buf, sizeof buf, "the worker's clock says %.6f s of a request the orchestrator saw take %.6f s (%d attempts)",
                    events, r.elapsed_s, attempt + 1);
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

// Every timed run gets wholly fresh inputs (run_seed != 0; 0 repeats the last inputs, for the
// determinism check), so nothing of an earlier run can be reused.
bool evaluator::timed_run(session& s, problem& p, measurement& m, std::vector<double>& times, std::uint64_t run_seed,
                          const candidate_source& c, bool always_verify) {
  if (run_seed != 0) p.redraw(run_seed);
  p.stage();
  double t = 0, claimed = 0;
  if (!run_once(s, p, m, t, true, &claimed)) return false;
  sample_clock(m);
  // How this run is judged: by the family's checker when it has one (cheap enough for every run),
  // else against the reference, on every run or on a share drawn after it ran from the secret stream.
  const std::uint64_t draw = next_seed();
  problem::judge how = problem::judge::basic;
  if (checker_ && &p == timing_problem_.get()) {
    how = problem::judge::checker;
  } else {
    const double fraction = settings_.checks.verify_fraction;
    if (always_verify || fraction >= 1 || static_cast<double>(draw >> 11) * 0x1.0p-53 < fraction) how = problem::judge::reference;
    if (how == problem::judge::reference && !p.reference_current()) p.compute_reference(reference_);
  }
  const verdict v = p.verify(how, checker_, next_seed());
  if (how != problem::judge::basic) {
    m.rel_error = std::max(m.rel_error, v.rel_error);
    ++m.verified_runs;
  }
  // A run faster than physics is called so before its output is: a skip is told as what it is.
  if (too_fast(s, p, t, claimed, c, m)) return false;
  if (v.status != "ok") {
    m.status = v.status;
    m.reason = v.reason + " (timed run)";
    return false;
  }
  times.push_back(t);
  m.worker_clock_s.push_back(claimed);
  return true;
}

// The physical floor. A library baseline is trusted: never rejected for speed, and what it
// achieves raises the ceilings. Anything else faster than the floor is measured again side by
// side with the ceilings (a shared node's throughput swings between a probe and a run): up to
// three times a fresh probe, then the candidate again on the same inputs, so that both see the
// node as it is now; only a run that stays below the floor is suspect_too_fast, and the message
// names the ceilings and where each came from. Both the run's figure and what the worker's own
// clock claims are held against the floor: on a busy node the orchestrator's clock also holds the
// time it waited to be scheduled, and an honest worker's clock is never below the floor.
bool evaluator::too_fast(session& s, problem& p, double figure, double claimed, const candidate_source& c, measurement& m) {
  auto fastest = [](double fig, double claim) { return claim > 0 && std::isfinite(claim) ? std::min(fig, claim) : fig; };
  double t = fastest(figure, claimed);
  if (!(t > 0)) return false;
  const bool f32 = family_.compute_type() == families::dtype::float32;
  if (!c.baseline.empty()) {
    const double flops = family_.flops(p.size()) / t / 1e9, bytes = family_.bytes(p.size()) / t / 1e9;
    const double peak = family_peak_gflops();
    if (bytes > ceilings_.bandwidth_gbs || flops > peak) {
      if (toolchain_.worker_backend == "cpu") reprobe(bytes > ceilings_.bandwidth_gbs, flops > peak);
      raise_ceilings(bytes, f32 ? 0 : flops, f32 ? flops : 0, "baseline " + c.baseline + " at " + p.describe());
    }
    return false;
  }
  // The least time the traffic allows and the least the arithmetic allows.
  auto limits = [&] {
    const auto& cl = ceilings_;
    const double measured = family_peak_gflops();
    const double hardware = f32 ? cl.hardware_gflops_f32 : cl.hardware_gflops;
    // The margin never lifts the peak above the hardware's bound (unless a measurement did).
    double peak = measured * settings_.checks.compute_margin;
    if (hardware > 0) peak = measured > 0 ? std::min(peak, std::max(hardware, measured)) : hardware;
    std::pair<double, double> least{0, 0};
    if (cl.bandwidth_gbs > 0) least.first = family_.bytes(p.size()) / (cl.bandwidth_gbs * settings_.checks.physics_margin * 1e9);
    if (peak > 0) least.second = family_.flops(p.size()) / (peak * 1e9);
    return least;
  };
  auto limit_s = [&] { const auto l = limits(); return std::max(l.first, l.second); };
  for (int attempt = 0; attempt < 3 && t < limit_s(); ++attempt) {
    const auto l = limits();
    reprobe(t < l.first, t < l.second);
    p.stage();
    measurement again;
    double fig = 0, claim = 0;
    if (!run_once(s, p, again, fig, true, &claim)) {
      m.status = again.status;
      m.reason = again.reason + " (run again beside a fresh probe)";
      return true;
    }
    t = fastest(fig, claim);
  }
  const double least = limit_s();
  if (!(t < least)) return false;
  m.status = "suspect_too_fast";
  char buf[300];
  std::snprintf(buf, sizeof buf, "%.3e s is below the physical floor %.3e s (%.0f%% of roofline) at %s; ", t, least,
                100 * floor_s(p.size()) / t, p.describe().c_str());
  m.reason = buf + describe_ceilings();
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
  if (!m.worker_clock_s.empty()) m.worker_clock_median_s = summarize(m.worker_clock_s).median;
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
  // Warm-up: two runs on identical inputs, verified, and compared with each other.
  std::vector<double> warm;
  if (!timed_run(*s, p, m, warm, 0, c, true)) return done();
  const auto first = p.snapshot_outputs();
  if (!timed_run(*s, p, m, warm, 0, c, true)) return done();
  const double diff = p.max_relative_difference(first);
  if (diff > settings_.checks.determinism_ulps * std::numeric_limits<double>::epsilon()) {
    m.status = "nondeterministic";
    char buf[120];
    std::snprintf(buf, sizeof buf, "two runs on identical inputs differ by %.3e relative", diff);
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
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < cs.size(); ++i)
      if (sessions[i] && !timed_run(*sessions[i], p, ms[i], times[i], next_seed(), cs[i], true)) sessions[i].reset();
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
