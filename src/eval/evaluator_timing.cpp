// Timing a candidate: the calibration of the orchestrator's clock, one run, the acceptance
// checks, energy and clocks, and the statistics of the timed runs (docs/threat-model.md).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

#include "eval/evaluator_impl.hpp"
#include "eval/problem.hpp"
#include "util/error.hpp"
#include "util/report.hpp"
#include "util/stats.hpp"

namespace galapagos::eval {

using namespace detail;

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
      m.status = r.replied ? candidate_status::protocol_error : r.status;
      m.reason = r.replied ? "the worker failed an empty run" : r.reason + " (calibrating)";
      return false;
    }
    elapsed = r.elapsed_s;
    events = r.reply.time_s;
    if (std::getenv("GALAPAGOS_TIMING_TRACE"))
      report::problem("calibration (flags %d): elapsed %.1f us, worker %.1f us", flags, 1e6 * elapsed, 1e6 * events);
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
  m.status = candidate_status::leaked_thread;
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
    m.status = candidate_status::crash;
    m.reason = std::string("device fault: ") + r.reply.message;
    return false;
  }
  if (r.reply.status != protocol::reply_status::ok) {
    m.status = candidate_status::protocol_error;
    m.reason = "unexpected worker reply";
    return false;
  }
  return true;
}

namespace {

// A reply's status as the candidate's status; nothing when the run went well.
std::optional<candidate_status> run_failure(const call_result& r, std::string& reason) {
  using rs = protocol::reply_status;
  switch (r.reply.status) {
    case rs::ok:
      return std::nullopt;
    case rs::kernel_error:
      reason = r.reply.message[0] ? r.reply.message : "entry point returned " + std::to_string(r.reply.kernel_rc);
      return candidate_status::kernel_error;
    case rs::out_of_memory:
      reason = "std::bad_alloc escaped the entry point";
      return candidate_status::out_of_memory;
    case rs::exception:
      reason = "a C++ exception escaped the entry point";
      return candidate_status::crash;
    case rs::device_fault:
      reason = std::string("device fault: ") + r.reply.message;
      return candidate_status::crash;
    default:
      reason = "unexpected worker reply";
      return candidate_status::protocol_error;
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
  problem* const one[] = {&p};
  return run_sets(s, one, m, time_s, flush, worker_s);
}

// A batch: every set staged into a device input set of its own, glp_setup on the first (the sets
// share its generated structure), one request that calls the candidate on each in turn, every set
// collected. The figures are the batch's time over its calls.
bool evaluator::run_sets(session& s, std::span<problem* const> sets, measurement& m, double& time_s, bool flush,
                         double* worker_s) {
  const auto& chk = settings_.checks;
  const bool gpu = toolchain_.worker_backend != "cpu";
  problem& p = *sets[0];
  const auto calls = static_cast<double>(sets.size());
  for (int attempt = 0;; ++attempt) {
    protocol::request q = p.run_request();
    for (std::size_t k = 0; k < sets.size(); ++k) {
      protocol::request staged = k == 0 ? q : sets[k]->run_request();
      staged.set = static_cast<std::int32_t>(k);
      if (k > 0) staged.from_first = sets[k]->instance_inputs();
      if (!request(s, protocol::request_kind::stage, &staged, m)) return false;
    }
    if (s.set_up[&p] != p.instance()) {
      protocol::request setup = q;
      setup.flags |= protocol::run_setup_only;
      const auto r = s.worker->call(setup, settings_.timeout_s);
      if (!r.replied) {
        m.status = r.status;
        m.reason = r.reason + " (in glp_setup)";
        return false;
      }
      if (const auto st = run_failure(r, m.reason)) {
        m.status = *st;
        return false;
      }
      if (leaked_threads(s, m)) return false;
      s.set_up[&p] = p.instance();
      if (&p == timing_problem_.get()) m.setup_time_s = std::max(0.0, r.elapsed_s - s.empty_run_s);
    }
    if (flush && !request(s, protocol::request_kind::flush, nullptr, m)) return false;
    q.set = static_cast<std::int32_t>(sets.size());
    const auto r = s.worker->call(q, settings_.timeout_s);
    if (!r.replied) {
      m.status = r.status;
      m.reason = r.reason;
      return false;
    }
    if (const auto st = run_failure(r, m.reason)) {
      m.status = *st;
      return false;
    }
    if (leaked_threads(s, m)) return false;
    for (std::size_t k = 0; gpu && k < sets.size(); ++k) {
      protocol::request which{};
      which.set = static_cast<std::int32_t>(k);
      if (!request(s, protocol::request_kind::collect, &which, m)) return false;
    }
    const double own = std::max(0.0, r.elapsed_s - s.empty_run_s);
    if (worker_s) *worker_s = r.reply.time_s / calls;
    if (std::getenv("GALAPAGOS_TIMING_TRACE"))
      report::problem("run: elapsed %.1f us, empty %.1f us, worker %.1f us, %zu calls", 1e6 * r.elapsed_s, 1e6 * s.empty_run_s,
                      1e6 * r.reply.time_s, sets.size());
    // A worker clock that saw more time than passed around the request has been tampered with
    // (the bound in the other direction is the figure itself).
    const double events = r.reply.time_s;
    if (std::isfinite(events) && events >= 0 && events <= r.elapsed_s + 5e-5) {
      time_s = (gpu ? std::max(events, std::max(0.0, own - s.busy_excess_s) * (1 - chk.gpu_timer_slack_rel)) : own) / calls;
      return true;
    }
    if (attempt + 1 >= chk.timer_attempts) {
      m.status = candidate_status::timer_mismatch;
      char buf[200];
      std::snprintf(buf, sizeof buf, "the worker's clock says %.6f s of a request the orchestrator saw take %.6f s (%d attempts)",
                    events, r.elapsed_s, attempt + 1);
      m.reason = buf;
      return false;
    }
    for (problem* each : sets) each->stage();
  }
}

bool evaluator::accept(session& s, measurement& m) {
  int dist = 0;
  for (auto& p : accept_problems_) {
    for (int k = 0; k < settings_.checks.seeds; ++k) {
      {
        phase_timer pt(s.phase_s, "accept: inputs and reference");
        p->fill(next_seed(), dist++);
        p->compute_reference(reference_);
        p->stage();
      }
      double t = 0;
      {
        phase_timer pt(s.phase_s, "accept: runs");
        if (!run_once(s, *p, m, t, false)) return false;
      }
      phase_timer pt(s.phase_s, "accept: verify");
      const verdict v = p->verify();
      m.rel_error = std::max(m.rel_error, v.rel_error);
      ++m.verified_runs;
      if (v.status != candidate_status::ok) {
        m.status = v.status;
        m.reason = v.reason;
        return false;
      }
    }
  }
  return true;
}

// What the input sets of one timed run may take. Each set is held twice on the host (its arena
// region and the orchestrator's private copy) and once on the device (the instance's generated
// inputs once for all sets: the further sets use the first set's), and what is not generated goes
// to the device and back on every run: a quarter of the device's free memory at the probe, and a
// sixteenth of what this process may still allocate on the host shared among the node's islands,
// at most 16 GiB; 4 GiB where the device did not tell its free memory.
double evaluator::timing_batch_bytes() const {
  constexpr double gib = 1ull << 30;
  if (device_free_bytes_ == 0) return 4 * gib;
  double bytes = std::min(16 * gib, 0.25 * static_cast<double>(device_free_bytes_));
  if (const std::size_t host = available_memory_bytes(); host > 0)
    bytes = std::min(bytes, static_cast<double>(host) / (16.0 * local_process_count(toolchain_.gpu_count)));
  return bytes;
}

// The input sets of a timed run on p. A run on fresh inputs of the timing problem is a batch of
// timing_sets() sets when there are several; the further sets copy the timing problem's instance
// (its generated structure, which glp_setup prepared) and get values of their own from the secret
// stream. The number of sets is chosen once, at the first timed run, so that every figure of a
// search is taken the same way: as many as keep the round trip the empty run calibrated within 2%
// of the floor (an upper bound on what any candidate, however fast, loses to it), and no more
// sets than the memory for them (timing_batch_bytes).
std::vector<problem*> evaluator::timing_sets_for(session& s, problem& p, std::uint64_t run_seed) {
  if (&p != timing_problem_.get() || run_seed == 0 || batch_problems_.empty()) return {&p};
  if (batch_ == 0) {
    const double batch_bytes = timing_batch_bytes();
    const double floor = floor_s(fitness_), round_trip = s.empty_run_s + s.busy_excess_s;
    double wanted = floor > 0 ? std::ceil(round_trip / (0.02 * floor)) : arena::max_regions;
    // Every set is held on the host and the device: at most batch_bytes of them per run.
    wanted = std::min(wanted, std::floor(batch_bytes / static_cast<double>(arena_->region_bytes())));
    batch_ = static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(batch_problems_.size() + 1)));
    report::detail("timing: %d input sets per timed run (round trip %.1f us, floor %.1f us, %.2f GB a set, %.1f GB allowed)",
                   batch_, 1e6 * round_trip, 1e6 * floor, 1e-9 * static_cast<double>(arena_->region_bytes()), 1e-9 * batch_bytes);
  }
  std::vector<problem*> sets{&p};
  if (batch_instance_ != p.instance()) {
    for (int k = 1; k < batch_; ++k) batch_problems_[static_cast<std::size_t>(k - 1)]->copy_instance(p);
    batch_instance_ = p.instance();
  }
  for (int k = 1; k < batch_; ++k) sets.push_back(batch_problems_[static_cast<std::size_t>(k - 1)].get());
  return sets;
}

// Every timed run gets wholly fresh inputs (run_seed != 0; 0 repeats the last inputs, for the
// determinism check), so nothing of an earlier run can be reused; a batch's every set too.
bool evaluator::timed_run(session& s, problem& p, measurement& m, std::vector<double>& times, std::uint64_t run_seed,
                          const candidate_source& c, bool always_verify) {
  const std::vector<problem*> sets = timing_sets_for(s, p, run_seed);
  {
    phase_timer pt(s.phase_s, "timed: redraw");
    for (std::size_t k = 0; run_seed != 0 && k < sets.size(); ++k) sets[k]->redraw(k == 0 ? run_seed : next_seed());
  }
  {
    phase_timer pt(s.phase_s, "timed: stage");
    for (problem* each : sets) each->stage();
  }
  double t = 0, claimed = 0;
  {
    phase_timer pt(s.phase_s, "timed: runs (flush, call, freeze)");
    if (!run_sets(s, sets, m, t, true, &claimed)) return false;
  }
  sample_clock(m);
  // How each set is judged: by the family's checker when it has one (cheap enough for every run),
  // else against the reference, on every run or on a share drawn after it ran from the secret stream.
  std::optional<verdict> failed;
  for (problem* each : sets) {
    const std::uint64_t draw = next_seed();
    problem::judge how = problem::judge::basic;
    if (checker_ && &p == timing_problem_.get()) {
      how = problem::judge::checker;
    } else {
      const double fraction = settings_.checks.verify_fraction;
      if (always_verify || fraction >= 1 || static_cast<double>(draw >> 11) * 0x1.0p-53 < fraction)
        how = problem::judge::reference;
      if (how == problem::judge::reference && !each->reference_current()) {
        phase_timer pt(s.phase_s, "timed: reference");
        each->compute_reference(reference_);
      }
    }
    const verdict v = [&] {
      phase_timer pt(s.phase_s, how == problem::judge::checker ? "timed: verify (checker)" : "timed: verify");
      return each->verify(how, checker_, next_seed());
    }();
    if (how != problem::judge::basic) {
      m.rel_error = std::max(m.rel_error, v.rel_error);
      ++m.verified_runs;
    }
    if (v.status != candidate_status::ok) {
      failed = v;
      break;
    }
  }
  // A run faster than physics is called so before its output is: a skip is told as what it is.
  if (phase_timer pt(s.phase_s, "timed: floor (and re-probes)"); too_fast(s, sets, t, claimed, c, m)) return false;
  if (failed) {
    m.status = failed->status;
    m.reason = failed->reason + " (timed run)";
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
bool evaluator::too_fast(session& s, std::span<problem* const> sets, double figure, double claimed, const candidate_source& c,
                         measurement& m) {
  problem& p = *sets[0];
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
    // Where the processor's own bound is known it is the peak: a probe's BLAS is what a tuned
    // candidate sets out to beat, and on a busy node the probe sees a share of the cores that a
    // candidate timed a moment later may not. Elsewhere (GPUs) the measured peak with its margin.
    const double peak = hardware > 0 ? std::max(hardware, measured) : measured * settings_.checks.compute_margin;
    std::pair<double, double> least{0, 0};
    if (cl.bandwidth_gbs > 0) least.first = family_.bytes(p.size()) / (cl.bandwidth_gbs * settings_.checks.physics_margin * 1e9);
    if (peak > 0) least.second = family_.flops(p.size()) / (peak * 1e9);
    return least;
  };
  auto limit_s = [&] {
    const auto l = limits();
    return std::max(l.first, l.second);
  };
  for (int attempt = 0; attempt < 3 && t < limit_s(); ++attempt) {
    const auto l = limits();
    reprobe(t < l.first, t < l.second);
    for (problem* each : sets) each->stage();
    measurement again;
    double fig = 0, claim = 0;
    if (!run_sets(s, sets, again, fig, true, &claim)) {
      m.status = again.status;
      m.reason = again.reason + " (run again beside a fresh probe)";
      return true;
    }
    t = fastest(fig, claim);
  }
  const double least = limit_s();
  if (!(t < least)) return false;
  m.status = candidate_status::suspect_too_fast;
  char buf[300];
  std::snprintf(buf, sizeof buf, "%.3e s is below the physical floor %.3e s (%.0f%% of roofline) at %s; ", t, least,
                100 * floor_s(p.size()) / t, p.describe().c_str());
  m.reason = buf + describe_ceilings();
  if (sets.size() > 1) m.reason += "; time per call of a batch of " + std::to_string(sets.size()) + " input sets";
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
    m.status = r.replied ? candidate_status::crash : r.status;
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
  if (st.count > 0) {
    m.time_p50_s = st.median;
    m.time_p99_s = st.count >= static_cast<std::size_t>(p99_min_runs) ? st.p99 : NAN;
  }
  m.time_median_s = st.median;
  m.time_min_s = st.min;
  m.time_spread_s = st.iqr;
  m.floor_s = floor_s(fitness_);
  if (!m.sm_clocks_mhz.empty()) m.sm_clock_mhz = summarize(m.sm_clocks_mhz).median;
  if (!m.worker_clock_s.empty()) m.worker_clock_median_s = summarize(m.worker_clock_s).median;
}

}  // namespace galapagos::eval
