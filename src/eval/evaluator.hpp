// Evaluation of one candidate, exactly as a search does it: build through the cache, check the
// exports, run in a sandboxed worker, prove correct at every acceptance size against the
// reference, then time at the fitness size with every run's output verified, the worker's
// clock cross-checked and the physical floor enforced. The rules are in docs/threat-model.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "eval/builder.hpp"
#include "eval/candidate_status.hpp"
#include "eval/gpu_monitor.hpp"
#include "eval/probe.hpp"
#include "eval/problem.hpp"
#include "eval/toolchain.hpp"
#include "eval/worker_process.hpp"
#include "families/family.hpp"

namespace galapagos::eval {

struct timing_policy {
  int warmup = 2;  // untimed for the statistics; the first two double as the determinism check
  int min_repetitions = 5;
  int max_repetitions = 30;
  double target_spread = 0.05;  // stop when IQR / median is below this...
  double time_cap_s = 3.0;      // ...or when the timing phase has taken this long (wall)
  // GPUs with NVML: after timing, the candidate is called back to back for this long and the
  // board's energy counter read around it (0: no energy reading).
  double energy_burst_s = 0.5;
  // Input sets per timed run: the candidate is called once on each, in turn, within one request,
  // and the run's figure is the time per call. A device-wide synchronisation and the
  // orchestrator's round trip then weigh 1/batch as much. Every set has inputs of its own, drawn
  // fresh for every run, and every set's outputs are verified. 0: on GPUs as many as keep the
  // calibrated round trip within 2% of the fitness size's floor (at most 16); on CPUs 1.
  int batch = 0;
};

struct check_policy {
  int seeds = 2;  // fresh input sets per acceptance size
  // A run faster than the floor is suspect_too_fast: below bytes / (bandwidth x physics_margin)
  // or flops / peak, the peak being the processor's own bound where it is known (CPUs), else the
  // measured peak x compute_margin (GPUs). Measured
  // ceilings are raised by anything trusted that beats them (a re-probe, a library baseline).
  double physics_margin = 1.5;  // memory traffic: a probe sees less than a tuned kernel can
  double compute_margin = 1.1;  // arithmetic: a tuned BLAS is close to the machine's peak
  // GPUs: the device's events are believed down to this share below the orchestrator's own clock
  // (its interval around the run, less the calibrated empty run); a time the worker reports below
  // that is replaced by it. CPUs use the orchestrator's clock alone.
  double gpu_timer_slack_rel = 0.02;
  int timer_attempts = 3;        // a worker clock beyond the orchestrator's must persist this often
  double determinism_ulps = 64;  // identical runs may differ by this many ulps of the output scale
  // Share of timed runs (after the two warm-up runs, which always are) compared with the
  // reference, drawn in secret after each run. The others still get every check that needs no
  // reference: inputs unchanged, every output written, no NaN/Inf, the physical floor. A family
  // with a checker (glp_check) has every timed run checked by it instead.
  double verify_fraction = 1.0;
  // Bytes past a page boundary at which every argument starts (0: page-aligned, as searches run;
  // `galapagos family check` passes 8, so that no vector width divides the pointers).
  std::size_t misalign_bytes = 0;
};

struct eval_settings {
  timing_policy timing;
  check_policy checks;
  int threads = 0;                                // 0: every CPU of the node
  double timeout_s = 60;                          // wall-clock limit of any one request to the worker
  std::uint64_t memory_limit_bytes = 4ull << 30;  // address space for the candidate beyond the arena
  std::string fitness_size = "tune";
  std::string fitness_problem;      // a generator spec that replaces fitness_size (e.g. "mtx:A.mtx")
  std::filesystem::path cache_dir;  // empty: default_cache_dir()
  std::filesystem::path scratch_dir = "/tmp";
  std::string compiler = "g++";
  int device = -1;  // GPU index; -1: the node-local rank modulo the GPU count
  // Candidates compiled ahead, beside the one being measured: -1 = on GPUs, the node's cores
  // minus one; on CPUs none (a compiler beside a timed run would disturb it).
  int compile_jobs = -1;
  std::string profiler = "ncu";  // Nsight Compute, for the metrics of elites on NVIDIA GPUs
  int profile_elites = 2;        // elites per island profiled at the end of a search (0: none)
};

struct profile_metric {  // one metric of one kernel launch, as the profiler reports it
  std::string kernel;
  int launch = 0;
  std::string metric, unit;
  double value = 0;
};

// The fewest timed runs a p99 is given for: below, it would be the slowest run and no more.
inline constexpr int p99_min_runs = 20;

struct measurement {
  candidate_status status = candidate_status::ok;
  std::string reason;
  std::string source_hash;
  std::string build_log;
  std::string build_command;
  double compile_time_s = 0;
  double setup_time_s = 0;  // the candidate's glp_setup at the fitness size (0 without one)
  double eval_time_s = 0;
  double time_median_s = 0, time_min_s = 0, time_spread_s = 0;
  // Percentiles of the timed runs: p50 (the median) from any run; p99 from p99_min_runs runs on
  // (NaN below; interpolated between order statistics like the median, docs/hdf5-schema.md).
  double time_p50_s = 0.0 / 0.0, time_p99_s = 0.0 / 0.0;
  int repetitions = 0;
  double rel_error = 0;
  double floor_s = 0;        // cost-model floor at the fitness size
  int verified_runs = 0;     // runs compared with the reference
  double device_time_s = 0;  // wall time the device was held (worker start to the end)
  double energy_j = 0.0 / 0.0, power_w = 0.0 / 0.0, sm_clock_mhz = 0.0 / 0.0;  // NaN: not measured
  int throttled_runs = 0;
  std::vector<double> sm_clocks_mhz;  // after each timed run (NVML, ROCm SMI)
  // What the worker's own clock (the device's events on GPUs) said of the timed runs: never the
  // figure, kept to show how far it is from the orchestrator's (docs/threat-model.md).
  std::vector<double> worker_clock_s;
  double worker_clock_median_s = 0.0 / 0.0;
  // The floor taken side by side (evaluate_interleaved on the CPU): the ceiling that binds the
  // floor is measured again after every round, and this is the median over the rounds of that
  // round's floor / that round's time, so that a node whose bandwidth swings between minutes moves
  // both alike. NaN where it was not measured (GPUs, single evaluations); `rounds_ceiling` says in
  // words what was measured ("" then).
  double rounds_roofline_fraction = 0.0 / 0.0;
  std::string rounds_ceiling;
  double roofline_fraction() const {
    return status == candidate_status::ok && time_median_s > 0 ? floor_s / time_median_s : 0.0 / 0.0;
  }
};

struct candidate_source {
  std::filesystem::path source;
  std::string text;                           // empty: read the file
  std::map<std::string, std::string> params;  // -DGLP_<name>=<value>
  std::vector<std::string> flags;             // compile flags
  std::vector<std::string> libs;
  // A family's shipped baseline (trusted code): never rejected for speed; when it beats a
  // ceiling, the ceiling is raised to what it achieved.
  std::string baseline;
};

// A family's template (with parameter values), built with its own flags and libs.
inline candidate_source candidate_from(const families::source_spec& s, std::map<std::string, std::string> params = {}) {
  return candidate_source{s.source, "", std::move(params), s.flags, s.libs, ""};
}
inline candidate_source baseline_from(const families::source_spec& s) {
  auto c = candidate_from(s);
  c.baseline = s.name.empty() ? s.source.stem().string() : s.name;
  return c;
}
// An optional baseline (its vendor library may be missing on a node) that did not build or load
// here: it is left out and reported unavailable, not a failure.
inline bool unavailable_here(const families::source_spec& s, const measurement& m) {
  return s.optional && (m.status == candidate_status::compile_error || m.status == candidate_status::load_error);
}

// Measuring candidates, one interface for whatever serves the measurements: the evaluator below
// (compile, check, time on this node) or a recording (run::replay_source). The run, the final
// comparison and the baselines go through it and never ask which one they have.
class measurer {
 public:
  virtual ~measurer() = default;
  // One candidate: built, checked and timed, or served; a failure is a status, never a throw.
  virtual measurement evaluate(const candidate_source& c) = 0;
  // Several candidates timed in turn (A B C A B C ...), `rounds` times each, every run verified.
  // Entries that fail keep their status; the others get median/min/spread from these rounds.
  virtual std::vector<measurement> evaluate_interleaved(const std::vector<candidate_source>& cs, int rounds) = 0;
  // Candidates about to be measured, to build ahead on spare cores (nothing for a recording).
  virtual void compile_ahead(const std::vector<candidate_source>&) {}
  // The fastest baseline re-timed by `island` at the start of `generation`, for the speedups of
  // that generation's candidates: measured as any candidate is, or served from a recording.
  virtual measurement retime_baseline(const candidate_source& c, int /*island*/, int /*generation*/) { return evaluate(c); }
};

class evaluator final : public measurer {
 public:
  evaluator(const families::family& f, std::string backend, eval_settings settings, ceilings c, std::uint64_t secret_seed);
  ~evaluator() override;

  measurement evaluate(const candidate_source& c) override;
  // Starts building these on spare cores (settings.compile_jobs); evaluate() picks the results up.
  void compile_ahead(const std::vector<candidate_source>& cs) override;
  // Seconds the device has been held for measuring, over this evaluator's life.
  double device_busy_s() const { return device_busy_s_; }
  // Profiler metrics of one call of the candidate at the fitness size (it must have passed
  // evaluate() before). Empty with `why` set when there is no profiler or it failed.
  std::vector<profile_metric> profile(const candidate_source& c, std::string& why);
  bool can_profile() const;
  // The GPU's product name as NVML or ROCm SMI reports it; "" on the CPU backend or without either.
  std::string device_name() const { return monitor_ ? monitor_->name() : ""; }
  std::vector<measurement> evaluate_interleaved(const std::vector<candidate_source>& cs, int rounds) override;

  const families::family& family() const { return family_; }
  const builder& compiler() const { return builder_; }
  // How c is built (compiler, flags, defines, include folders), for a build on its own.
  build_request build_request_for(const candidate_source& c) const;
  double floor_s(const families::sizes& s) const;
  double family_peak_gflops() const;
  const ceilings& machine() const { return ceilings_; }   // what floors are computed from
  const ceilings& measured() const { return measured_; }  // what this process measured itself
  // Floors use the best of these and what was measured (other islands' probes, say).
  void raise_ceilings(double bandwidth_gbs, double peak_gflops, double peak_gflops_f32, const std::string& source);
  // The ceilings and where each came from, in one line (for messages and the results file).
  std::string describe_ceilings() const;
  const families::sizes& fitness_size() const { return fitness_; }
  // Input sets per timed run (timing_policy::batch); 0 until the first timed run chose them.
  int timing_sets() const { return batch_; }
  std::string fitness_description() const { return timing_problem_->describe(); }

 private:
  struct session;
  // Builds the candidate and starts a worker with it loaded; `held` gets the worker's start.
  std::unique_ptr<session> open(const candidate_source& c, measurement& m,
                                std::optional<std::chrono::steady_clock::time_point>* held = nullptr,
                                std::vector<std::string> launcher = {}, bool profiled = false);
  bool accept(session& s, measurement& m);
  bool timed_run(session& s, problem& p, measurement& m, std::vector<double>& times, std::uint64_t run_seed,
                 const candidate_source& c, bool always_verify = false);
  void sample_clock(measurement& m);
  void measure_energy(session& s, problem& p, measurement& m);
  build_result build(const candidate_source& c);
  std::unique_ptr<session> start_worker(std::vector<std::string> launcher = {}, bool profiled = false);
  // time_s: the run's figure; worker_s: what the worker's own clock claims (for the floor only).
  bool run_once(session& s, problem& p, measurement& m, double& time_s, bool flush, double* worker_s = nullptr);
  // The same for a batch: the candidate called once on each problem in turn (input sets 0, 1, ...)
  // in one request; the figures are per call.
  bool run_sets(session& s, std::span<problem* const> sets, measurement& m, double& time_s, bool flush,
                double* worker_s = nullptr);
  // The problems a timed run on p calls the candidate on: p alone, or with a timing batch's sets.
  std::vector<problem*> timing_sets_for(session& s, problem& p, std::uint64_t run_seed);
  double timing_batch_bytes() const;
  bool calibrate(session& s, measurement& m);
  bool leaked_threads(session& s, measurement& m);
  bool too_fast(session& s, std::span<problem* const> sets, double figure, double claimed, const candidate_source& c,
                measurement& m);
  void reprobe(bool bandwidth = true, bool arithmetic = true);
  class side_by_side_floor;
  check_fn checker_ = nullptr;  // the family's glp_check, when its reference exports one
  bool request(session& s, protocol::request_kind kind, const protocol::request* args, measurement& m);
  void probe_device();
  std::uint64_t next_seed();
  families::sizes resolve(const families::problem_spec& p) const;
  void* load_trusted(const std::filesystem::path& source, const char* what);
  void finish_statistics(measurement& m, std::vector<double> times) const;

  const families::family& family_;
  std::string backend_;
  eval_settings settings_;
  ceilings ceilings_;
  ceilings measured_;
  std::uint64_t secret_;
  std::uint64_t counter_ = 0;
  builder builder_;
  toolchain toolchain_;
  int device_index_ = 0;
  std::size_t device_free_bytes_ = 0;  // GPUs: free device memory at the probe (0: unknown)
  families::sizes fitness_;
  std::unique_ptr<arena> arena_;
  std::unique_ptr<arena> flush_memory_;  // the CPU workers' flush buffer (worker_options::flush_fd)
  std::vector<void*> trusted_handles_;   // reference and generator
  reference_fn reference_ = nullptr;
  generator_fns generator_;
  std::string fitness_spec_;
  std::unique_ptr<family_process> family_code_;  // runs the reference, checker and generator for the problems below
  std::unique_ptr<problem> timing_problem_;
  std::vector<std::unique_ptr<problem>> accept_problems_;
  // The further input sets of a timing batch (arena regions 1..), copies of the timing problem's
  // instance with values of their own; batch_: how many sets a timed run uses (chosen once).
  std::vector<std::unique_ptr<problem>> batch_problems_;
  int batch_ = 0;
  std::uint64_t batch_instance_ = 0;  // the timing problem's instance the sets were copied from
  std::unique_ptr<gpu_monitor> monitor_;
  double device_busy_s_ = 0;
  struct compile_queue;
  std::unique_ptr<compile_queue> ahead_;
};

// Median, minimum and interquartile range of a sample.
struct sample_stats {
  double median = 0, min = 0, iqr = 0, p99 = 0;
  std::size_t count = 0;
};
sample_stats summarize(std::vector<double> v);

}  // namespace galapagos::eval
