// What `galapagos simulate --config` reads of a run config: [search], [strategy] and [migration],
// read by config::read_search_tables as `galapagos run` reads them.
#pragma once

#include <filesystem>

#include "simulate/simulation.hpp"

namespace galapagos::simulate {

// A run config's search tables for `islands` islands. Other tables and keys are left to
// `galapagos run`. Throws galapagos::error naming the file and the key.
simulation_settings read_simulation_config(const std::filesystem::path& file, int islands);

}  // namespace galapagos::simulate
