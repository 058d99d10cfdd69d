// The final word on a group's winner: timed interleaved with every baseline of its family and
// backend (A B A B ..., each run verified), printed, and written to the results file.
#pragma once

#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "run/setup.hpp"
#include "store/results_file.hpp"

namespace galapagos::run {

// How far the node's measurements moved during the search, over the islands of one group: the
// fastest baseline's re-timings and the islands' ceiling probes (0 where an island has none).
struct search_noise {
  std::string baseline;  // the fastest baseline at start-up, which the islands re-timed
  double baseline_min_s = std::numeric_limits<double>::infinity(), baseline_max_s = 0;
  double bandwidth_min_gbs = std::numeric_limits<double>::infinity(), bandwidth_max_gbs = 0;
  double peak_min_gflops = std::numeric_limits<double>::infinity(), peak_max_gflops = 0;
};

// What moved more than the speedup can be trusted through: the baseline drifting by more than
// `drift_limit` (slowest / fastest re-timing), the ceiling probes disagreeing by more than
// `probe_limit`, the winner's interquartile range overlapping the fastest baseline's (median
// -+ IQR/2 each). One sentence with the figures; empty when nothing moved.
constexpr double drift_limit = 1.2, probe_limit = 1.25;
// `baseline` names the one the winner was compared with at the end, timed at `baseline_s`.
std::string describe_noise(const search_noise& n, double winner_s, double winner_iqr_s, const std::string& baseline,
                           double baseline_s, double baseline_iqr_s);

// "p50 1.2 ms, p99 1.9 ms" (p99 only from eval::p99_min_runs timed runs), and on GPUs
// "; SM clock 1980 MHz, 0 of 30 runs throttled": what stands beside every timing figure.
std::string describe_percentiles(const eval::measurement& m);
std::string describe_clock(const eval::measurement& m);
// ", 88% side by side": the fraction of the floor measured in the same rounds as the runs
// (eval::measurement::rounds_roofline_fraction); "" where it was not measured.
std::string describe_rounds_fraction(const eval::measurement& m);

// Times the winner `best` (its variant's text, empty for the template) against the baselines.
// Prints it (titled by `group` in a mixed job) with one warning when `noise` says the node's
// measurements moved, and returns what /winner holds: {"strings": {...}, "numbers": {...},
// "code": 0 or 1 (the winner failed its final check)}; `code` is raised to it.
nlohmann::json final_comparison(setup& s, const store::candidate_row& best, const std::string& variant_text,
                                const std::string& group, const search_noise& noise, int& code);

// Writes a final_comparison's result as the attributes of `group` (/winner, /winners/<kind>).
void write_winner(store::results_file& f, const std::string& group, const nlohmann::json& w);

}  // namespace galapagos::run
