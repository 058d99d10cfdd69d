#include "simulate/simulation.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "core/topology.hpp"

namespace galapagos::simulate {

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

struct island_run {
  std::unique_ptr<core::strategy> strategy;
  std::vector<core::individual> inbox;
  int evaluations = 0;
  double spent_s = 0.0;
  bool done = false;
};

}  // namespace

double simulation_result::fraction_at(std::size_t evaluations, double optimum_s) const {
  if (best_after.empty() || evaluations == 0) return 0.0;
  const double best = best_after[std::min(evaluations, best_after.size()) - 1];
  return std::isfinite(best) && best > 0 ? optimum_s / best : 0.0;
}

std::size_t simulation_result::found_at() const {
  for (std::size_t i = 0; i < best_after.size(); ++i)
    if (best_after[i] == best_s()) return i + 1;
  return 0;
}

simulation_result simulate(const recorded_space& space, const simulation_settings& settings) {
  if (settings.interval < 1) throw std::invalid_argument("interval: must be at least 1");
  if (settings.count < 0) throw std::invalid_argument("count: must not be negative");
  if (settings.islands.empty()) throw std::invalid_argument("islands: at least one");
  if (settings.budget <= 0 && settings.budget_s <= 0) throw std::invalid_argument("budget: give evaluations or seconds");
  const int n = static_cast<int>(settings.islands.size());
  // Exhaustive islands split the space between them instead of enumerating it each.
  int exhaustive = 0, shard = 0;
  for (const auto& s : settings.islands) exhaustive += s.kind == "exhaustive";
  std::vector<island_run> islands(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    core::strategy_settings s = settings.islands[i];
    if (s.kind == "exhaustive") {
      s.shard = shard++;
      s.shards = exhaustive;
    }
    islands[i].strategy = core::make_strategy(space.space(), s, core::derive_seed(settings.seed, static_cast<std::uint64_t>(i)));
    islands[i].strategy->warm_start(settings.warm_start);
  }
  std::vector<std::vector<int>> graph;
  try {
    graph = core::migration_targets({settings.topology, settings.degree}, n, settings.seed);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("topology: ") + e.what());
  }

  simulation_result out;
  double best = inf;
  auto has_budget = [&](const island_run& r) {
    return (settings.budget <= 0 || r.evaluations < settings.budget) && (settings.budget_s <= 0 || r.spent_s < settings.budget_s);
  };
  auto measure = [&](int i, int generation, const core::genome& g, bool migrant) {
    auto& r = islands[i];
    const recorded_point* pt = space.find(g);
    evaluation e{i, generation, g, pt ? pt->time_s : inf, pt ? pt->cost_s : 0.0, migrant};
    r.evaluations += 1;
    r.spent_s += e.cost_s;
    best = std::min(best, e.time_s);
    out.best_after.push_back(best);
    out.evaluations.push_back(e);
    core::individual ind;
    ind.g = g;
    ind.fitness = e.time_s;
    ind.id = static_cast<std::int64_t>(out.evaluations.size() - 1);
    r.strategy->tell(ind);
  };

  for (int generation = 0;; ++generation) {
    bool any = false;
    for (int i = 0; i < n; ++i) {
      auto& r = islands[i];
      if (r.done) continue;
      // Migrants first: one this island has not seen is re-measured, at an evaluation's cost.
      for (const auto& m : r.inbox)
        if (has_budget(r) && !r.strategy->seen(m.g)) measure(i, generation, m.g, true);
      r.inbox.clear();
      const int batch = generation == 0 ? std::max(settings.islands[i].ga.population, 1) : settings.islands[i].ga.offspring;
      const auto proposed = has_budget(r) ? r.strategy->propose(batch) : std::vector<core::genome>{};
      for (const auto& g : proposed)
        if (has_budget(r)) measure(i, generation, g, false);
      r.strategy->advance();
      if (proposed.empty() || !has_budget(r)) r.done = true;  // budget spent or space exhausted
      any = true;
      if ((generation + 1) % settings.interval == 0 && settings.count > 0)
        for (const int j : graph[i])
          for (const auto& e : r.strategy->best(settings.count))
            if (std::isfinite(e.fitness)) islands[j].inbox.push_back(e);
    }
    if (!any) break;
  }
  for (const auto& r : islands) out.spent_s.push_back(r.spent_s);
  return out;
}

}  // namespace galapagos::simulate
