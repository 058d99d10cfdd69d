#include "run/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "eval/candidate_status.hpp"

namespace galapagos::run {

std::string format_seconds(double s) {
  char buf[32];
  if (!std::isfinite(s)) return "-";
  if (s < 1e-3)
    std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  else if (s < 1)
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  return buf;
}

std::string format_duration(double s) {
  char buf[32];
  if (!std::isfinite(s) || s < 0) return "-";
  const long long t = std::llround(s);
  if (t < 60)
    std::snprintf(buf, sizeof buf, "%llds", t);
  else if (t < 3600)
    std::snprintf(buf, sizeof buf, "%lldm%02llds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", t / 3600, (t % 3600) / 60);
  return buf;
}

double progress_display::seconds_left(const generation_status& s) {
  if (s.evaluated <= 0 || s.wall_s <= 0) return std::nan("");
  return s.wall_s / s.evaluated * std::max(0, s.budget - s.evaluated);
}

namespace {

std::string speedup_text(const generation_status& s) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "search-time %.2fx over %s", std::isfinite(s.best_speedup) ? s.best_speedup : 0.0,
                s.baseline.c_str());
  return buf;
}

double budget_share(const generation_status& s) {
  return s.budget > 0 ? std::min(1.0, static_cast<double>(s.evaluated) / s.budget) : 0.0;
}

}  // namespace

std::string progress_display::plain_line(const generation_status& s) {
  char buf[512];
  std::snprintf(buf, sizeof buf, "island %d gen %d: evaluated %d (failed %d) | best %s | %s | %.0f%% of budget, %s left",
                s.island, s.generation, s.evaluated, s.failed, format_seconds(s.best_time_s).c_str(), speedup_text(s).c_str(),
                100 * budget_share(s), format_duration(seconds_left(s)).c_str());
  return buf;
}

std::string progress_display::live_line(const generation_status& s) {
  char buf[512];
  char speedup[32] = "";
  if (std::isfinite(s.best_speedup)) std::snprintf(speedup, sizeof speedup, " (search-time %.2fx)", s.best_speedup);
  // Short enough for an 80-column terminal: evaluated/budget says how much of the budget is spent.
  std::snprintf(buf, sizeof buf, "gen %d | evaluated %d/%d, failed %d | best %s%s | ETA %s", s.generation, s.evaluated, s.budget,
                s.failed, format_seconds(s.best_time_s).c_str(), speedup, format_duration(seconds_left(s)).c_str());
  return buf;
}

progress_display::progress_display(verbosity v, bool live) : live_(live && v == verbosity::normal) {}

progress_display progress_display::for_rank(int rank, verbosity v) {
  // mpirun (Open MPI) hands its ranks a pseudo-terminal whatever its own output is, a batch log
  // included: under a launcher the lines stay plain unless GALAPAGOS_PROGRESS=live asks otherwise.
  const char* asked = std::getenv("GALAPAGOS_PROGRESS");
  const std::string mode = asked ? asked : "";
  const bool launched = std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMI_RANK") || std::getenv("SLURM_STEP_ID");
  const bool live = mode == "live" || (mode != "plain" && !launched);
  return progress_display(v, rank == 0 && live && isatty(fileno(stdout)) == 1);
}

void progress_display::generation(const generation_status& s) {
  if (live_)
    report::status(live_line(s));
  else
    report::progress("%s", plain_line(s).c_str());
}

void progress_display::candidate(int island, long long id, const std::string& status, const std::string& reason, double time_s,
                                 const std::string& params, double sm_clock_mhz, int throttled_runs) {
  char clock[96] = "";
  if (std::isfinite(sm_clock_mhz) && sm_clock_mhz > 0)
    std::snprintf(clock, sizeof clock, " (SM clock %.0f MHz, %d runs throttled)", sm_clock_mhz, throttled_runs);
  if (eval::stored_ok(status))
    report::detail("island %d: candidate %lld ok: %s%s %s", island, id, format_seconds(time_s).c_str(), clock, params.c_str());
  else
    report::progress("island %d: candidate %lld %s: %s", island, id, status.c_str(), reason.substr(0, 200).c_str());
}

void progress_display::finish() {
  if (live_) report::end_status();
}

}  // namespace galapagos::run
