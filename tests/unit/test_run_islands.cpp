// The island loop without MPI (src/run): two islands of one run driven in one process, one
// thread each, talking through local mailboxes. Measurements come from the recorded space
// tests/data/spaces/stencil3d7-cpu.h5 (replay mode: nothing is compiled or timed but the
// family's reference), so the islands' choices are reproducible.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/topology.hpp"
#include "eval/family_process.hpp"
#include "run/island_driver.hpp"
#include "run/local_mailbox.hpp"
#include "run/setup.hpp"
#include "store/results_file.hpp"
#include "store/results_reader.hpp"
#include "util/report.hpp"

namespace run = galapagos::run;
namespace fs = std::filesystem;

namespace {

const fs::path spaces = fs::path(GALAPAGOS_SOURCE_DIR) / "tests" / "data" / "spaces";

// Island `rank` of two, replaying the recorded space, as `galapagos run --replay` sets it up.
std::unique_ptr<run::setup> island(int rank, int budget) {
  run::run_overrides o;
  o.budget = budget;
  o.replay = spaces / "stencil3d7-cpu.h5";
  auto s = run::prepare(run::search_start{spaces / "stencil3d7-cpu-space.toml", o, std::nullopt, nullptr}, rank, 2);
  s->probe = run::recorded_probe(*s->replay, rank);
  galapagos::eval::set_reference_time_limit(s->config.eval.timeout_s, s->config.reference_timeout_s);
  s->evaluator =
      std::make_unique<galapagos::eval::evaluator>(s->family, s->config.backend, s->config.eval, s->probe.limits(), 1234);
  s->migration_targets = galapagos::core::migration_targets({"ring", 2}, 2, s->config.seed);
  return s;
}

struct two_islands {
  explicit two_islands(int budget) : s0(island(0, budget)), s1(island(1, budget)) {
    const double baseline_s = 1e-3;                                   // what speedups are over; the choices do not depend on it
    galapagos::report::configure(galapagos::util::verbosity::quiet);  // as `run --quiet`: the summary lines only
    d0 = std::make_unique<run::island_driver>(*s0, migrants.box(0), records.box(0), stop, baseline_s, "openmp_plain");
    d1 = std::make_unique<run::island_driver>(*s1, migrants.box(1), records.box(1), stop, baseline_s, "openmp_plain");
  }
  // Runs both islands to their ends, island 0 writing every record into `path`.
  void run(const fs::path& path) {
    auto file = std::make_unique<galapagos::store::results_file>(
        galapagos::store::results_file::create(path.string(), {{"galapagos_version", "test"}}));
    std::thread other([&] {
      d1->run(nullptr);
      d1->leave();
    });
    d0->run(file.get());
    d0->leave();
    other.join();
    d0->drain_records();
    file->close();
  }
  run::local_post migrants{2}, records{2};
  run::local_stop stop;
  std::unique_ptr<run::setup> s0, s1;
  std::unique_ptr<run::island_driver> d0, d1;
};

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("galapagos-run-islands-" + std::to_string(getpid()));
  fs::create_directories(dir);
  return dir / name;
}

}  // namespace

TEST(RunIslands, TwoIslandsInOneProcessSpendTheirBudgetsAndExchangeElites) {
  two_islands t(16);
  const fs::path out = scratch("two.h5");
  t.run(out);
  EXPECT_TRUE(t.d0->completed());
  EXPECT_TRUE(t.d1->completed());
  const auto f = galapagos::store::results_reader::open(out.string());
  const auto island = f.integers("/candidates", "island");
  EXPECT_EQ(std::count(island.begin(), island.end(), 0), 16) << "island 0 evaluates its budget";
  EXPECT_EQ(std::count(island.begin(), island.end(), 1), 16) << "island 1's records reach island 0's file";
  const auto from = f.integers("/migrations", "from_island"), to = f.integers("/migrations", "to_island");
  ASSERT_FALSE(from.empty()) << "elites migrate";
  for (std::size_t i = 0; i < from.size(); ++i) EXPECT_EQ(to[i], 1 - from[i]) << "a ring of two: each sends to the other";
  EXPECT_GT(std::count(from.begin(), from.end(), 0), 0) << "island 0 sends elites";
  EXPECT_GT(std::count(from.begin(), from.end(), 1), 0) << "island 1 sends elites";
  ASSERT_TRUE(t.d0->best_row());
  EXPECT_EQ(t.d0->best_row()->status, "ok");
  fs::remove_all(out.parent_path());
}

TEST(RunIslands, ReplayedIslandsMakeTheSameChoicesEveryTime) {
  std::vector<std::vector<std::string>> params;
  for (int k = 0; k < 2; ++k) {
    two_islands t(12);
    const fs::path out = scratch("again" + std::to_string(k) + ".h5");
    t.run(out);
    params.push_back(galapagos::store::results_reader::open(out.string()).strings("/candidates", "params"));
  }
  EXPECT_EQ(params[0].size(), 24u);
  auto sorted = params;  // the two islands' rows interleave by arrival; each island's choices are fixed
  for (auto& p : sorted) std::sort(p.begin(), p.end());
  EXPECT_EQ(sorted[0], sorted[1]);
  fs::remove_all(scratch("x").parent_path());
}

TEST(RunIslands, AStopRequestEndsBothIslandsEarly) {
  two_islands t(400);
  t.stop.request();
  const fs::path out = scratch("stopped.h5");
  t.run(out);
  EXPECT_FALSE(t.d0->completed());
  EXPECT_FALSE(t.d1->completed());
  const auto island = galapagos::store::results_reader::open(out.string()).integers("/candidates", "island");
  EXPECT_LT(island.size(), 800u);
  fs::remove_all(out.parent_path());
}
