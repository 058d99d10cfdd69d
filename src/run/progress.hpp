// How a search shows its progress. On a terminal, rank 0 keeps one status line redrawn in place
// (generation, evaluated and failed counts, best so far, share of the budget spent, time left);
// in batch logs (no terminal) and on the other ranks, one plain line per generation. --quiet
// shows neither; --verbose never redraws and adds one line per candidate. The lines go out
// through the console (util/report.hpp), at its levels.
#pragma once

#include <limits>
#include <string>

#include "util/report.hpp"

namespace galapagos::run {

using util::verbosity;

// One island's state after a generation. Counts and times cover the island's whole search
// (every session of a resumed run).
struct generation_status {
  int island = 0;
  int generation = 0;
  int evaluated = 0;
  int failed = 0;
  int budget = 0;                                                // evaluations allowed to the island
  double best_time_s = std::numeric_limits<double>::infinity();  // best median so far
  double best_speedup = std::numeric_limits<double>::quiet_NaN();
  std::string baseline;  // the fastest baseline, which the speedup is over (as re-timed during the search)
  double wall_s = 0;     // search time so far
};

class progress_display {
 public:
  // live: redraw one line in place (the console's status line); else one plain line per
  // generation. Live only at the normal level: --verbose and --quiet never redraw.
  progress_display(verbosity v, bool live);
  progress_display(const progress_display&) = delete;
  progress_display& operator=(const progress_display&) = delete;
  ~progress_display() { finish(); }
  // The display of one island's rank on stdout: live when it is rank 0, stdout is a terminal,
  // the verbosity is normal and no MPI launcher started the process (mpirun gives its ranks a
  // terminal even when its own output is a log); $GALAPAGOS_PROGRESS = live or plain decides.
  static progress_display for_rank(int rank, verbosity v);

  void generation(const generation_status& s);
  // One evaluated candidate: failures are shown unless quiet, correct ones only when verbose
  // (on GPUs with the SM clock and the throttled runs beside the time).
  void candidate(int island, long long id, const std::string& status, const std::string& reason, double time_s,
                 const std::string& params, double sm_clock_mhz = 0.0 / 0.0, int throttled_runs = 0);
  // Ends the live line so that what follows starts on a line of its own.
  void finish();

  bool live() const { return live_; }

  static std::string plain_line(const generation_status& s);
  static std::string live_line(const generation_status& s);
  // Seconds left at the island's pace so far (NaN before the first evaluation).
  static double seconds_left(const generation_status& s);

 private:
  bool live_;
};

// "1.234 ms", "56.0 us", "-" for a time that is not finite.
std::string format_seconds(double s);
// "45s", "3m07s", "2h05m", "-" when unknown.
std::string format_duration(double s);

}  // namespace galapagos::run
