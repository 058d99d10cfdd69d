// The [strategy] table of a config (docs/configuration.md), and what `galapagos simulate
// --config` reads of a run config: the GA keys of [search], [strategy] and [migration].
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/strategy.hpp"
#include "simulate/simulation.hpp"
#include "util/toml_reader.hpp"

namespace galapagos::simulate {

// Reads [strategy] into `base` (kind and the settings of each kind) and returns the kind of each
// island: `kinds` when given (cycled over the islands), else `kind` for every island. Throws
// galapagos::error naming the file and key for an unknown key or kind or a value out of range.
std::vector<std::string> read_strategy_table(const util::toml_section& strategy, core::strategy_settings& base);

// [search]: the GA settings, the budget and the seed, with their ranges (docs/configuration.md);
// read by `galapagos run` and `galapagos simulate --config` alike.
void read_search_table(const util::toml_section& search, core::ga_settings& ga, int& budget, std::uint64_t& seed);
// [migration] interval and count, with their ranges.
void read_migration_schedule(const util::toml_section& migration, int& interval, int& count);

// A run config's [search] GA keys, budget and seed, [strategy], and [migration] topology,
// interval and count, for `islands` islands. Other tables and keys are left to `galapagos run`.
simulation_settings read_simulation_config(const std::filesystem::path& file, int islands);

}  // namespace galapagos::simulate
