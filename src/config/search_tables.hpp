// The search tables of a config, [search], [strategy] and [migration] (docs/configuration.md),
// read with one set of rules by `galapagos run` (config/run_config.hpp) and `galapagos simulate
// --config` (simulate/strategy_config.hpp) alike. Needs only core and util.
#pragma once

#include <filesystem>

#include <cstdint>
#include <string>
#include <vector>

#include "core/island.hpp"
#include "core/objective.hpp"
#include "core/strategy.hpp"
#include "util/toml_reader.hpp"

namespace galapagos::config {

struct migration_settings {
  std::string topology = "ring";  // ring | full | random | none (core/topology.hpp)
  int degree = 2;                 // random: neighbours of each island
  // When migrants are taken in: "auto" = by schedule in a replayed run (reproducible), as they
  // arrive otherwise; "asynchronous" = always as they arrive (a replayed run then times the
  // orchestration as a measured run would, but is no longer reproducible).
  std::string arrival = "auto";
  int interval = 2;  // generations between migrations
  int count = 2;     // individuals sent each time
};

struct search_settings {
  int budget = 40;  // evaluations per island
  std::uint64_t seed = 1;
  // What the strategies minimise: time per call, energy per call, or their product. A non-time
  // objective needs energy readings (config/run_config.cpp refuses it on the cpu backend).
  core::objective objective = core::objective::time;
  core::ga_settings ga;
  // [strategy]: how islands propose genomes (docs/strategies.md); island i runs
  // strategy_of(i), with strategy.ga = ga.
  core::strategy_settings strategy;
  std::vector<std::string> strategy_kinds = {"forest"};
  // [strategy] warm_start: recordings of related searches (simulate/warm_start.hpp), relative
  // paths resolved against the config file's folder.
  std::vector<std::filesystem::path> warm_start;
  // [strategy] template_first: island 0 evaluates the template's own point (the GLP_ defaults its
  // source defines) before anything the strategy proposes, so that the search's best is never
  // slower than that point as measured.
  bool template_first = true;
  migration_settings migration;

  // The strategy kind island `island` runs (its rank among the islands of one search): the
  // [strategy] kinds, cycled.
  const std::string& strategy_of(int island) const {
    return strategy_kinds[static_cast<std::size_t>(island) % strategy_kinds.size()];
  }
};

// Reads the [search], [strategy] and [migration] tables of `root` (each optional) over the
// defaults in `out`. Throws galapagos::error naming the file, the table and the key for an
// unknown key or kind or a value out of range.
void read_search_tables(const util::toml_section& root, search_settings& out);

}  // namespace galapagos::config
