// [search] objective: what the strategies minimise (time, energy or energy x time per call), read
// from the config with one set of rules, refused where energy is not measured.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "config/run_config.hpp"
#include "core/objective.hpp"
#include "util/error.hpp"

namespace gc = galapagos::core;

namespace {

galapagos::config::run_config parse(const std::string& text) {
  return galapagos::config::parse_run_config(text, "objective.toml", "objective.toml");
}

// The candidate a search would keep: the one of least fitness under `o`.
int best_of(gc::objective o, const std::vector<std::pair<double, double>>& time_energy) {
  int best = -1;
  double least = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < time_energy.size(); ++i) {
    const double f = gc::fitness_of(o, time_energy[i].first, time_energy[i].second);
    if (f < least) least = f, best = static_cast<int>(i);
  }
  return best;
}

}  // namespace

TEST(Objective, FitnessIsTheChosenFigure) {
  EXPECT_DOUBLE_EQ(gc::fitness_of(gc::objective::time, 2e-3, 5.0), 2e-3);
  EXPECT_DOUBLE_EQ(gc::fitness_of(gc::objective::energy, 2e-3, 5.0), 5.0);
  EXPECT_DOUBLE_EQ(gc::fitness_of(gc::objective::edp, 2e-3, 5.0), 1e-2);
  // A fast, hungry candidate against a slow, frugal one: each objective keeps another one.
  const std::vector<std::pair<double, double>> c = {{1e-3, 5.0}, {2e-3, 1.0}, {1.5e-3, 4.0}};
  EXPECT_EQ(best_of(gc::objective::time, c), 0);
  EXPECT_EQ(best_of(gc::objective::energy, c), 1);
  EXPECT_EQ(best_of(gc::objective::edp, c), 1);  // 5e-3, 2e-3, 6e-3 J*s
}

TEST(Objective, UnmeasuredEnergyNeverWins) {
  const double nan = std::nan("");
  EXPECT_TRUE(std::isinf(gc::fitness_of(gc::objective::energy, 1e-3, nan)));
  EXPECT_TRUE(std::isinf(gc::fitness_of(gc::objective::edp, 1e-3, nan)));
  EXPECT_DOUBLE_EQ(gc::fitness_of(gc::objective::time, 1e-3, nan), 1e-3);  // time needs no energy
  EXPECT_TRUE(std::isinf(gc::fitness_of(gc::objective::time, nan, 1.0)));
}

TEST(Objective, NamesRoundTrip) {
  for (const auto o : {gc::objective::time, gc::objective::energy, gc::objective::edp})
    EXPECT_EQ(gc::parse_objective(gc::to_string(o)), o);
  EXPECT_FALSE(gc::parse_objective("power"));
  EXPECT_STREQ(gc::fitness_unit(gc::objective::edp), "J*s");
}

TEST(Objective, ConfigDefaultsToTimeAndReadsTheKey) {
  EXPECT_EQ(parse("[run]\nfamily = \"stencil3d7\"\n").objective, gc::objective::time);
  EXPECT_EQ(parse("[run]\nfamily = \"stencil3d7\"\nbackend = \"cuda\"\n[search]\nobjective = \"edp\"\n").objective,
            gc::objective::edp);
}

TEST(Objective, EnergyOnTheCpuIsAConfigError) {
  try {
    parse("[run]\nfamily = \"stencil3d7\"\n[search]\nobjective = \"energy\"\n");
    FAIL() << "an energy objective on the cpu backend was accepted";
  } catch (const galapagos::error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("objective.toml: key 'search.objective': 'energy' needs the energy of each call"), std::string::npos)
        << what;
    EXPECT_NE(what.find("use objective = \"time\""), std::string::npos) << what;
  }
  EXPECT_THROW(parse("[run]\nfamily = \"stencil3d7\"\n[search]\nobjective = \"power\"\n"), galapagos::error);
}

TEST(Objective, UnknownKeysSuggestTheNearestKnownOne) {
  try {
    parse("[run]\nfamily = \"stencil3d7\"\n[search]\nbudgte = 3\n");
    FAIL() << "an unknown key was accepted";
  } catch (const galapagos::error& e) {
    EXPECT_NE(std::string(e.what()).find("key 'search.budgte': unknown key; did you mean 'budget'?"), std::string::npos)
        << e.what();
  }
  try {
    parse("[run]\nfamily = \"stencil3d7\"\n[search]\nzzzzzz = 3\n");
    FAIL() << "an unknown key was accepted";
  } catch (const galapagos::error& e) {
    EXPECT_EQ(std::string(e.what()).find("did you mean"), std::string::npos) << e.what();  // nothing near
  }
}
