// Replay: measurements served from a recorded results file instead of compiling and running
// kernels (`galapagos run CONFIG --replay RECORDED.h5`). A candidate is looked up by the hash of
// its source text and its parameter values; the first row of the recording's /candidates with
// both wins, baselines are looked up in /baselines by source hash, and the final interleaved
// comparison serves the recording's /winner numbers when it recorded the same winner, and the
// baseline's re-timing at each generation comes from /baseline_timings. A
// candidate the recording lacks gets the status "not_recorded" (a failure, fitness +inf).
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "eval/evaluator.hpp"
#include "store/results_file.hpp"

namespace galapagos::run {

class replay_source final : public eval::measurer {
 public:
  // Reads the recording. Throws galapagos::error naming it when it is missing or unreadable.
  // Every served evaluation first sleeps `delay_s` (rehearsing the timing of a real search).
  replay_source(const std::filesystem::path& recording, double delay_s);

  eval::measurement evaluate(const eval::candidate_source& c) override;
  std::vector<eval::measurement> evaluate_interleaved(const std::vector<eval::candidate_source>& cs, int rounds) override;
  // The recording's /baseline_timings row of that island and generation (the last session's);
  // the /baselines row in recordings made before baselines were re-timed.
  eval::measurement retime_baseline(const eval::candidate_source& c, int island, int generation) override;
  // The recording's hardware probe of `island` (its first row when it had fewer islands).
  store::machine_row machine(int island) const;
  const std::filesystem::path& path() const { return path_; }
  std::string fitness_description() const { return fitness_; }
  std::string compiler_identity() const { return compiler_; }
  std::size_t recorded() const { return candidates_.size(); }

 private:
  eval::measurement lookup(const eval::candidate_source& c) const;
  std::filesystem::path path_;
  double delay_s_;
  std::map<std::string, eval::measurement> candidates_;                // source hash + canonical params
  std::map<std::string, eval::measurement> baselines_;                 // source hash
  std::map<std::string, std::string> baseline_names_;                  // source hash -> name
  std::map<std::pair<int, int>, eval::measurement> baseline_timings_;  // (island, generation)
  std::string winner_key_;
  eval::measurement winner_;
  std::map<std::string, double> winner_baselines_s_;       // name -> interleaved median
  std::map<std::string, double> winner_baselines_rounds_;  // name -> its fraction of the floor side by side
  std::vector<store::machine_row> machines_;
  std::string fitness_, compiler_;
};

}  // namespace galapagos::run
