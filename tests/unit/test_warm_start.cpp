// Warm start: an earlier recording's points mapped into another search space (by parameter name,
// values by text or number), and the forest guided by them: the prior's best points open the
// first batch, a misleading prior does not stop the search, and without a prior nothing changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>

#include "core/strategy.hpp"
#include "simulate/warm_start.hpp"
#include "util/error.hpp"

using namespace galapagos;

namespace {

std::filesystem::path write_cache(const std::string& name, const std::string& keys, const std::string& params,
                                  const std::string& entries) {
  const auto p = std::filesystem::temp_directory_path() / ("galapagos_test_warm_" + name + ".json");
  std::ofstream(p) << "{\"tune_params_keys\": " << keys << ", \"tune_params\": " << params << ", \"cache\": {" << entries << "}}";
  return p;
}

std::string entry(const std::string& key, const std::string& time) { return "\"" + key + "\": {\"time\": " + time + "}"; }

// bx in {32, 64, 128}, tile in {1, 2, 4}; tile 4 with bx 128 is invalid.
core::search_space target() {
  return core::search_space({{"bx", {"32", "64", "128"}}, {"tile", {"1", "2", "4"}}},
                            [](const core::genome& g) { return !(g[0] == 2 && g[1] == 2); });
}

std::string error_of(const std::vector<std::filesystem::path>& files) {
  try {
    simulate::read_warm_start(files, target());
  } catch (const error& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST(WarmStart, MapsByNameAndValueAndKeepsTheFastestOfMergedPoints) {
  // Another order of the parameters, an extra one (unroll) and numbers written as 64.0; tile 8
  // is not a value of the space, and (128, 4) breaks its constraint.
  const auto file =
      write_cache("map", R"(["tile", "unroll", "bx"])", R"({"tile": [1, 4, 8], "unroll": [1, 2], "bx": [64.0, 128]})",
                  entry("1,1,64.0", "4.0") + "," + entry("1,2,64.0", "2.0") + "," + entry("4,1,64.0", "\"RuntimeFailedConfig\"") +
                      "," + entry("8,1,64.0", "1.0") + "," + entry("4,1,128", "1.0") + "," + entry("1,1,128", "8.0"));
  const auto w = simulate::read_warm_start({file}, target());
  ASSERT_EQ(w.sources.size(), 1u);
  EXPECT_EQ(w.sources[0].recorded, 6u);
  EXPECT_EQ(w.sources[0].mapped, 3u);  // (64, 1), (64, 4), (128, 1)
  ASSERT_EQ(w.points.size(), 3u);
  std::map<core::genome, double> got;
  for (const auto& p : w.points) got[p.g] = p.fitness;
  // Times relative to the file's median of its correct points (1, 1, 2, 4, 8: median 2).
  EXPECT_DOUBLE_EQ(got.at({1, 0}), 1.0);  // the fastest of unroll 1 (4.0) and 2 (2.0), over 2
  EXPECT_TRUE(std::isinf(got.at({1, 2})));
  EXPECT_DOUBLE_EQ(got.at({2, 0}), 4.0);
  EXPECT_NE(w.summary().find("3 of 6 points of " + file.string()), std::string::npos) << w.summary();
}

TEST(WarmStart, NamesTheFileAndTheProblem) {
  const auto lacks = write_cache("lacks", R"(["bx"])", R"({"bx": [32, 64]})", entry("32", "1.0"));
  EXPECT_EQ(error_of({lacks}),
            lacks.string() + ": warm start: has no parameter 'tile' of the search space (it has bx; the space has bx, tile)");
  const auto outside = write_cache("outside", R"(["bx", "tile"])", R"({"bx": [16], "tile": [1]})", entry("16,1", "1.0"));
  EXPECT_EQ(error_of({outside}),
            outside.string() + ": warm start: none of its 1 points lies in the search space (values or constraints differ)");
  const auto missing = std::filesystem::temp_directory_path() / "galapagos_test_warm_missing.json";
  std::filesystem::remove(missing);
  EXPECT_NE(error_of({missing}).find(missing.string() + ": "), std::string::npos);
}

namespace {

// 6 x 6 x 6 points; time = 1 + squared distance to `opt`.
core::search_space cube() {
  std::vector<std::string> v = {"0", "1", "2", "3", "4", "5"};
  return core::search_space({{"a", v}, {"b", v}, {"c", v}}, [](const core::genome&) { return true; });
}
double bowl(const core::genome& g, const core::genome& opt) {
  double d = 0;
  for (std::size_t i = 0; i < g.size(); ++i) d += (g[i] - opt[i]) * (g[i] - opt[i]);
  return 1.0 + d;
}
std::vector<core::individual> every_point(const core::genome& opt, double scale) {
  std::vector<core::individual> out;
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 6; ++b)
      for (int c = 0; c < 6; ++c) out.push_back({{a, b, c}, scale * bowl({a, b, c}, opt), -1, 0});
  return out;
}
// Evaluations until the forest first proposes `opt` (budget + 1 when it never does).
int evaluations_to(const core::genome& opt, const std::vector<core::individual>& prior, std::uint64_t seed, int budget) {
  const auto space = cube();
  core::strategy_settings s;
  s.kind = "forest";
  auto st = core::make_strategy(space, s, seed);
  st->warm_start(prior);
  int n = 0;
  while (n < budget) {
    const auto batch = st->propose(8);
    if (batch.empty()) break;
    for (const auto& g : batch) {
      ++n;
      if (g == opt) return n;
      st->tell({g, bowl(g, opt), n, 0});
    }
    st->advance();
  }
  return budget + 1;
}

}  // namespace

TEST(WarmStart, ThePriorsBestOpensTheFirstBatch) {
  const core::genome opt = {4, 1, 2};
  // A prior of the same bowl on a 3x slower device: its best point is the optimum here too.
  for (std::uint64_t seed = 1; seed <= 5; ++seed) EXPECT_LE(evaluations_to(opt, every_point(opt, 3.0), seed, 40), 8);
}

TEST(WarmStart, AMisleadingPriorDoesNotStopTheSearch) {
  // The prior's optimum lies at the far corner: the search still finds this space's optimum
  // within 120 of the 216 points.
  const core::genome opt = {4, 1, 2};
  int found = 0;
  for (std::uint64_t seed = 1; seed <= 5; ++seed) found += evaluations_to(opt, every_point({0, 5, 5}, 1.0), seed, 120) <= 120;
  EXPECT_EQ(found, 5);
}

TEST(WarmStart, NoPriorNoChange) {
  // An empty warm start, or one with fewer than two correct points, proposes exactly as a cold start.
  const auto space = cube();
  core::strategy_settings s;
  const core::genome opt = {2, 2, 2};
  const double inf = std::numeric_limits<double>::infinity();
  for (const auto& prior : {std::vector<core::individual>{}, std::vector<core::individual>{{{1, 1, 1}, inf, -1, 0}}}) {
    auto cold = core::make_strategy(space, s, 7), warm = core::make_strategy(space, s, 7);
    warm->warm_start(prior);
    for (int gen = 0; gen < 6; ++gen) {
      const auto a = cold->propose(8), b = warm->propose(8);
      ASSERT_EQ(a, b) << "generation " << gen;
      for (const auto& g : a) {
        cold->tell({g, bowl(g, opt), -1, 0});
        warm->tell({g, bowl(g, opt), -1, 0});
      }
      cold->advance();
      warm->advance();
    }
  }
}
