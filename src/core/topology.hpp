// Who sends migrants to whom. The graph is computed identically on every rank from the config
// (and, for random graphs, the run's seed), so no rank has to be told.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace galapagos::core {

// ring: island i sends to i+1 (mod n). full: to every other island. random: a random k-regular
// undirected graph (each island exchanges with its `degree` neighbours; n * degree must be even
// and degree < n). none: no migration.
struct topology_spec {
  std::string kind = "ring";
  int degree = 2;
};

// targets[i]: the islands island i sends to, ascending. Throws std::invalid_argument when the
// graph cannot exist (the message says why).
std::vector<std::vector<int>> migration_targets(const topology_spec& t, int islands, std::uint64_t seed);

}  // namespace galapagos::core
