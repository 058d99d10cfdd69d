// An archipelago replayed against a recorded space: N in-process islands, each running a
// strategy (kinds may differ), generations in lockstep, elites migrating between them, every
// evaluation served from the recording and charged its recorded cost. Deterministic for a seed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/strategy.hpp"
#include "simulate/recorded_space.hpp"

namespace galapagos::simulate {

struct simulation_settings {
  std::vector<core::strategy_settings> islands{core::strategy_settings{}};  // one per island
  int budget = 0;                 // evaluations per island (migrants re-measured count); 0 = no limit
  double budget_s = 0.0;          // recorded compile + evaluation seconds per island; 0 = no limit
  std::uint64_t seed = 1;         // island i's strategy gets core::derive_seed(seed, i)
  std::string topology = "ring";  // ring | full | random | none (core/topology.hpp)
  int degree = 2;                 // random: neighbours of each island (the graph drawn from `seed`, as a run draws it)
  int interval = 2;               // generations between migrations
  int count = 2;                  // best individuals sent each time
  // Points of related recordings (simulate/warm_start.hpp), given to every island's strategy;
  // read from warm_start_files (a config's [strategy] warm_start) by the caller, who has the space.
  std::vector<core::individual> warm_start;
  std::vector<std::filesystem::path> warm_start_files;
  // Migrants this island has not seen are re-measured (served from the recording) and cost an
  // evaluation, as in a measured run.
};

struct evaluation {
  int island = 0;
  int generation = 0;
  core::genome g;
  double time_s = 0.0;  // +inf = failed
  double cost_s = 0.0;
  bool migrant = false;
};

struct simulation_result {
  std::vector<evaluation> evaluations;  // in order: generation by generation, island by island
  std::vector<double> best_after;       // best time after evaluations[0..i] (+inf: none ok yet)
  std::vector<double> spent_s;          // recorded seconds charged to each island
  double best_s() const { return best_after.empty() ? std::numeric_limits<double>::infinity() : best_after.back(); }
  // optimum / best time found within the first `evaluations` evaluations (all of them when the
  // run made fewer: its space was exhausted); 0 when nothing correct was found.
  double fraction_at(std::size_t evaluations, double optimum_s) const;
  // The 1-based evaluation at which the best time was first reached.
  std::size_t found_at() const;
};

// Throws std::invalid_argument naming the setting for a bad topology, interval or count, and
// for strategy settings validate() rejects.
simulation_result simulate(const recorded_space& space, const simulation_settings& settings);

}  // namespace galapagos::simulate
