// Everything one island of a run needs before its search starts, and how it is put together:
// the config (or a checkpoint's), the family and its space, the evaluator or the replayed
// recording, the node lock, the island's LLM proposer and its migration targets.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "core/search_space.hpp"
#include "eval/evaluator.hpp"
#include "eval/node_lock.hpp"
#include "eval/probe.hpp"
#include "families/family.hpp"
#include "propose/llm/proposer.hpp"
#include "run/checkpoint.hpp"
#include "run/replay.hpp"
#include "simulate/warm_start.hpp"
#include "store/results_target.hpp"

namespace galapagos::run {

// What `galapagos run` changes in a config from its command line.
struct run_overrides {
  std::optional<std::filesystem::path> out;
  std::optional<int> budget;
  std::optional<std::uint64_t> seed;
  // Stopping rules (--time-limit, --target-roofline, --stagnant-generations); on resume they
  // replace the run's for this session and after.
  std::optional<double> time_limit_s, target_roofline;
  std::optional<int> stagnant_generations;
  // Serve measurements from this recorded results file instead of measuring (replay mode),
  // sleeping replay_delay_s per served evaluation.
  std::optional<std::filesystem::path> replay;
  double replay_delay_s = 0;
  // --force: an existing galapagos results file at `out` is replaced (never any other file).
  bool replace = false;
};

// Everything a rank needs before the search starts. Built identically on every rank, so a bad
// input fails everywhere the same way, before any results file exists.
struct setup {
  config::run_config config;
  families::family family;
  std::unique_ptr<core::search_space> space;
  simulate::warm_start_points warm_start;  // [strategy] warm_start, mapped into `space`
  eval::machine_probe probe;
  std::unique_ptr<eval::node_lock> lock;
  std::unique_ptr<eval::evaluator> evaluator;
  std::unique_ptr<replay_source> replay;  // set: measurements come from a recording
  // What measures candidates: the recording in replay mode, else the evaluator.
  eval::measurer& measurer() { return replay ? static_cast<eval::measurer&>(*replay) : *evaluator; }
  std::unique_ptr<propose::llm_proposer> llm;  // this island's LLM proposer ([llm]); moved into its runner
  run_settings settings;
  std::vector<std::vector<int>> migration_targets;  // per island: the islands it sends migrants to
};

// What a search starts from: a config file (`run`) or a results file's checkpoint (`resume`).
struct search_start {
  std::filesystem::path config;
  run_overrides overrides;
  std::optional<resume_plan> plan;
  std::shared_ptr<store::results_lock> lock;  // resume: taken before the checkpoint was read
};

struct baseline_result {
  std::string name;
  eval::measurement m;
};

// The setup of island `rank` of `islands`: config (with the overrides, or the checkpoint's
// settings when resuming), LLM proposer, family, space, node lock and replay source. The probe,
// the evaluator and the migration targets are the caller's to add. Throws galapagos::error.
std::unique_ptr<setup> prepare(const search_start& st, int rank, int islands);

// A template that does not compile is found before the search starts, not after it has spent
// the budget on compile errors: it is built at one valid point (from the cache when built before).
void check_template_builds(const setup& s);

// The hardware a replayed island stands for: the recording's probe (nothing is measured).
eval::machine_probe recorded_probe(const replay_source& r, int rank);
// The probe a results file holds for `island`, when it was taken on a node of the kind `here`
// describes (eval::same_machine_kind): a resumed run is judged against the ceilings it started
// with, and does not spend its start measuring them again. nullopt: measure.
std::optional<eval::machine_probe> kept_probe(const std::vector<store::machine_row>& rows, int island,
                                              const eval::machine_probe& here);

}  // namespace galapagos::run
