#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "core/search_space.hpp"

namespace gc = galapagos::core;

namespace {

const std::vector<int> powers = {1, 2, 4, 8, 16, 32, 64};

std::vector<std::string> as_text(const std::vector<int>& v) {
  std::vector<std::string> out;
  for (int x : v) out.push_back(std::to_string(x));
  return out;
}

// a, b in {1..64} (powers of two) and c in {x, y, z}, constrained by a*b <= 64.
gc::search_space constrained_space() {
  std::vector<gc::parameter> params = {{"A", as_text(powers)}, {"B", as_text(powers)}, {"C", {"x", "y", "z"}}};
  return gc::search_space(params, [](const gc::genome& g) { return powers[g[0]] * powers[g[1]] <= 64; });
}

std::set<gc::genome> brute_force_valid() {
  std::set<gc::genome> out;
  for (int a = 0; a < 7; ++a)
    for (int b = 0; b < 7; ++b)
      for (int c = 0; c < 3; ++c)
        if (powers[a] * powers[b] <= 64) out.insert({a, b, c});
  return out;
}

}  // namespace

TEST(CoreSpace, ConstructorRejectsEmptyValuesAndDuplicateNames) {
  EXPECT_THROW(gc::search_space({{"A", {"1"}}, {"B", {}}}, nullptr), std::invalid_argument);
  EXPECT_THROW(gc::search_space({{"A", {"1"}}, {"A", {"2"}}}, nullptr), std::invalid_argument);
  EXPECT_NO_THROW(gc::search_space({{"A", {"1"}}, {"B", {"2"}}}, nullptr));
}

TEST(CoreSpace, IsValidChecksLengthRangeAndPredicate) {
  const auto space = constrained_space();
  EXPECT_TRUE(space.is_valid({0, 0, 0}));
  EXPECT_TRUE(space.is_valid({6, 0, 2}));   // 64*1
  EXPECT_FALSE(space.is_valid({6, 1, 0}));  // 64*2 > 64
  EXPECT_FALSE(space.is_valid({0, 0}));
  EXPECT_FALSE(space.is_valid({0, 0, 0, 0}));
  EXPECT_FALSE(space.is_valid({0, 0, 3}));
  EXPECT_FALSE(space.is_valid({-1, 0, 0}));
  const gc::search_space free({{"A", {"1", "2"}}}, nullptr);
  EXPECT_TRUE(free.is_valid({1}));
  EXPECT_FALSE(free.is_valid({2}));
}

TEST(CoreSpace, Cardinality) { EXPECT_DOUBLE_EQ(constrained_space().cardinality(), 7.0 * 7.0 * 3.0); }

TEST(CoreSpace, SampleYieldsOnlyValidGenomes) {
  const auto space = constrained_space();
  gc::rng r(42);
  std::set<gc::genome> distinct;
  for (int i = 0; i < 2000; ++i) {
    const auto g = space.sample(r, 1000);
    ASSERT_TRUE(g.has_value());
    ASSERT_TRUE(space.is_valid(*g));
    const auto v = space.values(*g);
    EXPECT_LE(std::stoi(v.at("A")) * std::stoi(v.at("B")), 64);
    distinct.insert(*g);
  }
  EXPECT_EQ(distinct, brute_force_valid());  // 2000 draws cover all 84 valid points
}

TEST(CoreSpace, CountValidMatchesBruteForceAndStopsAtLimit) {
  const auto space = constrained_space();
  const auto expected = brute_force_valid().size();
  EXPECT_EQ(expected, 28u * 3u);  // i + j <= 6 for 2^i * 2^j <= 64
  EXPECT_EQ(space.count_valid(1'000'000), expected);
  EXPECT_EQ(space.count_valid(10), 10u);
  EXPECT_EQ(space.count_valid(expected), expected);
  EXPECT_EQ(space.count_valid(0), 0u);
}

TEST(CoreSpace, EnumerateVisitsExactlyTheValidSetInOrder) {
  const auto space = constrained_space();
  std::vector<gc::genome> visited;
  space.enumerate([&](const gc::genome& g) {
    visited.push_back(g);
    return true;
  });
  EXPECT_TRUE(std::is_sorted(visited.begin(), visited.end()));
  const std::set<gc::genome> as_set(visited.begin(), visited.end());
  EXPECT_EQ(as_set.size(), visited.size());
  EXPECT_EQ(as_set, brute_force_valid());

  int calls = 0;
  space.enumerate([&](const gc::genome&) { return ++calls < 5; });
  EXPECT_EQ(calls, 5);
}

TEST(CoreSpace, ListedPointsAreEnumeratedSampledAndCounted) {
  const auto valid = brute_force_valid();
  const std::vector<gc::genome> listed(valid.begin(), valid.end());
  const auto plain = constrained_space();
  const gc::search_space space(
      plain.parameters(), [](const gc::genome& g) { return powers[g[0]] * powers[g[1]] <= 64; }, listed);
  std::vector<gc::genome> visited;
  space.enumerate([&](const gc::genome& g) {
    visited.push_back(g);
    return true;
  });
  EXPECT_EQ(visited, listed);
  EXPECT_EQ(space.count_valid(1'000'000), listed.size());
  EXPECT_EQ(space.count_valid(10), 10u);
  gc::rng r(3);
  std::set<gc::genome> drawn;
  for (int i = 0; i < 2000; ++i) {
    const auto g = space.sample(r, 1);  // one try is enough: draws come from the list
    ASSERT_TRUE(g.has_value());
    EXPECT_TRUE(valid.contains(*g));
    drawn.insert(*g);
  }
  EXPECT_EQ(drawn, valid);  // 2000 draws of 84 points reach every one
  EXPECT_THROW(gc::search_space(plain.parameters(), nullptr, {{1, 0, 0}, {0, 0, 0}}), std::invalid_argument);  // unsorted
  EXPECT_THROW(gc::search_space(plain.parameters(), nullptr, {{0, 0, 3}}), std::invalid_argument);             // C has 3 values
  EXPECT_THROW(gc::search_space(plain.parameters(), nullptr, {{0, 0}}), std::invalid_argument);                // too short
  EXPECT_FALSE(gc::search_space(plain.parameters(), nullptr, std::vector<gc::genome>{}).sample(r, 10).has_value());
}

TEST(CoreSpace, EnumerateWithoutPredicateVisitsEveryPoint) {
  const gc::search_space space({{"A", {"1", "2"}}, {"B", {"1", "2", "3"}}}, nullptr);
  std::vector<gc::genome> visited;
  space.enumerate([&](const gc::genome& g) {
    visited.push_back(g);
    return true;
  });
  const std::vector<gc::genome> expected = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}};
  EXPECT_EQ(visited, expected);
}

TEST(CoreSpace, UnsatisfiablePredicate) {
  const gc::search_space space({{"A", {"1", "2"}}, {"B", {"3", "4"}}}, [](const gc::genome&) { return false; });
  gc::rng r(7);
  EXPECT_EQ(space.sample(r, 500), std::nullopt);
  EXPECT_EQ(space.count_valid(100), 0u);
  bool called = false;
  space.enumerate([&](const gc::genome&) { return called = true; });
  EXPECT_FALSE(called);
}

TEST(CoreSpace, ToJsonWritesNumbersBareAndEscapesStrings) {
  const gc::search_space space({{"TILE_X", {"64"}},
                                {"SCHEDULE", {"static"}},
                                {"ALPHA", {"-0.5e3"}},
                                {"Q", {"a\"b\\c"}},
                                {"OCT", {"007"}},
                                {"F", {"1.0f"}},
                                {"INF", {"inf"}}},
                               nullptr);
  EXPECT_EQ(space.to_json({0, 0, 0, 0, 0, 0, 0}), R"({"TILE_X":64,"SCHEDULE":"static","ALPHA":-0.5e3,"Q":"a\"b\\c","OCT":"007",)"
                                                  R"("F":"1.0f","INF":"inf"})");
}

TEST(CoreSpace, ValuesAndFromValuesRoundTrip) {
  const auto space = constrained_space();
  space.enumerate([&](const gc::genome& g) {
    const auto back = space.from_values(space.values(g));
    EXPECT_EQ(back, std::optional<gc::genome>(g));
    return true;
  });
  const gc::genome g = {3, 2, 1};
  EXPECT_EQ(space.to_json(g), R"({"A":8,"B":4,"C":"y"})");
  EXPECT_EQ(space.values(g), (std::map<std::string, std::string>{{"A", "8"}, {"B", "4"}, {"C", "y"}}));
  EXPECT_EQ(space.from_values({{"A", "8"}, {"B", "4"}}), std::nullopt);              // missing C
  EXPECT_EQ(space.from_values({{"A", "8"}, {"B", "4"}, {"C", "w"}}), std::nullopt);  // unknown
  EXPECT_EQ(space.from_values({{"A", "3"}, {"B", "4"}, {"C", "x"}}), std::nullopt);
}

TEST(CoreRng, StateRestoreReproducesTheFollowingNumbers) {
  gc::rng a(123);
  for (int i = 0; i < 100; ++i) a.next();
  const std::string saved = a.state();
  std::vector<std::uint64_t> first;
  std::vector<double> first_u;
  for (int i = 0; i < 20; ++i) first.push_back(a.next());
  for (int i = 0; i < 20; ++i) first_u.push_back(a.uniform());

  gc::rng b(999);
  b.restore(saved);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(b.next(), first[i]);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(b.uniform(), first_u[i]);

  a.restore(saved);
  EXPECT_EQ(a.state(), saved);
  EXPECT_EQ(a.next(), first[0]);
}

TEST(CoreRng, RestoreRejectsGarbage) {
  gc::rng r(1);
  const auto before = r.state();
  EXPECT_THROW(r.restore("not a state"), std::invalid_argument);
  EXPECT_THROW(r.restore(""), std::invalid_argument);
  EXPECT_EQ(r.state(), before);
}

TEST(CoreRng, SameSeedSameSequence) {
  gc::rng a(5), b(5), c(6);
  bool differs = false;
  for (int i = 0; i < 10; ++i) {
    const auto x = a.next();
    EXPECT_EQ(x, b.next());
    differs |= x != c.next();
  }
  EXPECT_TRUE(differs);
  for (int i = 0; i < 1000; ++i) {
    const int v = a.below(7);
    EXPECT_GE(v, 0);
    EXPECT_LT(v, 7);
    const double u = a.uniform();
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

TEST(CoreRng, DeriveSeed) {
  std::set<std::uint64_t> seeds;
  for (std::uint64_t island = 0; island < 1000; ++island) seeds.insert(gc::derive_seed(42, island));
  EXPECT_EQ(seeds.size(), 1000u);
  EXPECT_EQ(gc::derive_seed(42, 3), gc::derive_seed(42, 3));
  EXPECT_EQ(gc::derive_seed(42, 3), gc::derive_seed(42, 3, 0));
  EXPECT_EQ(gc::derive_seed(42, 3, 7), gc::derive_seed(42, 3, 7));
  EXPECT_NE(gc::derive_seed(42, 3, 7), gc::derive_seed(42, 3, 8));
  EXPECT_NE(gc::derive_seed(42, 3), gc::derive_seed(43, 3));
  EXPECT_NE(gc::derive_seed(42, 1, 2), gc::derive_seed(42, 2, 1));
  EXPECT_NE(gc::derive_seed(0, 0, 0), 0u);
}
