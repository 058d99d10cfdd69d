#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/island.hpp"
#include "core/search_space.hpp"

namespace gc = galapagos::core;

namespace {

gc::parameter numbered(const std::string& name, int n) {
  gc::parameter p{name, {}};
  for (int i = 0; i < n; ++i) p.values.push_back(std::to_string(i));
  return p;
}

// 5 parameters x 6 values = 7776 points, no constraint.
gc::search_space grid_space() {
  std::vector<gc::parameter> params;
  for (int i = 0; i < 5; ++i) params.push_back(numbered("P" + std::to_string(i), 6));
  return gc::search_space(params, nullptr);
}

// Same grid, but only genomes whose index sum is even and at most 14 are valid.
gc::search_space constrained_grid() {
  std::vector<gc::parameter> params;
  for (int i = 0; i < 5; ++i) params.push_back(numbered("P" + std::to_string(i), 6));
  return gc::search_space(params, [](const gc::genome& g) {
    int s = 0;
    for (int x : g) s += x;
    return s % 2 == 0 && s <= 14;
  });
}

const gc::genome target = {1, 4, 2, 5, 0};

double distance(const gc::genome& g) {
  double d = 0;
  for (std::size_t i = 0; i < g.size(); ++i) d += (g[i] - target[i]) * (g[i] - target[i]);
  return d;
}

void feed(gc::island& isl, const std::vector<gc::genome>& gs) {
  for (const auto& g : gs) isl.record({g, distance(g), -1});
}

// Runs `generations` generations and returns every proposal in order.
std::vector<gc::genome> run(const gc::search_space& space, std::uint64_t seed, int generations) {
  gc::island isl(space, gc::ga_settings{}, seed);
  std::vector<gc::genome> all;
  for (int gen = 0; gen < generations; ++gen) {
    const auto gs = isl.propose(gen == 0 ? isl.settings().population : isl.settings().offspring);
    all.insert(all.end(), gs.begin(), gs.end());
    feed(isl, gs);
    isl.advance();
  }
  return all;
}

}  // namespace

TEST(CoreIsland, ProposeNeverReturnsSeenInvalidOrDuplicateGenomes) {
  const auto space = constrained_grid();
  gc::island isl(space, gc::ga_settings{}, 11);
  std::set<gc::genome> marked;
  for (int i = 0; i < 20; ++i) {
    if (auto g = space.sample(isl.random(), 1000)) {
      isl.mark_seen(*g);
      marked.insert(*g);
    }
  }
  for (int gen = 0; gen < 25; ++gen) {
    const auto gs = isl.propose(8);
    ASSERT_EQ(gs.size(), 8u);
    std::set<gc::genome> batch;
    for (const auto& g : gs) {
      EXPECT_TRUE(space.is_valid(g));
      EXPECT_FALSE(isl.seen(g));
      EXPECT_FALSE(marked.contains(g));
      EXPECT_TRUE(batch.insert(g).second) << "duplicate within one call";
    }
    const auto before = isl.evaluated();
    feed(isl, gs);
    EXPECT_EQ(isl.evaluated(), before + gs.size());
    isl.advance();
    EXPECT_EQ(isl.generation(), gen + 1);
  }
}

TEST(CoreIsland, ProposeDoesNotMarkSeen) {
  const auto space = grid_space();
  gc::island isl(space, gc::ga_settings{}, 3);
  const auto gs = isl.propose(5);
  ASSERT_EQ(gs.size(), 5u);
  for (const auto& g : gs) EXPECT_FALSE(isl.seen(g));
  EXPECT_EQ(isl.evaluated(), 0u);
  EXPECT_TRUE(isl.propose(0).empty());
}

TEST(CoreIsland, SameSeedSameProposalsDifferentSeedsDiffer) {
  const auto space = constrained_grid();
  const auto a = run(space, 1234, 8);
  const auto b = run(space, 1234, 8);
  const auto c = run(space, 1235, 8);
  ASSERT_EQ(a.size(), 8u * 8u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(CoreIsland, RngStateResumesProposals) {
  const auto space = grid_space();
  gc::island a(space, gc::ga_settings{}, 77);
  feed(a, a.propose(8));
  a.advance();
  gc::island b(space, gc::ga_settings{}, 0);
  for (const auto& ind : a.population()) b.record(ind);
  b.advance();
  b.random().restore(a.random().state());
  // Same population, same seen set (all 8 proposals survived) and same engine state.
  EXPECT_EQ(a.propose(8), b.propose(8));
}

TEST(CoreIsland, ElitismKeepsTheBestAcrossGenerations) {
  const auto space = grid_space();
  gc::ga_settings s;
  s.population = 4;
  s.elite = 2;
  gc::island isl(space, s, 5);
  double best = std::numeric_limits<double>::infinity();
  gc::genome best_g;
  for (int gen = 0; gen < 30; ++gen) {
    const auto gs = isl.propose(gen == 0 ? 4 : 8);
    for (std::size_t i = 0; i < gs.size(); ++i) {
      // Later generations get mostly poor (or failed) fitnesses to tempt the island to forget.
      double f = gen == 0 ? distance(gs[i]) : (i % 3 == 0 ? std::numeric_limits<double>::infinity() : 100.0 + distance(gs[i]));
      if (gen > 0 && i == 0 && gen % 7 == 0) f = 0.5 * best;
      isl.record({gs[i], f, gen * 100 + static_cast<std::int64_t>(i)});
      if (f < best) {
        best = f;
        best_g = gs[i];
      }
    }
    isl.advance();
    ASSERT_LE(isl.population().size(), 4u);
    const auto top = isl.best(1);
    ASSERT_EQ(top.size(), 1u);
    EXPECT_EQ(top[0].fitness, best);
    EXPECT_EQ(top[0].g, best_g);
  }
}

TEST(CoreIsland, AdvanceMergesDuplicatesSortsAndTruncates) {
  const auto space = grid_space();
  gc::ga_settings s;
  s.population = 3;
  gc::island isl(space, s, 1);
  isl.record({{0, 0, 0, 0, 0}, 5.0, 1});
  isl.record({{1, 0, 0, 0, 0}, std::numeric_limits<double>::quiet_NaN(), 2});
  isl.record({{0, 0, 0, 0, 0}, 2.0, 3});  // re-measured: better, kept
  isl.record({{2, 0, 0, 0, 0}, 3.0, 4});
  isl.record({{3, 0, 0, 0, 0}, 3.0, 5});
  isl.advance();
  ASSERT_EQ(isl.population().size(), 3u);
  EXPECT_EQ(isl.population()[0].id, 3);
  EXPECT_EQ(isl.population()[0].fitness, 2.0);
  EXPECT_EQ(isl.population()[1].id, 4);  // stable on ties
  EXPECT_EQ(isl.population()[2].id, 5);
  EXPECT_EQ(isl.evaluated(), 4u);

  isl.record({{4, 0, 0, 0, 0}, 1.0, 6});
  isl.record({{2, 0, 0, 0, 0}, 9.0, 7});  // worse re-measurement: the old entry stays
  isl.advance();
  const auto top = isl.best(10);
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0].id, 6);
  EXPECT_EQ(top[1].id, 3);
  EXPECT_EQ(top[2].id, 4);
  EXPECT_TRUE(isl.best(0).empty());
  EXPECT_EQ(isl.generation(), 2);
  EXPECT_THROW(isl.record({{0, 0}, 1.0, 8}), std::invalid_argument);
}

TEST(CoreIsland, NanFitnessIsTreatedAsFailure) {
  const auto space = grid_space();
  gc::island isl(space, gc::ga_settings{}, 1);
  isl.record({{1, 1, 1, 1, 1}, std::numeric_limits<double>::quiet_NaN(), 1});
  isl.record({{2, 2, 2, 2, 2}, 7.0, 2});
  isl.advance();
  ASSERT_EQ(isl.population().size(), 2u);
  EXPECT_EQ(isl.population()[0].id, 2);
  EXPECT_TRUE(std::isinf(isl.population()[1].fitness));
}

TEST(CoreIsland, CrossoverChildrenTakeEveryGeneFromTwoParents) {
  std::vector<gc::parameter> params;
  for (int i = 0; i < 6; ++i) params.push_back(numbered("P" + std::to_string(i), 10));
  const gc::search_space space(params, nullptr);
  gc::ga_settings s;
  s.population = 4;
  s.crossover_rate = 1.0;
  s.mutation_rate = 0.0;
  gc::island isl(space, s, 9);
  // Parents differ in every gene, so each child reveals which parent each gene came from.
  const std::vector<gc::genome> parents = {{0, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1}, {2, 2, 2, 2, 2, 2}, {3, 3, 3, 3, 3, 3}};
  for (std::size_t i = 0; i < parents.size(); ++i)
    isl.record({parents[i], 1.0 + static_cast<double>(i), static_cast<std::int64_t>(i)});
  isl.advance();
  const auto children = isl.propose(16);
  ASSERT_EQ(children.size(), 16u);
  for (const auto& c : children) {
    std::set<int> genes(c.begin(), c.end());
    EXPECT_LE(genes.size(), 2u);
    EXPECT_LE(*genes.rbegin(), 3);
    EXPECT_FALSE(isl.seen(c));
  }
}

TEST(CoreIsland, MutationOnlyChangesGenesToOtherValues) {
  const gc::search_space space({numbered("A", 2), numbered("B", 2), numbered("C", 2)}, nullptr);
  gc::ga_settings s;
  s.population = 1;
  s.crossover_rate = 0.0;
  s.mutation_rate = 1.0;
  gc::island isl(space, s, 4);
  isl.record({{0, 1, 0}, 1.0, 0});
  isl.advance();
  // Copy + mutate every gene with two values each: the only possible child is the complement.
  const auto gs = isl.propose(1);
  ASSERT_EQ(gs.size(), 1u);
  EXPECT_EQ(gs[0], (gc::genome{1, 0, 1}));
}

TEST(CoreIsland, FindsTheOptimumOfASyntheticFitness) {
  const auto space = grid_space();
  gc::island isl(space, gc::ga_settings{}, 2024);
  constexpr std::size_t budget = 200;  // ~2.5% of the 7776 points (this seed needs 72)
  bool found = false;
  while (!found && isl.evaluated() < budget) {
    const auto gs = isl.propose(isl.generation() == 0 ? isl.settings().population : isl.settings().offspring);
    ASSERT_FALSE(gs.empty());
    for (const auto& g : gs) {
      isl.record({g, distance(g), -1});
      found |= g == target;
    }
    isl.advance();
  }
  EXPECT_TRUE(found) << "after " << isl.evaluated() << " evaluations";
  EXPECT_EQ(isl.best(1).at(0).g, target);
  EXPECT_EQ(isl.best(1).at(0).fitness, 0.0);
}

TEST(CoreIsland, TinySpaceIsExhaustedWithoutLooping) {
  // a + b <= 4 over {1,2,3}^2: exactly 6 valid points.
  const gc::search_space space({{"A", {"1", "2", "3"}}, {"B", {"1", "2", "3"}}},
                               [](const gc::genome& g) { return g[0] + g[1] <= 2; });
  ASSERT_EQ(space.count_valid(100), 6u);
  gc::ga_settings s;
  s.population = 2;
  s.max_tries = 50;
  gc::island isl(space, s, 8);
  std::set<gc::genome> all;
  for (int gen = 0; gen < 10; ++gen) {
    const auto gs = isl.propose(4);
    for (const auto& g : gs) {
      EXPECT_TRUE(space.is_valid(g));
      EXPECT_TRUE(all.insert(g).second);
      isl.record({g, static_cast<double>(g[0] * 3 + g[1]), -1});
    }
    isl.advance();
  }
  EXPECT_EQ(all.size(), 6u);
  EXPECT_EQ(isl.evaluated(), 6u);
  EXPECT_TRUE(isl.propose(4).empty());
  EXPECT_TRUE(isl.propose(100).empty());

  gc::island fresh(space, s, 8);
  const auto everything = fresh.propose(100);
  EXPECT_EQ(std::set<gc::genome>(everything.begin(), everything.end()).size(), 6u);
  EXPECT_EQ(everything.size(), 6u);
}

TEST(CoreIsland, UnsatisfiableSpaceProposesNothing) {
  const gc::search_space space({numbered("A", 4), numbered("B", 4)}, [](const gc::genome&) { return false; });
  gc::island isl(space, gc::ga_settings{}, 1);
  EXPECT_TRUE(isl.propose(8).empty());
}

// An island rebuilt from what a checkpoint holds (generation, population, engine state, seen
// genomes) continues exactly like the island that never stopped, and never re-proposes a
// genome the original had evaluated.
TEST(CoreIsland, RestoredIslandContinuesLikeTheOriginal) {
  const auto space = grid_space();
  gc::ga_settings s;
  s.population = 4;
  gc::island original(space, s, 21);
  std::vector<gc::genome> seen;
  auto fitness = [](const gc::genome& g) { return 1.0 + g[0] + 0.5 * g[1] - 0.25 * g[2]; };
  for (int gen = 0; gen < 3; ++gen) {
    for (const auto& g : original.propose(6)) {
      original.record({g, fitness(g), static_cast<std::int64_t>(seen.size())});
      seen.push_back(g);
    }
    original.advance();
  }
  gc::island restored(space, s, 999);  // another seed: everything must come from the checkpoint
  restored.restore(original.generation(), original.population(), original.random().state(), seen);
  EXPECT_EQ(restored.generation(), 3);
  EXPECT_EQ(restored.evaluated(), original.evaluated());
  for (int gen = 0; gen < 3; ++gen) {
    const auto a = original.propose(6);
    const auto b = restored.propose(6);
    ASSERT_EQ(a, b);
    for (const auto& g : b) {
      EXPECT_EQ(std::count(seen.begin(), seen.end(), g), 0);
      original.record({g, fitness(g), -1});
      restored.record({g, fitness(g), -1});
    }
    original.advance();
    restored.advance();
  }
  const gc::genome wrong_length = {1, 2};
  EXPECT_THROW(restored.restore(0, {}, original.random().state(), {wrong_length}), std::invalid_argument);
  EXPECT_THROW(restored.restore(0, {}, "not an engine state", std::vector<gc::genome>{}), std::invalid_argument);
}

// Two-level search: a source variant with one more parameter shares the population.
TEST(CoreIsland, VariantIndividualsBreedWithinTheirOwnSpace) {
  const auto base = grid_space();
  std::vector<gc::parameter> more = base.parameters();
  more.push_back({"BLOCK", {"64", "256", "1024"}});
  const gc::search_space variant(more, [](const gc::genome& g) { return g[5] != 2 || g[0] == 0; });
  gc::ga_settings s;
  s.population = 6;
  s.offspring = 40;
  gc::island isl(base, s, 11);
  const int v = isl.add_variant(variant);
  ASSERT_EQ(v, 1);
  EXPECT_EQ(isl.variants(), 2);
  // The variant's individual is by far the fittest: most children are bred from it.
  isl.record({{1, 1, 1, 1, 1, 0}, 0.001, 100, v});
  for (int i = 0; i < 5; ++i) isl.record({{i, i, i, i, i}, 1.0 + i, i});
  EXPECT_THROW(isl.record({{1, 1, 1, 1, 1}, 0.5, 7, v}), std::invalid_argument);  // a template-length genome
  isl.advance();
  const auto children = isl.propose_points(40);
  int of_variant = 0;
  std::set<gc::point> distinct;
  for (const auto& c : children) {
    ASSERT_TRUE(c.variant == 0 || c.variant == v);
    EXPECT_TRUE(isl.space(c.variant).is_valid(c.g));
    EXPECT_FALSE(isl.seen(c));
    distinct.insert(c);
    if (c.variant == v) ++of_variant;
  }
  EXPECT_EQ(distinct.size(), children.size());
  EXPECT_GT(of_variant, 10);
  // The same genome in two variants is two points.
  isl.mark_seen(gc::point{v, {0, 0, 0, 0, 0, 1}});
  EXPECT_TRUE(isl.seen(gc::point{v, {0, 0, 0, 0, 0, 1}}));
  EXPECT_FALSE(isl.seen(gc::genome{0, 0, 0, 0, 0}) && isl.seen(gc::point{v, {0, 0, 0, 0, 0, 0}}));
}

TEST(CoreIsland, CrossoverAcrossVariantsTakesOnlySharedParameterValues) {
  std::vector<gc::parameter> a = {{"X", {"1", "2", "3"}}, {"Y", {"1", "2"}}};
  std::vector<gc::parameter> b = {{"X", {"1", "2", "3"}}, {"Y", {"1", "2"}}, {"Z", {"7", "8"}}};
  const gc::search_space sa(a, nullptr), sb(b, nullptr);
  gc::ga_settings s;
  s.population = 2;
  s.crossover_rate = 1.0;
  s.mutation_rate = 0.0;
  s.tournament = 1;
  gc::island isl(sa, s, 5);
  const int v = isl.add_variant(sb);
  isl.record({{2, 1}, 1.0, 1, 0});
  isl.record({{0, 0, 1}, 1.0, 2, v});
  isl.advance();
  // Bred children mix X in {0, 2} and Y in {0, 1} (the parents' values): three new points per variant.
  const auto children = isl.propose_points(6);
  ASSERT_EQ(children.size(), 6u);
  EXPECT_EQ(std::count_if(children.begin(), children.end(), [&](const gc::point& c) { return c.variant == v; }), 3);
  for (const auto& c : children) {
    if (c.variant == v) {
      EXPECT_EQ(c.g[2], 1);  // Z exists only in the variant: always its own value
    } else {
      ASSERT_EQ(c.g.size(), 2u);
    }
    EXPECT_TRUE((c.g[0] == 0 || c.g[0] == 2) && (c.g[1] == 0 || c.g[1] == 1));
  }
}

// The lineage: a bred point names the population members it came from (one or two of their
// candidate ids); a random sample of the first generation names none.
TEST(Island, BredPointsNameTheirParents) {
  const auto space = grid_space();
  gc::island isl(space, gc::ga_settings{}, 11);
  const auto first = isl.propose_points(isl.settings().population);
  std::int64_t id = 100;
  for (const auto& p : first) {
    EXPECT_TRUE(isl.parents_of(p).empty());
    isl.record({p.g, distance(p.g), id++});
  }
  isl.advance();
  std::set<std::int64_t> members;
  for (const auto& ind : isl.population()) members.insert(ind.id);
  const auto bred = isl.propose_points(isl.settings().offspring);
  ASSERT_FALSE(bred.empty());
  for (const auto& p : bred) {
    const auto parents = isl.parents_of(p);
    ASSERT_GE(parents.size(), 1u);
    ASSERT_LE(parents.size(), 2u);
    for (const auto parent : parents) EXPECT_TRUE(members.contains(parent)) << parent;
  }
  // The next proposal replaces the lineage: the earlier points are no longer its own.
  const auto again = isl.propose_points(1);
  for (const auto& p : bred)
    if (std::find(again.begin(), again.end(), p) == again.end()) EXPECT_TRUE(isl.parents_of(p).empty());
}
