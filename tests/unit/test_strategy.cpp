// Search strategies (core/strategy.hpp) and their replay against recorded spaces
// (simulate/): every kind proposes only unseen valid genomes, exhaustive enumeration covers the
// space exactly once (also split over islands), state() round-trips, the local searches and the
// forest beat random search on a structured space, the forest's surrogate learns an interaction,
// and Kernel Tuner caches read or fail naming the field.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <utility>

#include "config/run_config.hpp"
#include "core/forest.hpp"
#include "core/gaussian_process.hpp"
#include "core/strategy.hpp"
#include "simulate/recorded_space.hpp"
#include "simulate/simulation.hpp"
#include "simulate/strategy_config.hpp"
#include "util/error.hpp"

using namespace galapagos;

namespace {

// 6 x 5 x 4 x 3 = 360 raw points; the constraint a + b != 7 removes a few.
core::search_space small_space() {
  std::vector<core::parameter> p = {{"a", {"0", "1", "2", "3", "4", "5"}},
                                    {"b", {"0", "1", "2", "3", "4"}},
                                    {"c", {"0", "1", "2", "3"}},
                                    {"d", {"x", "y", "z"}}};
  return core::search_space(p, [](const core::genome& g) { return g[0] + g[1] != 7; });
}

// A smooth bowl with its optimum at (4, 1, 2, 1): time = 1 + squared distance.
double bowl(const core::genome& g) {
  const int opt[] = {4, 1, 2, 1};
  double d = 0;
  for (std::size_t i = 0; i < g.size(); ++i) d += (g[i] - opt[i]) * (g[i] - opt[i]);
  return 1.0 + d;
}

simulate::recorded_space bowl_space(int size) {
  std::vector<core::parameter> p;
  for (const char* n : {"p", "q", "r", "s", "t"}) {
    core::parameter prm{n, {}};
    for (int v = 0; v < size; ++v) prm.values.push_back(std::to_string(v));
    p.push_back(prm);
  }
  std::map<core::genome, simulate::recorded_point> pts;
  const core::search_space all(p, nullptr);
  all.enumerate([&](const core::genome& g) {
    double d = 0;
    for (std::size_t i = 0; i < g.size(); ++i) d += std::abs(g[i] - (size - 2 - static_cast<int>(i) % 3));
    // Every 13th point failed (as a recording with compile errors has them).
    const bool failed = (g[0] * 7 + g[1] * 3 + g[2] + g[3] * 5 + g[4]) % 13 == 5;
    simulate::recorded_point pt;
    pt.time_s = failed ? INFINITY : 1e-3 * (1.0 + 0.2 * d);
    pt.cost_s = 2.0;
    pt.status = failed ? "compile_error" : "ok";
    pts.emplace(g, pt);
    return true;
  });
  return simulate::recorded_space("bowl", "test", p, pts);
}

std::filesystem::path write_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / ("galapagos_test_strategy_" + name);
  std::ofstream(path) << text;
  return path;
}

std::string cache_text(const std::string& version_line, const std::string& keys, const std::string& params,
                       const std::string& entries) {
  return "{" + version_line + R"("device_name":"d","kernel_name":"k","problem_size":[1],"objective":"time",)" +
         R"("tune_params_keys":)" + keys + R"(,"tune_params":)" + params + R"(,"cache":{)" + entries + "}}";
}

const std::string full_entry =
    R"("compile_time":1000,"verification_time":0,"benchmark_time":70,"strategy_time":0,"framework_time":0,"timestamp":"t")";

std::string kt_error(const std::string& text) {
  try {
    simulate::read_kernel_tuner_cache(write_file("bad.json", text));
  } catch (const error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(Strategy, EveryKindProposesOnlyUnseenValidGenomesUntilExhausted) {
  const auto space = small_space();
  const auto valid = space.count_valid(1000);
  for (const auto& kind : core::strategy_kinds()) {
    core::strategy_settings s;
    s.kind = kind;
    auto st = core::make_strategy(space, s, 42);
    std::set<core::genome> seen;
    for (int gen = 0; gen < 200; ++gen) {
      const auto batch = st->propose(8);
      if (batch.empty()) break;
      for (const auto& g : batch) {
        EXPECT_TRUE(space.is_valid(g)) << kind;
        EXPECT_TRUE(seen.insert(g).second) << kind << " proposed a genome twice";
        core::individual ind;
        ind.g = g;
        ind.fitness = bowl(g);
        st->tell(ind);
      }
      st->advance();
    }
    EXPECT_EQ(seen.size(), valid) << kind << " did not cover the space before reporting it exhausted";
    EXPECT_EQ(st->best(1).at(0).fitness, 1.0) << kind;
  }
}

// A space too large to enumerate (50^3 points) where one point in 2500 is valid (a = b = c):
// a draw of 2000 tries finds none 45% of the time. Every kind still fills its batches of 8 while
// unseen valid points remain, as a GPU space with tight register and shared-memory constraints
// needs (gemm on CUDA: one valid point in 540; its first generation once held 2 points of 8).
TEST(Strategy, EveryKindFillsItsBatchesWhereValidPointsAreRare) {
  std::vector<core::parameter> p;
  for (const char* n : {"a", "b", "c"}) {
    core::parameter prm{n, {}};
    for (int v = 0; v < 50; ++v) prm.values.push_back(std::to_string(v));
    p.push_back(prm);
  }
  const core::search_space space(p, [](const core::genome& g) { return g[0] == g[1] && g[1] == g[2]; });
  for (const auto& kind : core::strategy_kinds()) {
    if (kind == "exhaustive") continue;  // walks the space in order, not by random draws
    core::strategy_settings s;
    s.kind = kind;
    auto st = core::make_strategy(space, s, 5);
    for (int gen = 0; gen < 3; ++gen) {
      const auto batch = st->propose(8);
      EXPECT_EQ(batch.size(), 8u) << kind << ", generation " << gen;
      for (const auto& g : batch) {
        EXPECT_TRUE(space.is_valid(g)) << kind;
        core::individual ind;
        ind.g = g;
        ind.fitness = 1.0 + g[0];
        st->tell(ind);
      }
      st->advance();
    }
  }
}

TEST(Strategy, ExhaustiveShardsSplitTheSpaceWithoutOverlap) {
  const auto space = small_space();
  std::set<core::genome> all;
  for (int shard = 0; shard < 3; ++shard) {
    core::strategy_settings s;
    s.kind = "exhaustive";
    s.shard = shard;
    s.shards = 3;
    auto st = core::make_strategy(space, s, 1);
    for (auto batch = st->propose(7); !batch.empty(); batch = st->propose(7))
      for (const auto& g : batch) EXPECT_TRUE(all.insert(g).second);
  }
  EXPECT_EQ(all.size(), space.count_valid(1000));
}

TEST(Strategy, MarkSeenIsNeverProposed) {
  const auto space = small_space();
  core::strategy_settings s;
  s.kind = "random";
  auto st = core::make_strategy(space, s, 3);
  std::set<core::genome> marked;
  space.enumerate([&](const core::genome& g) {
    if (marked.size() < 100) {
      st->mark_seen(g);
      marked.insert(g);
    }
    return true;
  });
  for (auto batch = st->propose(16); !batch.empty(); batch = st->propose(16))
    for (const auto& g : batch) {
      EXPECT_FALSE(marked.contains(g));
      st->mark_seen(g);
    }
}

TEST(Strategy, StateRoundTripContinuesIdentically) {
  const auto space = small_space();
  for (const auto& kind : core::strategy_kinds()) {
    core::strategy_settings s;
    s.kind = kind;
    auto a = core::make_strategy(space, s, 9);
    auto run = [&](core::strategy& st, int generations) {
      std::vector<core::genome> out;
      for (int gen = 0; gen < generations; ++gen) {
        for (const auto& g : st.propose(6)) {
          core::individual ind;
          ind.g = g;
          ind.fitness = bowl(g);
          st.tell(ind);
          out.push_back(g);
        }
        st.advance();
      }
      return out;
    };
    run(*a, 4);
    a->mark_seen(core::genome{0, 0, 0, 0});
    auto b = core::make_strategy(space, s, 12345);  // another seed: everything comes from the state
    b->restore(a->state());
    EXPECT_EQ(b->state(), a->state()) << kind;
    EXPECT_EQ(run(*a, 5), run(*b, 5)) << kind;
    EXPECT_THROW(b->restore("strategy something-else\n"), std::invalid_argument);
  }
}

TEST(Strategy, BadSettingsNameTheKey) {
  core::strategy_settings s;
  s.kind = "tabu";
  try {
    core::validate(s);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("kind"), std::string::npos);
  }
  s = {};
  s.local_share = 1.5;
  EXPECT_THROW(core::validate(s), std::invalid_argument);
  s = {};
  s.shard = 2;
  s.shards = 2;
  EXPECT_THROW(core::validate(s), std::invalid_argument);
}

TEST(Simulation, BudgetsAndFailuresAreChargedAsRecorded) {
  const auto space = bowl_space(6);
  simulate::simulation_settings s;
  s.islands[0].kind = "random";
  s.budget = 50;
  const auto r = simulate::simulate(space, s);
  ASSERT_EQ(r.evaluations.size(), 50u);
  EXPECT_DOUBLE_EQ(r.spent_s.at(0), 100.0);  // 2 s recorded per point
  std::set<core::genome> distinct;
  for (const auto& e : r.evaluations) {
    distinct.insert(e.g);
    EXPECT_EQ(e.time_s, space.find(e.g)->time_s);
  }
  EXPECT_EQ(distinct.size(), 50u);
  for (std::size_t i = 1; i < r.best_after.size(); ++i) EXPECT_LE(r.best_after[i], r.best_after[i - 1]);
  // A budget in recorded seconds: 2 s each, so 21 s allow 11 evaluations (the one crossing counts).
  s.budget = 0;
  s.budget_s = 21.0;
  EXPECT_EQ(simulate::simulate(space, s).evaluations.size(), 11u);
}

TEST(Simulation, DeterministicAndExhaustiveFindsTheOptimum) {
  const auto space = bowl_space(5);
  simulate::simulation_settings s;
  s.islands.assign(3, core::strategy_settings{});
  s.islands[1].kind = "annealing";
  s.islands[2].kind = "exhaustive";
  s.budget = 40;
  s.topology = "full";
  s.interval = 1;
  const auto a = simulate::simulate(space, s);
  const auto b = simulate::simulate(space, s);
  ASSERT_EQ(a.evaluations.size(), b.evaluations.size());
  for (std::size_t i = 0; i < a.evaluations.size(); ++i) EXPECT_EQ(a.evaluations[i].g, b.evaluations[i].g);
  EXPECT_TRUE(std::any_of(a.evaluations.begin(), a.evaluations.end(), [](const auto& e) { return e.migrant; }));
  simulate::simulation_settings ex;
  ex.islands[0].kind = "exhaustive";
  ex.budget = 100000;
  const auto all = simulate::simulate(space, ex);
  EXPECT_EQ(all.evaluations.size(), space.size());
  EXPECT_EQ(all.best_s(), space.optimum_s());
  EXPECT_DOUBLE_EQ(all.fraction_at(1000000, space.optimum_s()), 1.0);
}

TEST(Simulation, LocalSearchesBeatRandomSearchOnAStructuredSpace) {
  const auto space = bowl_space(8);  // 32768 points
  auto mean_fraction = [&](const std::string& kind) {
    double sum = 0;
    for (int seed = 1; seed <= 20; ++seed) {
      simulate::simulation_settings s;
      s.islands[0].kind = kind;
      s.budget = 100;
      s.seed = static_cast<std::uint64_t>(seed);
      sum += simulate::simulate(space, s).fraction_at(100, space.optimum_s()) / 20;
    }
    return sum;
  };
  const double random = mean_fraction("random");
  EXPECT_GT(mean_fraction("hybrid"), random + 0.05);
  EXPECT_GT(mean_fraction("annealing"), random);
  EXPECT_GT(mean_fraction("hybrid"), 0.95);
  EXPECT_GT(mean_fraction("forest"), random + 0.05);
  EXPECT_GT(mean_fraction("forest"), 0.95);
}

// The forest's first evaluations fill the space: on a constrained space they are valid, and a
// batch of 8 reaches more of each parameter's values, its extreme ones above all, than uniform
// samples do (a narrow optimum often lies at an extreme value).
TEST(Strategy, ForestFirstBatchFillsTheSpaceWithinTheConstraints) {
  const auto space = small_space();
  auto coverage = [&](const std::string& kind, double& extremes) {
    double values = 0;
    extremes = 0;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      core::strategy_settings s;
      s.kind = kind;
      const auto batch = core::make_strategy(space, s, seed)->propose(8);
      EXPECT_EQ(batch.size(), 8u);
      for (std::size_t f = 0; f < space.parameters().size(); ++f) {
        std::set<int> hit;
        for (const auto& g : batch) {
          EXPECT_TRUE(space.is_valid(g)) << kind;
          hit.insert(g[f]);
        }
        const int last = static_cast<int>(space.parameters()[f].values.size()) - 1;
        values += static_cast<double>(hit.size()) / (last + 1) / 40;
        extremes += (hit.contains(0) + hit.contains(last)) / 2.0 / 40;
      }
    }
    return values;
  };
  double forest_extremes = 0, random_extremes = 0;
  const double forest = coverage("forest", forest_extremes);
  const double random = coverage("random", random_extremes);
  EXPECT_GT(forest, random + 0.2) << "share of values covered, summed over the 4 parameters";  // 3.90, 3.48
  EXPECT_GT(forest_extremes, random_extremes + 0.4);                                           // measured: 3.98 against 3.39 of 4
}

// A value that few valid points hold (here a = 0, valid only with b = 9: 4 of 364 points) is in
// the forest's first batch: its random samples are drawn to bring values not yet measured, both
// where the valid points are listed and where they are drawn with the value fixed (`pool` below
// their count). Measured: 25 and 28 of 40 seeds; uniform samples 1 (8 * 4 / 364 expected: 3.5).
TEST(Strategy, ForestFirstBatchReachesAValueFewValidPointsHold) {
  std::vector<core::parameter> p = {{"a", {}}, {"b", {}}, {"c", {"0", "1", "2", "3"}}};
  for (int v = 0; v < 10; ++v) {
    p[0].values.push_back(std::to_string(v));
    p[1].values.push_back(std::to_string(v));
  }
  const core::search_space space(p, [](const core::genome& g) { return g[0] != 0 || g[1] == 9; });
  auto seeds_reaching = [&](const std::string& kind, int pool) {
    int reached = 0, values = 0;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
      core::strategy_settings s;
      s.kind = kind;
      s.pool = pool;
      const auto batch = core::make_strategy(space, s, seed)->propose(8);
      EXPECT_EQ(batch.size(), 8u);
      std::set<int> a;
      for (const auto& g : batch) {
        EXPECT_TRUE(space.is_valid(g)) << kind;
        a.insert(g[0]);
      }
      reached += a.contains(0);
      values += static_cast<int>(a.size());
    }
    if (kind == "forest") EXPECT_GE(values, 40 * 7) << "pool " << pool << ": values of a in the first batches";
    return reached;
  };
  const int random = seeds_reaching("random", 20000);
  EXPECT_GE(seeds_reaching("forest", 20000), 20) << "listed valid points; random search: " << random;
  EXPECT_GE(seeds_reaching("forest", 50), 20) << "drawn with the value fixed; random search: " << random;
  EXPECT_LE(random, 10);
}

// The surrogate of the forest strategy: fitted to a function of two interacting parameters plus
// noise-free distractors, it ranks unseen points as the function does and is unsure away from
// the data.
// `galapagos run` and `galapagos simulate --config` read [search], [strategy] and [migration] with
// one set of rules: the same values, and the same error for the same mistake.
TEST(Simulation, ReadsTheSearchTablesOfARunConfigAsTheRunDoes) {
  const auto dir = std::filesystem::temp_directory_path() / ("galapagos-search-tables-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "config.toml";
  auto write = [&](const std::string& tables) { std::ofstream(path) << "[run]\nfamily = \"stencil3d7\"\n" << tables; };
  write(
      "[search]\nbudget = 30\nseed = 5\npopulation = 6\noffspring = 4\n"
      "[strategy]\nkinds = [\"ga\", \"annealing\"]\ntemperature = 2.5\n"
      "[migration]\ntopology = \"random\"\ndegree = 3\ninterval = 3\ncount = 1\n");
  const auto run = galapagos::config::load_run_config(path);
  const auto sim = simulate::read_simulation_config(path, 4);
  EXPECT_EQ(sim.budget, run.budget);
  EXPECT_EQ(sim.seed, run.seed);
  EXPECT_EQ(sim.topology, run.migration.topology);
  EXPECT_EQ(sim.degree, run.migration.degree);
  EXPECT_EQ(sim.interval, run.migration.interval);
  EXPECT_EQ(sim.count, run.migration.count);
  ASSERT_EQ(sim.islands.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(sim.islands[i].kind, run.strategy_kinds[i % run.strategy_kinds.size()]);
    EXPECT_EQ(sim.islands[i].ga.population, run.ga.population);
    EXPECT_EQ(sim.islands[i].ga.offspring, run.ga.offspring);
    EXPECT_EQ(sim.islands[i].temperature, run.strategy.temperature);
  }
  // The random graph (degree 3 on 4 islands) is drawn from the seed, as a run draws it.
  auto settings = sim;
  settings.budget = 12;
  EXPECT_FALSE(simulate::simulate(bowl_space(6), settings).evaluations.empty());
  // Without [strategy] both take the default kind.
  write("[search]\nbudget = 8\n");
  EXPECT_EQ(simulate::read_simulation_config(path, 1).islands.at(0).kind,
            galapagos::config::load_run_config(path).strategy_kinds.at(0));
  for (const std::string bad : {"[migration]\ntopology = \"star\"\n", "[migration]\ndegree = 0\n", "[migration]\nbogus = 1\n",
                                "[migration]\narrival = \"later\"\n", "[search]\npopulation = 2\nelite = 9\n",
                                "[strategy]\nkind = \"nope\"\n", "[strategy]\ncooling = 0\n"}) {
    write(bad);
    std::string from_run, from_sim;
    try {
      galapagos::config::load_run_config(path);
    } catch (const galapagos::error& e) {
      from_run = e.what();
    }
    try {
      simulate::read_simulation_config(path, 2);
    } catch (const galapagos::error& e) {
      from_sim = e.what();
    }
    EXPECT_NE(from_run.find(path.string()), std::string::npos) << bad << ": " << from_run;
    EXPECT_EQ(from_run, from_sim) << bad;
  }
  std::filesystem::remove_all(dir);
}

// Of the pairs of grid points whose f differs by at least `gap`: how many the model's mean
// predictions put in the other order, and how many there are.
template <class F, class Model>
std::pair<int, int> out_of_order(const std::vector<core::genome>& grid, F f, const Model& model, double gap) {
  int discordant = 0, pairs = 0;
  for (std::size_t i = 0; i < grid.size(); ++i)
    for (std::size_t j = i + 1; j < grid.size(); ++j) {
      const double df = f(grid[i]) - f(grid[j]);
      if (std::abs(df) < gap) continue;
      ++pairs;
      discordant += df * (model.predict(grid[i]).mean - model.predict(grid[j]).mean) < 0;
    }
  return {discordant, pairs};
}

TEST(Forest, LearnsAnInteractionAndRanksUnseenPoints) {
  auto f = [](const core::genome& g) { return 1.0 + g[0] + (g[1] == 3 && g[2] >= 2 ? -3.0 : 0.5 * g[2]); };
  std::vector<core::genome> x;
  std::vector<double> y;
  core::rng r(7);
  std::set<core::genome> train;
  while (train.size() < 120) train.insert({r.below(4), r.below(4), r.below(4), r.below(3)});
  for (const auto& g : train) {
    x.push_back(g);
    y.push_back(f(g));
  }
  // Every point of the 4 x 4 x 4 x 3 grid: the predicted best is a true optimum (f = -2), and
  // predictions order the grid nearly as f does (Spearman-like: few discordant pairs), with the
  // default random thresholds and with the best threshold of every tried parameter.
  std::vector<core::genome> grid;
  for (int a = 0; a < 4; ++a)
    for (int b = 0; b < 4; ++b)
      for (int c = 0; c < 4; ++c)
        for (int d = 0; d < 3; ++d) grid.push_back({a, b, c, d});
  for (const bool random_thresholds : {true, false}) {
    core::forest_settings settings;
    settings.random_thresholds = random_thresholds;
    core::forest model(settings);
    model.fit(x, y, r);
    ASSERT_EQ(model.trees(), 24);
    const auto predicted_best = *std::min_element(
        grid.begin(), grid.end(), [&](const auto& u, const auto& v) { return model.predict(u).mean < model.predict(v).mean; });
    EXPECT_DOUBLE_EQ(f(predicted_best), -2.0) << "random thresholds: " << random_thresholds;
    const auto [discordant, pairs] = out_of_order(grid, f, model, 1.0);
    EXPECT_LT(discordant, pairs / 20) << discordant << " of " << pairs << ", random thresholds: " << random_thresholds;
  }
  // The trees agree on a training point far more than on a point in a corner no sample reached.
  core::forest sparse;
  sparse.fit({{0, 0, 0, 0}, {0, 1, 0, 0}, {1, 0, 0, 0}, {3, 3, 3, 2}, {3, 2, 3, 2}}, {1, 1.5, 2, 9, 7}, r);
  EXPECT_GT(sparse.predict({3, 0, 0, 0}).spread, sparse.predict({0, 0, 0, 0}).spread);
  EXPECT_THROW(sparse.fit({}, {}, r), std::invalid_argument);
}

// The forest strategy's second model: on a few points of a smooth function of two parameters
// (and one distractor) it passes within a tenth of their range of the measured values, ranks unseen points as the function
// does, is sure where it measured and unsure away from it, and a believed point is as sure as a
// measured one.
TEST(GaussianProcess, InterpolatesRanksAndKnowsWhereItIsUnsure) {
  auto f = [](const core::genome& g) { return 0.1 * (g[0] - 6) * (g[0] - 6) + 0.05 * (g[1] - 2) * (g[1] - 2); };
  const std::vector<int> levels = {10, 8, 3};
  std::vector<core::genome> x;
  std::vector<double> y;
  for (const core::genome& g : std::vector<core::genome>{
           {0, 0, 0}, {9, 7, 1}, {3, 5, 2}, {6, 1, 0}, {8, 3, 1}, {2, 2, 2}, {5, 6, 0}, {7, 0, 1}, {4, 4, 2}, {1, 7, 0}}) {
    x.push_back(g);
    y.push_back(f(g));
  }
  core::gaussian_process model;
  model.fit(x, y, levels);
  const double range = *std::max_element(y.begin(), y.end()) - *std::min_element(y.begin(), y.end());
  for (std::size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(model.predict(x[i]).mean, y[i], 0.1 * range) << i;
  // Over the whole grid the predicted best lies next to the true one, and few pairs are out of order.
  std::vector<core::genome> grid;
  for (int a = 0; a < 10; ++a)
    for (int b = 0; b < 8; ++b)
      for (int c = 0; c < 3; ++c) grid.push_back({a, b, c});
  const auto best = *std::min_element(
      grid.begin(), grid.end(), [&](const auto& u, const auto& v) { return model.predict(u).mean < model.predict(v).mean; });
  EXPECT_LE(std::abs(best[0] - 6) + std::abs(best[1] - 2), 2) << best[0] << "," << best[1];
  const auto [discordant, pairs] = out_of_order(grid, f, model, 0.5);
  EXPECT_LT(discordant, pairs / 8) << discordant << " of " << pairs;  // measured: 9%; half in a random order
  // Sure at a measured point, unsure in the corner no point is near; believing the corner makes
  // the model as sure there, and takes away the improvement it expected there.
  const core::genome corner = {9, 0, 2};
  EXPECT_LT(model.predict(x[2]).sd, 0.5 * model.predict(corner).sd);
  const double expected = model.expected_improvement(corner);
  EXPECT_GT(expected, 0.0);
  model.believe(corner);
  EXPECT_LT(model.predict(corner).sd, 2 * model.predict(x[2]).sd + 1e-9);
  EXPECT_LT(model.expected_improvement(corner), 0.5 * expected);
  EXPECT_THROW(model.fit({}, {}, levels), std::invalid_argument);
}

// Its length follows the data: longer for a function that varies slowly across the grid than for
// one that jumps between neighbouring values.
TEST(GaussianProcess, ChoosesALongerLengthForASmootherFunction) {
  const std::vector<int> levels = {16, 16};
  std::vector<core::genome> x;
  core::rng r(3);
  std::set<core::genome> points;
  while (points.size() < 30) points.insert({r.below(16), r.below(16)});
  x.assign(points.begin(), points.end());
  std::vector<double> smooth, rough;
  for (const auto& g : x) {
    smooth.push_back(0.02 * (g[0] + g[1]));
    rough.push_back((g[0] + g[1]) % 2 == 0 ? 1.0 : 0.0);
  }
  core::gaussian_process a, b;
  a.fit(x, smooth, levels);
  b.fit(x, rough, levels);
  EXPECT_GT(a.length(), 2 * b.length()) << a.length() << " against " << b.length();
}

TEST(KernelTunerCache, ReadsEntriesFailuresAndCosts) {
  const std::string keys = R"(["block_size_x","use_shared"])";
  const std::string params = R"({"block_size_x":[32,64,128],"use_shared":[0,1]})";
  const std::string entries = R"("32,0":{"block_size_x":32,"use_shared":0,"time":2.0,)" + full_entry + "}," +
                              R"("64,0":{"time":1.5,)" + full_entry + "}," + R"("64,1":{"time":"CompilationFailedConfig",)" +
                              full_entry + "}";
  const auto space =
      simulate::read_kernel_tuner_cache(write_file("ok.json", cache_text(R"("schema_version":"1.1.0",)", keys, params, entries)));
  EXPECT_EQ(space.size(), 3u);
  EXPECT_EQ(space.failed(), 1u);
  EXPECT_DOUBLE_EQ(space.optimum_s(), 1.5e-3);  // Kernel Tuner records milliseconds
  EXPECT_EQ(space.space().to_json(space.optimum()), R"({"block_size_x":64,"use_shared":0})");
  EXPECT_DOUBLE_EQ(space.find(core::genome{0, 0})->cost_s, 1.07);
  EXPECT_FALSE(space.space().is_valid(core::genome{2, 1}));  // not recorded: restricted
  EXPECT_TRUE(space.space().is_valid(core::genome{1, 1}));   // recorded as failed: valid, +inf
  // An unversioned cache of an older Kernel Tuner needs only "time".
  const auto old =
      simulate::read_kernel_tuner_cache(write_file("old.json", cache_text("", keys, params, R"("128,1":{"time":0.5})")));
  EXPECT_DOUBLE_EQ(old.optimum_s(), 0.5e-3);
}

TEST(KernelTunerCache, BadFilesNameTheField) {
  const std::string keys = R"(["x","y"])";
  const std::string params = R"({"x":[1,2],"y":[1,2]})";
  const std::string ok = R"("1,1":{"time":1.0,)" + full_entry + "}";
  const std::string v = R"("schema_version":"1.0.0",)";
  EXPECT_NE(kt_error(cache_text(R"("schema_version":"9.9.9",)", keys, params, ok)).find("schema_version: unknown version"),
            std::string::npos);
  EXPECT_NE(kt_error(R"({"schema_version":"1.0.0","cache":{}})").find("tune_params_keys: missing"), std::string::npos);
  // JSON of neither format: the message names both formats and what each would have.
  EXPECT_NE(kt_error(R"({"foo":1})").find("neither a Kernel Tuner cache"), std::string::npos);
  EXPECT_NE(kt_error(R"({"foo":1})").find("nor T4 results"), std::string::npos);
  EXPECT_NE(kt_error(cache_text(v, R"(["x","y","z"])", params, ok)).find("tune_params: has no list for 'z'"), std::string::npos);
  EXPECT_NE(kt_error(cache_text(v, R"(["x"])", params, ok)).find("tune_params: has a list for 'y'"), std::string::npos);
  EXPECT_NE(kt_error(cache_text(v, keys, params, R"("1,1,1":{"time":1.0,)" + full_entry + "}")).find("the key has 3 values"),
            std::string::npos);
  EXPECT_NE(kt_error(cache_text(v, keys, params, R"("1,3":{"time":1.0,)" + full_entry + "}")).find("value '3' of 'y'"),
            std::string::npos);
  EXPECT_NE(kt_error(cache_text(v, keys, params, R"("1,1":{"time":1.0})")).find("cache[\"1,1\"].compile_time: missing"),
            std::string::npos);
  EXPECT_NE(kt_error(cache_text(v, keys, params, R"("1,1":{"compile_time":1})")).find("cache[\"1,1\"].time: missing"),
            std::string::npos);
  EXPECT_NE(kt_error(cache_text(v, keys, params, R"("1,1":{"time":"Broken",)" + full_entry + "}")).find("unknown failure marker"),
            std::string::npos);
  EXPECT_NE(kt_error(cache_text(v, keys, params, R"("1,1":{"x":2,"time":1.0,)" + full_entry + "}")).find("cache[\"1,1\"].x"),
            std::string::npos);
  EXPECT_NE(kt_error("{\"schema_version\":\"1.0.0\",\"cache\":{\"1\":[}}").find("not a JSON document"), std::string::npos);
}
