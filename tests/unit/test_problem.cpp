// A problem's inputs and their staging in the shared arena: heavy-tailed magnitudes as accurate
// as libm's, every redraw landing in the arena, and an input skipped by stage() (the arena still
// held it) never hiding a change: whatever touched the arena after the last comparison is found.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "eval/arena.hpp"
#include "eval/family_process.hpp"
#include "eval/problem.hpp"
#include "families/family.hpp"

namespace ge = galapagos::eval;
namespace gf = galapagos::families;

namespace {

const std::filesystem::path kernels = std::filesystem::path(GALAPAGOS_SOURCE_DIR) / "kernels";

struct Problem : ::testing::Test {
  gf::family family = gf::load_family("stencil3d7", {kernels});
  gf::sizes small{17, 9, 31}, other{33, 65, 7};
  ge::arena shared{ge::problem::arena_bytes(family, other)};
  ge::family_process code{family, &ge::problem::serve};
  double* u() const { return reinterpret_cast<double*>(shared.data()); }
  // What a candidate's run leaves: v written (a copy of u), the arena's inputs as they are.
  static void run(ge::problem& p, std::int64_t n, double* arena_u) {
    p.run_request();
    std::memcpy(arena_u + ge::arena::align(static_cast<std::size_t>(n) * 8) / 8, arena_u, static_cast<std::size_t>(n) * 8);
  }
};

}  // namespace

TEST(InverseCubeRoot, WithinFourUlpsOfLibmOverTheWholeRange) {
  double worst = 0;
  for (double u = 0x1.0p-54; u <= 1; u *= 1.000173)
    worst = std::max(worst, std::fabs(ge::detail::inverse_cube_root(u) * std::cbrt(u) - 1));
  EXPECT_LT(worst, 1e-15);
  EXPECT_EQ(ge::detail::inverse_cube_root(1.0), 1.0);
  EXPECT_NEAR(ge::detail::inverse_cube_root(0.125), 2.0, 4e-16);
}

TEST_F(Problem, ARedrawLandsInTheArenaAndIsComparedAfterEveryRun) {
  ge::problem p(family, small, shared, code);
  const std::int64_t n = 17 * 9 * 31;
  p.fill(1, 2);  // heavy-tailed
  p.stage();
  run(p, n, u());
  EXPECT_EQ(p.verify(ge::problem::judge::basic).status, ge::candidate_status::ok);
  for (std::uint64_t seed = 2; seed < 8; ++seed) {
    const double before = u()[5];
    p.redraw(seed);
    EXPECT_NE(u()[5], before) << "the redraw went to the arena as well";
    p.stage();
    run(p, n, u());
    EXPECT_EQ(p.verify(ge::problem::judge::basic).status, ge::candidate_status::ok);
  }
  // The inputs are intact now; a run that writes one of them is caught although stage() had
  // nothing to copy before it.
  p.stage();
  p.run_request();
  u()[n - 1] += 1;
  std::memcpy(u() + ge::arena::align(static_cast<std::size_t>(n) * 8) / 8, u(), static_cast<std::size_t>(n) * 8);
  EXPECT_EQ(p.verify(ge::problem::judge::basic).status, ge::candidate_status::input_modified);
  // The next stage puts the private copy back.
  p.stage();
  run(p, n, u());
  EXPECT_EQ(p.verify(ge::problem::judge::basic).status, ge::candidate_status::ok);
}

TEST_F(Problem, AnotherProblemStagedInBetweenMakesStageCopyAgain) {
  ge::problem a(family, small, shared, code), b(family, other, shared, code);
  const std::int64_t na = 17 * 9 * 31, nb = 33 * 65 * 7;
  a.fill(1, 0);
  a.stage();
  run(a, na, u());
  ASSERT_EQ(a.verify(ge::problem::judge::basic).status, ge::candidate_status::ok);
  b.fill(2, 1);  // b's layout over the same arena
  b.stage();
  run(b, nb, u());
  ASSERT_EQ(b.verify(ge::problem::judge::basic).status, ge::candidate_status::ok);
  a.stage();  // a's inputs were overwritten by b's: copied again
  run(a, na, u());
  EXPECT_EQ(a.verify(ge::problem::judge::basic).status, ge::candidate_status::ok);
  a.redraw(3);
  a.stage();
  run(a, na, u());
  EXPECT_EQ(a.verify(ge::problem::judge::basic).status, ge::candidate_status::ok);
}

// The output checks stream whole arguments in vectorised chunks (and the poison goes in with
// streaming stores): an element left unwritten, NaN or infinite is found at every position of a
// slot, at the ends of chunks and lanes and in the tail, in an aligned arena and one whose slots
// start 8 bytes past a page boundary; the determinism check sees a change of one element anywhere.
TEST(ProblemOutputs, EveryBadElementIsFoundWhereverItIs) {
  const gf::family family = gf::load_family("stencil3d7", {kernels});
  const gf::sizes sizes{17, 9, 31};
  const std::int64_t n = 17 * 9 * 31;
  ge::family_process code{family, &ge::problem::serve};
  for (const std::size_t misalign : {std::size_t{0}, std::size_t{8}}) {
    ge::arena shared{ge::problem::arena_bytes(family, sizes, misalign), 1, misalign};
    ge::problem p(family, sizes, shared, code);
    p.fill(1, 1);
    double* u = reinterpret_cast<double*>(shared.data() + misalign);
    double* v =
        reinterpret_cast<double*>(shared.data() + ge::arena::slot_bytes(static_cast<std::size_t>(n) * 8, misalign) + misalign);
    for (const std::int64_t at :
         {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, std::int64_t{8}, std::int64_t{9}, n / 2, n - 9, n - 2, n - 1}) {
      p.stage();  // v poisoned
      p.run_request();
      for (std::int64_t i = 0; i < n; ++i)
        if (i != at) v[i] = u[i];  // every element but one written
      auto verdict = p.verify(ge::problem::judge::basic);
      EXPECT_EQ(verdict.status, ge::candidate_status::wrong_result) << "misalign " << misalign << ", element " << at;
      EXPECT_NE(verdict.reason.find("1 elements not written"), std::string::npos) << verdict.reason;
      for (const double bad : {NAN, INFINITY, -INFINITY}) {
        v[at] = bad;
        verdict = p.verify(ge::problem::judge::basic);
        EXPECT_EQ(verdict.status, ge::candidate_status::wrong_result) << "misalign " << misalign << ", element " << at;
        EXPECT_NE(verdict.reason.find("0 elements not written, 1 NaN/Inf"), std::string::npos) << verdict.reason;
      }
      v[at] = u[at];
      EXPECT_EQ(p.verify(ge::problem::judge::basic).status, ge::candidate_status::ok);
      p.snapshot_outputs();
      EXPECT_EQ(p.max_difference_ulps(), 0.0);
      v[at] = std::nextafter(v[at], 2.0);
      EXPECT_GT(p.max_difference_ulps(), 0.0) << "misalign " << misalign << ", element " << at;
      v[at] = NAN;
      EXPECT_EQ(p.max_difference_ulps(), INFINITY) << "misalign " << misalign << ", element " << at;
    }
  }
}

// The determinism check counts in ulps of the output's own precision: float32 outputs that differ
// in their last bits (atomic additions in another order) are within the 64-ulp threshold, as
// float64 ones are; a difference far beyond float32's precision is not, nor is one element
// changed by a float64 ulp in a float64 output counted as more than a float64 ulp.
TEST(ProblemOutputs, DeterminismIsCountedInTheOutputsOwnUlps) {
  const gf::family family = gf::load_family("gemm_f32", {kernels});
  const gf::sizes sizes{13, 11, 7};  // m, n, k: C is m x n, the last argument
  ge::family_process code{family, &ge::problem::serve};
  ge::arena shared{ge::problem::arena_bytes(family, sizes)};
  ge::problem p(family, sizes, shared, code);
  p.fill(3, 1);
  p.stage();
  p.run_request();
  std::size_t c_offset = 0;
  for (const std::int64_t count : {13 * 7, 7 * 11, 1, 1})
    c_offset += ge::arena::slot_bytes(static_cast<std::size_t>(count) * 4, 0);
  float* C = reinterpret_cast<float*>(shared.data() + c_offset);
  for (int i = 0; i < 13 * 11; ++i) C[i] = 1.0f + static_cast<float>(i % 17) / 17.0f;  // scale within [1, 2)
  p.snapshot_outputs();
  EXPECT_EQ(p.max_difference_ulps(), 0.0);
  C[5] = std::nextafter(C[5], 4.0f);  // one float32 ulp of an element below the scale
  EXPECT_GT(p.max_difference_ulps(), 0.0);
  EXPECT_LE(p.max_difference_ulps(), 1.0);
  C[5] *= 1.0f + 8 * std::numeric_limits<float>::epsilon();
  EXPECT_LT(p.max_difference_ulps(), 64.0);
  C[7] *= 1.0f + 1e-4f;  // about 840 float32 ulps
  EXPECT_GT(p.max_difference_ulps(), 64.0);
}
