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

bool is_fresh(const point& p, const std::set<point>& seen, const std::set<point>& taken) {
  return !seen.contains(p) && !taken.contains(p);
}

// A random point of the template's space (variant 0) that is neither seen nor taken.
std::optional<point> fresh_sample(const search_space& space, rng& r, int max_tries, const std::set<point>& seen,
                                  const std::set<point>& taken) {
  if (auto g = space.sample_fresh(r, max_tries, [&](const genome& x) { return is_fresh(point{0, x}, seen, taken); }))
    return point{0, std::move(*g)};
  std::optional<point> found;
  if (space.cardinality() <= enumeration_limit) {
    space.enumerate([&](const genome& g) {
      if (!is_fresh(point{0, g}, seen, taken)) return true;
      found = point{0, g};
      return false;
    });
  }
  return found;
}

}  // namespace

island::island(const search_space& space, ga_settings settings, std::uint64_t seed)
    : spaces_{&space}, settings_(settings), rng_(seed) {}

int island::add_variant(const search_space& space) {
  spaces_.push_back(&space);
  return static_cast<int>(spaces_.size()) - 1;
}

std::vector<point> island::propose_points(int count) {
  std::vector<point> out;
  std::set<point> taken;
  bred_from_.clear();
  const int max_tries = std::max(1, settings_.max_tries);
  while (static_cast<int>(out.size()) < count) {
    std::optional<point> child;
    if (!population_.empty()) {
      for (int failures = 0; failures < max_tries; ++failures) {
        std::vector<std::int64_t> parents;
        point p = breed(parents);
        if (is_fresh(p, seen_, taken) && space(p.variant).is_valid(p.g)) {
          bred_from_[p] = std::move(parents);
          child = std::move(p);
          break;
        }
      }
    }
    if (!child) child = fresh_sample(space(0), rng_, max_tries, seen_, taken);
    if (!child) break;  // exhausted or too constrained
    taken.insert(*child);
    out.push_back(std::move(*child));
  }
  return out;
}

std::vector<genome> island::propose(int count) {
  std::vector<genome> out;
  for (auto& p : propose_points(count)) out.push_back(std::move(p.g));
  return out;
}

std::vector<std::int64_t> island::parents_of(const point& p) const {
  const auto it = bred_from_.find(p);
  return it == bred_from_.end() ? std::vector<std::int64_t>{} : it->second;
}

void island::mark_seen(const point& p) { seen_.insert(p); }

bool island::seen(const point& p) const { return seen_.contains(p); }

void island::check_length(const point& p, const char* who) const {
  if (p.variant < 0 || p.variant >= variants()) throw std::invalid_argument(std::string(who) + ": unknown variant");
  if (p.g.size() != space(p.variant).parameters().size())
    throw std::invalid_argument(std::string(who) + ": genome length mismatch");
}

void island::record(const individual& ind) {
  check_length({ind.variant, ind.g}, "island::record");
  individual copy = ind;
  if (std::isnan(copy.fitness)) copy.fitness = std::numeric_limits<double>::infinity();
  incoming_.push_back(std::move(copy));
  seen_.insert({ind.variant, ind.g});
}

void island::advance() {
  // Merge, keeping the better fitness (the earlier entry on ties) when a point appears twice.
  std::vector<individual> pool;
  std::map<point, std::size_t> where;
  for (auto* source : {&population_, &incoming_}) {
    for (auto& ind : *source) {
      const auto [it, inserted] = where.try_emplace(point{ind.variant, ind.g}, pool.size());
      if (inserted) {
        pool.push_back(std::move(ind));
      } else if (ind.fitness < pool[it->second].fitness) {
        pool[it->second] = std::move(ind);
      }
    }
  }
  std::stable_sort(pool.begin(), pool.end(), [](const individual& a, const individual& b) { return a.fitness < b.fitness; });
  // Sorting puts the old elites ahead of anything worse, so truncation never loses them.
  const auto keep = static_cast<std::size_t>(std::max({settings_.population, settings_.elite, 1}));
  if (pool.size() > keep) pool.resize(keep);
  population_ = std::move(pool);
  incoming_.clear();
  ++generation_;
}

void island::restore(int generation, std::vector<individual> population, const std::string& rng_state,
                     const std::vector<point>& seen) {
  for (const auto& ind : population) check_length({ind.variant, ind.g}, "island::restore");
  for (const auto& p : seen) check_length(p, "island::restore");
  rng_.restore(rng_state);
  population_ = std::move(population);
  incoming_.clear();
  seen_ = std::set<point>(seen.begin(), seen.end());
  for (const auto& ind : population_) seen_.insert({ind.variant, ind.g});
  generation_ = generation;
}

void island::restore(int generation, std::vector<individual> population, const std::string& rng_state,
                     const std::vector<genome>& seen) {
  std::vector<point> points;
  for (const auto& g : seen) points.push_back({0, g});
  restore(generation, std::move(population), rng_state, points);
}

std::vector<individual> island::best(int k) const {
  std::vector<individual> sorted = population_;
  std::stable_sort(sorted.begin(), sorted.end(), [](const individual& a, const individual& b) { return a.fitness < b.fitness; });
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

int island::shared_value(int variant, std::size_t i, const individual& from) const {
  if (from.variant == variant) return from.g[i];
  const parameter& p = space(variant).parameters()[i];
  const auto& theirs = space(from.variant).parameters();
  for (std::size_t j = 0; j < theirs.size(); ++j) {
    if (theirs[j].name != p.name) continue;
    const std::string& value = theirs[j].values[static_cast<std::size_t>(from.g[j])];
    const auto it = std::find(p.values.begin(), p.values.end(), value);
    return it == p.values.end() ? -1 : static_cast<int>(it - p.values.begin());
  }
  return -1;
}

point island::breed(std::vector<std::int64_t>& parents) {
  point child;
  if (rng_.uniform() < settings_.crossover_rate) {
    const individual& a = tournament_pick();
    const individual& b = tournament_pick();
    parents = {a.id};
    if (b.id != a.id) parents.push_back(b.id);
    child = {a.variant, a.g};
    for (std::size_t i = 0; i < a.g.size(); ++i)
      if (!(rng_.uniform() < 0.5))
        if (const int v = shared_value(a.variant, i, b); v >= 0) child.g[i] = v;
  } else {
    const individual& a = tournament_pick();
    parents = {a.id};
    child = {a.variant, a.g};
  }
  const auto& params = space(child.variant).parameters();
  for (std::size_t i = 0; i < child.g.size(); ++i) {
    const int n = static_cast<int>(params[i].values.size());
    if (n < 2 || !(rng_.uniform() < settings_.mutation_rate)) continue;
    int v = rng_.below(n - 1);  // uniform over the other n-1 values
    if (v >= child.g[i]) ++v;
    child.g[i] = v;
  }
  return child;
}

}  // namespace galapagos::core
