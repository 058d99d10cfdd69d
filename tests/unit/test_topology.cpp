// Migration graphs: who sends to whom, for every topology a run can ask for.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "core/topology.hpp"

namespace ga = galapagos::core;

TEST(Topology, RingSendsToTheNextIsland) {
  const auto t = ga::migration_targets({"ring", 2}, 4, 1);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0], std::vector<int>{1});
  EXPECT_EQ(t[3], std::vector<int>{0});
}

TEST(Topology, FullSendsToEveryOtherIsland) {
  const auto t = ga::migration_targets({"full", 2}, 4, 1);
  EXPECT_EQ(t[2], (std::vector<int>{0, 1, 3}));
}

TEST(Topology, NoneAndASingleIslandSendNothing) {
  for (const auto& row : ga::migration_targets({"none", 2}, 5, 1)) EXPECT_TRUE(row.empty());
  const auto one = ga::migration_targets({"ring", 2}, 1, 1);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_TRUE(one[0].empty());
}

TEST(Topology, RandomIsASimpleRegularGraphFixedBySeed) {
  for (int n : {4, 8, 17, 64})
    for (int k : {2, 3, 4}) {
      if ((n * k) % 2) continue;
      const auto t = ga::migration_targets({"random", k}, n, 42);
      for (int i = 0; i < n; ++i) {
        const auto& row = t[static_cast<std::size_t>(i)];
        EXPECT_EQ(static_cast<int>(row.size()), std::min(k, n - 1)) << "island " << i << " of " << n;
        EXPECT_TRUE(std::is_sorted(row.begin(), row.end()));
        EXPECT_EQ(std::adjacent_find(row.begin(), row.end()), row.end()) << "double edge";
        for (int j : row) {
          EXPECT_NE(j, i) << "self loop";
          const auto& back = t[static_cast<std::size_t>(j)];
          EXPECT_TRUE(std::binary_search(back.begin(), back.end(), i)) << "edges go both ways";
        }
      }
      EXPECT_EQ(t, ga::migration_targets({"random", k}, n, 42)) << "every rank computes the same graph";
    }
  EXPECT_NE(ga::migration_targets({"random", 3}, 64, 1), ga::migration_targets({"random", 3}, 64, 2));
}

TEST(Topology, ImpossibleGraphsAreErrors) {
  EXPECT_THROW(ga::migration_targets({"random", 3}, 5, 1), std::invalid_argument);  // 15 endpoints
  EXPECT_THROW(ga::migration_targets({"random", 0}, 5, 1), std::invalid_argument);
  EXPECT_THROW(ga::migration_targets({"star", 2}, 5, 1), std::invalid_argument);
  // A degree above islands - 1 means "everyone".
  EXPECT_EQ(ga::migration_targets({"random", 9}, 4, 1), ga::migration_targets({"full", 2}, 4, 1));
}
