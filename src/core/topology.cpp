#include "core/topology.hpp"

#include <algorithm>
#include <random>
#include <set>
#include <stdexcept>
#include <utility>

namespace galapagos::core {

namespace {

// A random simple k-regular graph by the pairing model: n*k endpoints shuffled and paired,
// rejected while a pairing has a loop or a double edge. For the small degrees a migration
// topology uses (k <= 8) a few dozen attempts suffice; the bound only guards against a degree
// that makes simple graphs vanishingly rare.
std::vector<std::vector<int>> random_regular(int n, int k, std::uint64_t seed) {
  if (k < 1 || k >= n) throw std::invalid_argument("degree must lie in [1, islands - 1]");
  if ((static_cast<long>(n) * k) % 2 != 0) throw std::invalid_argument("islands * degree must be even");
  std::mt19937_64 gen(seed);
  std::vector<int> ends;
  for (int i = 0; i < n; ++i) ends.insert(ends.end(), static_cast<std::size_t>(k), i);
  for (int attempt = 0; attempt < 10000; ++attempt) {
    std::shuffle(ends.begin(), ends.end(), gen);
    std::set<std::pair<int, int>> edges;
    bool simple = true;
    for (std::size_t e = 0; e + 1 < ends.size() && simple; e += 2) {
      const int a = std::min(ends[e], ends[e + 1]), b = std::max(ends[e], ends[e + 1]);
      simple = a != b && edges.insert({a, b}).second;
    }
    if (!simple) continue;
    std::vector<std::vector<int>> targets(static_cast<std::size_t>(n));
    for (const auto& [a, b] : edges) {
      targets[static_cast<std::size_t>(a)].push_back(b);
      targets[static_cast<std::size_t>(b)].push_back(a);
    }
    for (auto& t : targets) std::sort(t.begin(), t.end());
    return targets;
  }
  throw std::invalid_argument("no simple random graph of this degree was found; use a smaller degree");
}

}  // namespace

std::vector<std::vector<int>> migration_targets(const topology_spec& t, int islands, std::uint64_t seed) {
  std::vector<std::vector<int>> targets(static_cast<std::size_t>(std::max(islands, 0)));
  if (islands < 2 || t.kind == "none") return targets;
  if (t.kind == "ring") {
    for (int i = 0; i < islands; ++i) targets[static_cast<std::size_t>(i)] = {(i + 1) % islands};
  } else if (t.kind == "full") {
    for (int i = 0; i < islands; ++i)
      for (int j = 0; j < islands; ++j)
        if (j != i) targets[static_cast<std::size_t>(i)].push_back(j);
  } else if (t.kind == "random") {
    targets = random_regular(islands, std::min(t.degree, islands - 1), seed);
  } else {
    throw std::invalid_argument("unknown topology '" + t.kind + "' (ring, full, random or none)");
  }
  return targets;
}

}  // namespace galapagos::core
