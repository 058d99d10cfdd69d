// The noise warning under the winner (run/final_comparison.hpp): the baseline drifting during
// the search, the islands' ceiling probes disagreeing, and the winner's interquartile range
// overlapping the fastest baseline's each give their figures; a steady node gives nothing.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "run/final_comparison.hpp"

using galapagos::run::describe_noise;
using galapagos::run::search_noise;

namespace {

search_noise steady() {
  search_noise n;
  n.baseline = "openmp_plain";
  n.baseline_min_s = 10e-3;
  n.baseline_max_s = 11e-3;  // 1.10x: within the limit
  n.bandwidth_min_gbs = 30;
  n.bandwidth_max_gbs = 33;
  n.peak_min_gflops = 80;
  n.peak_max_gflops = 90;
  return n;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST(noise, a_steady_node_and_a_clear_win_say_nothing) {
  // Winner 5 ms +- 0.25 ms against 10 ms +- 0.5 ms: far apart.
  EXPECT_EQ(describe_noise(steady(), 5e-3, 0.5e-3, "openmp_plain", 10e-3, 1e-3), "");
}

TEST(noise, a_drifting_baseline_is_named_with_its_range) {
  auto n = steady();
  n.baseline_min_s = 6.88e-3;
  n.baseline_max_s = 12.66e-3;
  const auto text = describe_noise(n, 5e-3, 0.5e-3, "openmp_plain", 10e-3, 1e-3);
  EXPECT_TRUE(has(text, "openmp_plain timed between 6.880 ms and 12.660 ms during the search (1.84x)")) << text;
  EXPECT_TRUE(has(text, "the speedup is uncertain")) << text;
  EXPECT_FALSE(has(text, "probes")) << text;
}

TEST(noise, disagreeing_probes_are_named_with_their_figures) {
  auto n = steady();
  n.bandwidth_min_gbs = 20;
  n.bandwidth_max_gbs = 43;
  const auto text = describe_noise(n, 5e-3, 0.5e-3, "openmp_plain", 10e-3, 1e-3);
  EXPECT_TRUE(has(text, "bandwidth probes between 20 and 43 GB/s (2.15x)")) << text;
  EXPECT_FALSE(has(text, "arithmetic")) << text;
  // An island without a probe of its own (0 / +inf after the reduction) is no disagreement.
  auto none = steady();
  none.peak_min_gflops = std::numeric_limits<double>::infinity();
  none.peak_max_gflops = 0;
  EXPECT_EQ(describe_noise(none, 5e-3, 0.5e-3, "openmp_plain", 10e-3, 1e-3), "");
}

TEST(noise, overlapping_interquartile_ranges_are_named) {
  // Winner 9.5 ms with IQR 1 ms (9-10 ms) against 10 ms with IQR 1 ms (9.5-10.5 ms).
  const auto text = describe_noise(steady(), 9.5e-3, 1e-3, "openmp_plain", 10e-3, 1e-3);
  EXPECT_TRUE(
      has(text, "the winner's interquartile range (9.000 ms to 10.000 ms) overlaps openmp_plain's (9.500 ms to 10.500 ms)"))
      << text;
  // A winner that failed its final check (NaN) has no range to compare.
  EXPECT_EQ(describe_noise(steady(), NAN, NAN, "openmp_plain", 10e-3, 1e-3), "");
}

TEST(noise, every_cause_goes_into_one_sentence) {
  auto n = steady();
  n.baseline_max_s = 20e-3;
  n.peak_max_gflops = 200;
  const auto text = describe_noise(n, 9.5e-3, 1e-3, "openmp_plain", 10e-3, 1e-3);
  EXPECT_EQ(text.find("the node's measurements moved during the run: "), 0u) << text;
  EXPECT_TRUE(has(text, "(2.00x); the islands' arithmetic probes between 80 and 200 GFLOP/s (2.50x); the winner's")) << text;
  EXPECT_EQ(text.find('\n'), std::string::npos);
}
