#include "core/island.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>

namespace galapagos::core {

namespace {

// Spaces up to this many raw points are enumerated when random sampling finds nothing new, so
// that a small space is reported exhausted only when it really is.
constexpr double enumeration_limit = 65536.0;

bool is_fresh(const genome& g, const std::set<genome>& seen, const std::set<genome>& taken) {
  return !seen.contains(g) && !taken.contains(g);
}

std::optional<genome> fresh_sample(const search_space& space, rng& r, int max_tries,
                                   const std::set<genome>& seen, const std::set<genome>& taken) {
  for (int t = 0; t < max_tries; ++t) {
    auto g = space.sample(r, max_tries);
    if (!g) break;
    if (is_fresh(*g, seen, taken)) return g;
  }
  std::optional<genome> found;
  if (space.cardinality() <= enumeration_limit) {
    space.enumerate([&](const genome& g) {
      if (!is_fresh(g, seen, taken)) return true;
      found = g;
      return false;
    });
  }
  return found;
}

}  // namespace

island::island(const search_space& space, ga_settings settings, std::uint64_t seed)
    : space_(space), settings_(settings), rng_(seed) {}

std::vector<genome> island::propose(int count) {
  std::vector<genome> out;
  std::set<genome> taken;
  const int max_tries = std::max(1, settings_.max_tries);
  while (static_cast<int>(out.size()) < count) {
    std::optional<genome> child;
    if (!population_.empty()) {
      for (int failures = 0; failures < max_tries; ++failures) {
        genome g = breed();
        if (is_fresh(g, seen_, taken) && space_.is_valid(g)) {
          child = std::move(g);
          break;
        }
      }
    }
    if (!child) child = fresh_sample(space_, rng_, max_tries, seen_, taken);
    if (!child) break;  // exhausted or too constrained
    taken.insert(*child);
    out.push_back(std::move(*child));
  }
  return out;
}

void island::mark_seen(const genome& g) { seen_.insert(g); }

bool island::seen(const genome& g) const { return seen_.contains(g); }

void island::record(const individual& ind) {
  if (ind.g.size() != space_.parameters().size())
    throw std::invalid_argument("island::record: genome length mismatch");
  individual copy = ind;
  if (std::isnan(copy.fitness)) copy.fitness = std::numeric_limits<double>::infinity();
  incoming_.push_back(std::move(copy));
  seen_.insert(ind.g);
}

void island::advance() {
  // Merge, keeping the better fitness (the earlier entry on ties) when a genome appears twice.
  std::vector<individual> pool;
  std::map<genome, std::size_t> where;
  for (auto* source : {&population_, &incoming_}) {
    for (auto& ind : *source) {
      const auto [it, inserted] = where.try_emplace(ind.g, pool.size());
      if (inserted) {
        pool.push_back(std::move(ind));
      } else if (ind.fitness < pool[it->second].fitness) {
        pool[it->second] = std::move(ind);
      }
    }
  }
  std::stable_sort(pool.begin(), pool.end(),
                   [](const individual& a, const individual& b) { return a.fitness < b.fitness; });
  // Sorting puts the old elites ahead of anything worse, so truncation never loses them.
  const auto keep = static_cast<std::size_t>(std::max({settings_.population, settings_.elite, 1}));
  if (pool.size() > keep) pool.resize(keep);
  population_ = std::move(pool);
  incoming_.clear();
  ++generation_;
}

void island::restore(int generation, std::vector<individual> population, const std::string& rng_state,
                     const std::vector<genome>& seen) {
  const auto length = space_.parameters().size();
  for (const auto& ind : population)
    if (ind.g.size() != length) throw std::invalid_argument("island::restore: genome length mismatch");
  for (const auto& g : seen)
    if (g.size() != length) throw std::invalid_argument("island::restore: genome length mismatch");
  rng_.restore(rng_state);
  population_ = std::move(population);
  incoming_.clear();
  seen_ = std::set<genome>(seen.begin(), seen.end());
  for (const auto& ind : population_) seen_.insert(ind.g);
  generation_ = generation;
}

std::vector<individual> island::best(int k) const {
  std::vector<individual> sorted = population_;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const individual& a, const individual& b) { return a.fitness < b.fitness; });
  const auto n = static_cast<std::size_t>(std::max(0, k));
  if (sorted.size() > n) sorted.resize(n);
  return sorted;
}

const individual& island::tournament_pick() {
  // Lowest fitness wins; on a tie the individual earlier in the population wins.
  const int n = static_cast<int>(population_.size());
  int winner = rng_.below(n);
  for (int t = 1; t < settings_.tournament; ++t) {
    const int j = rng_.below(n);
    const double fj = population_[j].fitness;
    const double fw = population_[winner].fitness;
    if (fj < fw || (fj == fw && j < winner)) winner = j;
  }
  return population_[winner];
}

genome island::breed() {
  genome child;
  if (rng_.uniform() < settings_.crossover_rate) {
    const genome& a = tournament_pick().g;
    const genome& b = tournament_pick().g;
    child.resize(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) child[i] = rng_.uniform() < 0.5 ? a[i] : b[i];
  } else {
    child = tournament_pick().g;
  }
  const auto& params = space_.parameters();
  for (std::size_t i = 0; i < child.size(); ++i) {
    const int n = static_cast<int>(params[i].values.size());
    if (n < 2 || !(rng_.uniform() < settings_.mutation_rate)) continue;
    int v = rng_.below(n - 1);  // uniform over the other n-1 values
    if (v >= child[i]) ++v;
    child[i] = v;
  }
  return child;
}

}  // namespace galapagos::core
