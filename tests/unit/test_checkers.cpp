// The families' checkers (glp_check) against their references: each shipped reference is built
// the way the evaluator builds it and loaded; the checker must pass the reference's own output,
// fail every wrong one (one element off by a few tolerances, an element not computed, a NaN), and
// report the error the reference comparison reports (stencil3d7 and spmv check exactly).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <vector>

#include "eval/builder.hpp"
#include "glp_kernel.h"
#include "util/build_info.hpp"

namespace ge = galapagos::eval;

namespace {

const std::filesystem::path source_dir = GALAPAGOS_SOURCE_DIR;

using reference_fn = int (*)(const glp_arg*, int, const int64_t*);
using check_fn = int (*)(const glp_arg*, const glp_arg*, int, const int64_t*, uint64_t, double*);

struct family_code {
  reference_fn reference = nullptr;
  check_fn check = nullptr;
};

family_code load(const std::string& family) {
  ge::builder b("g++", std::filesystem::temp_directory_path() / "galapagos-test-cache");
  ge::build_request r;
  r.source = source_dir / "kernels" / family / "reference.cpp";
  r.flags = {"-std=c++17", "-O3", "-march=native"};
  r.include_dirs = {(source_dir / "kernels/include").string(), galapagos::build_info::kokkos_include_dir};
  r.libs = {std::string("-L") + galapagos::build_info::kokkos_lib_dir, "-ltrilinos_kokkoscore", "-ltrilinos_kokkoscontainers"};
  const auto built = b.build(r);
  EXPECT_TRUE(built.ok) << built.log;
  void* h = dlopen(built.shared_object.c_str(), RTLD_NOW | RTLD_LOCAL);
  EXPECT_NE(h, nullptr) << dlerror();
  if (!h) return {};
  return {reinterpret_cast<reference_fn>(dlsym(h, "glp_reference")), reinterpret_cast<check_fn>(dlsym(h, "glp_check"))};
}

std::vector<double> random_values(std::size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<double> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// The reference comparison's error: max|out - ref| / max|ref|.
double reference_error(const std::vector<double>& out, const std::vector<double>& ref) {
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < out.size(); ++i)
    err = std::max(err, std::fabs(out[i] - ref[i])), scale = std::max(scale, std::fabs(ref[i]));
  return err / scale;
}

// A problem and the checker's verdict on an output, the inputs and outputs laid out as the
// evaluator passes them (null where an argument is not an input, resp. not an output).
struct problem {
  std::vector<glp_arg> args;  // the reference's arguments; `out` is the index of the output
  std::vector<int64_t> sizes;
  int out = 0;
  double judge(check_fn check, std::vector<double>& output, uint64_t seed = 7) const {
    std::vector<glp_arg> in = args, o = args;
    for (std::size_t i = 0; i < args.size(); ++i) (static_cast<int>(i) == out ? in[i] : o[i]).data = nullptr;
    o[static_cast<std::size_t>(out)].data = output.data();
    double rel = -1;
    EXPECT_EQ(check(in.data(), o.data(), static_cast<int>(args.size()), sizes.data(), seed, &rel), 0);
    return rel;
  }
};

// Wrong outputs every checker must fail, derived from the reference's output `ref`.
void expect_fails_wrong_outputs(const problem& p, check_fn check, const std::vector<double>& ref, double tolerance) {
  const std::size_t n = ref.size();
  double scale = 0;
  for (double r : ref) scale = std::max(scale, std::fabs(r));
  for (std::size_t at : {std::size_t{0}, n / 2, n - 1}) {
    auto off = ref;
    off[at] += 4 * tolerance * scale;  // one element a few tolerances off
    EXPECT_GT(p.judge(check, off), tolerance) << "element " << at << " off by 4 tolerances";
    auto zero = ref;
    zero[at] = ref[at] == 0 ? scale : 0;  // one element not computed
    EXPECT_GT(p.judge(check, zero), tolerance) << "element " << at << " not computed";
    auto nan = ref;
    nan[at] = NAN;
    EXPECT_FALSE(p.judge(check, nan) <= tolerance) << "NaN at " << at;
  }
}

}  // namespace

TEST(Checkers, Stencil3d7ChecksEveryPointExactly) {
  const auto f = load("stencil3d7");
  ASSERT_TRUE(f.reference && f.check);
  for (const std::vector<int64_t> sizes : {std::vector<int64_t>{37, 29, 23}, {1, 50, 40}, {2, 2, 2}, {101, 3, 37}}) {
    const auto n = static_cast<std::size_t>(sizes[0] * sizes[1] * sizes[2]);
    auto u = random_values(n, 1);
    std::vector<double> ref(n);
    problem p{{glp_arg{u.data(), static_cast<int64_t>(n), GLP_FLOAT64, GLP_IN},
               glp_arg{ref.data(), static_cast<int64_t>(n), GLP_FLOAT64, GLP_OUT}},
              sizes,
              1};
    ASSERT_EQ(f.reference(p.args.data(), 2, sizes.data()), 0);
    auto honest = ref;
    EXPECT_LE(p.judge(f.check, honest), 1e-15);
    expect_fails_wrong_outputs(p, f.check, ref, 1e-12);
    // Every position of a middle row, each in turn off, infinite or NaN: the checker vectorises
    // a row's interior in lanes, and none of them may lose an error.
    const std::size_t row = (n / static_cast<std::size_t>(sizes[0]) / 2) * static_cast<std::size_t>(sizes[0]);
    for (std::size_t i = 0; i < static_cast<std::size_t>(sizes[0]); ++i) {
      auto off = ref;
      off[row + i] += 4e-12;
      EXPECT_GT(p.judge(f.check, off), 1e-12) << "point " << i << " of a middle row";
      off[row + i] = INFINITY;
      EXPECT_FALSE(p.judge(f.check, off) <= 1e-12) << "Inf at point " << i << " of a middle row";
      off[row + i] = NAN;
      EXPECT_FALSE(p.judge(f.check, off) <= 1e-12) << "NaN at point " << i << " of a middle row";
    }
    // Rounding-sized noise: the checker's error is the reference comparison's.
    auto noisy = ref;
    std::mt19937_64 rng(3);
    for (auto& v : noisy) v *= 1 + 1e-14 * std::uniform_real_distribution<double>(-1, 1)(rng);
    EXPECT_NEAR(p.judge(f.check, noisy), reference_error(noisy, ref), 1e-16);
  }
}

TEST(Checkers, SpmvChecksEveryRowExactly) {
  const auto f = load("spmv");
  ASSERT_TRUE(f.reference && f.check);
  // A random CSR matrix with empty rows, long rows and a rectangular shape.
  const int64_t nrows = 3001, ncols = 1777;
  std::mt19937_64 rng(11);
  std::vector<int64_t> row_ptr{0};
  std::vector<int32_t> col_idx;
  for (int64_t i = 0; i < nrows; ++i) {
    const int64_t len = i % 17 == 0 ? 0 : (i % 101 == 0 ? 400 : static_cast<int64_t>(rng() % 9));
    std::vector<int32_t> cols;
    for (int64_t c = 0; c < ncols && static_cast<int64_t>(cols.size()) < len; ++c)
      if (static_cast<int64_t>(rng() % static_cast<uint64_t>(ncols)) < len) cols.push_back(static_cast<int32_t>(c));
    col_idx.insert(col_idx.end(), cols.begin(), cols.end());
    row_ptr.push_back(static_cast<int64_t>(col_idx.size()));
  }
  const auto nnz = static_cast<int64_t>(col_idx.size());
  auto values = random_values(static_cast<std::size_t>(nnz), 12), x = random_values(static_cast<std::size_t>(ncols), 13);
  std::vector<double> ref(static_cast<std::size_t>(nrows));
  problem p{{glp_arg{row_ptr.data(), nrows + 1, GLP_INT64, GLP_IN}, glp_arg{col_idx.data(), nnz, GLP_INT32, GLP_IN},
             glp_arg{values.data(), nnz, GLP_FLOAT64, GLP_IN}, glp_arg{x.data(), ncols, GLP_FLOAT64, GLP_IN},
             glp_arg{ref.data(), nrows, GLP_FLOAT64, GLP_OUT}},
            {nrows, ncols, nnz},
            4};
  ASSERT_EQ(f.reference(p.args.data(), 5, p.sizes.data()), 0);
  auto honest = ref;
  EXPECT_LE(p.judge(f.check, honest), 1e-15);
  // Row 101 (400 entries): one entry left out of its sum.
  auto skipped = ref;
  skipped[101] -= values[static_cast<std::size_t>(row_ptr[101])] *
                  x[static_cast<std::size_t>(col_idx[static_cast<std::size_t>(row_ptr[101])])];
  EXPECT_GT(p.judge(f.check, skipped), 1e-12);
  // An empty row must be 0.
  auto empty_row = ref;
  empty_row[17] = 1e-6;
  EXPECT_GT(p.judge(f.check, empty_row), 1e-12);
  expect_fails_wrong_outputs(p, f.check, ref, 1e-12);
  // A column index out of range is an error of the family's data, not a verdict.
  col_idx[5] = static_cast<int32_t>(ncols);
  std::vector<glp_arg> in = p.args, out = p.args;
  for (int i = 0; i < 4; ++i) out[static_cast<std::size_t>(i)].data = nullptr;
  in[4].data = nullptr;
  double rel = 0;
  EXPECT_NE(f.check(in.data(), out.data(), 5, p.sizes.data(), 1, &rel), 0);
}

TEST(Checkers, GemmFreivaldsFailsWrongProducts) {
  const auto f = load("gemm");
  ASSERT_TRUE(f.reference && f.check);
  const int64_t m = 61, n = 53, k = 47;
  auto a = random_values(static_cast<std::size_t>(m * k), 21), b = random_values(static_cast<std::size_t>(k * n), 22);
  auto c_in = random_values(static_cast<std::size_t>(m * n), 23);
  double alpha = 0.75, beta = -0.5;
  auto ref = c_in;
  problem p{{glp_arg{a.data(), m * k, GLP_FLOAT64, GLP_IN}, glp_arg{b.data(), k * n, GLP_FLOAT64, GLP_IN},
             glp_arg{&alpha, 1, GLP_FLOAT64, GLP_IN}, glp_arg{&beta, 1, GLP_FLOAT64, GLP_IN},
             glp_arg{ref.data(), m * n, GLP_FLOAT64, GLP_INOUT}},
            {m, n, k},
            4};
  ASSERT_EQ(f.reference(p.args.data(), 5, p.sizes.data()), 0);
  // The checker reads C's input from the inputs and the result from the outputs.
  std::vector<glp_arg> in = p.args;
  in[4].data = c_in.data();
  auto judge = [&](std::vector<double>& c_out, uint64_t seed) {
    std::vector<glp_arg> out = p.args;
    for (int i = 0; i < 4; ++i) out[static_cast<std::size_t>(i)].data = nullptr;
    out[4].data = c_out.data();
    double rel = -1;
    EXPECT_EQ(f.check(in.data(), out.data(), 5, p.sizes.data(), seed, &rel), 0);
    return rel;
  };
  auto honest = ref;
  EXPECT_LE(judge(honest, 1), 1e-15);
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    auto off = ref;
    off[static_cast<std::size_t>(seed * 97 % (m * n))] += 1e-10;  // one element off (a single error is never cancelled)
    EXPECT_GT(judge(off, seed), 1e-13);
    auto skipped = ref;  // one row's last product term left out
    const int64_t i = static_cast<int64_t>(seed % m);
    for (int64_t j = 0; j < n; ++j)
      skipped[static_cast<std::size_t>(i * n + j)] -=
          alpha * a[static_cast<std::size_t>(i * k + k - 1)] * b[static_cast<std::size_t>((k - 1) * n + j)];
    EXPECT_GT(judge(skipped, seed), 1e-13);
  }
}

// float32 products are checked in double: an honest product passes far inside the tolerance
// (1e-4), and one element off by 10 tolerances or one row's last term left out fails, with k long
// enough for the checker's partial sums and their tail.
TEST(Checkers, GemmFreivaldsChecksFloat32InDouble) {
  const auto f = load("gemm");
  ASSERT_TRUE(f.reference && f.check);
  for (const int64_t k : {int64_t{47}, int64_t{301}}) {
    const int64_t m = 37, n = 45;
    auto to_float = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
    auto a = to_float(random_values(static_cast<std::size_t>(m * k), 31));
    auto b = to_float(random_values(static_cast<std::size_t>(k * n), 32));
    auto c_in = to_float(random_values(static_cast<std::size_t>(m * n), 33));
    float alpha = 1.25f, beta = 0.5f;
    auto ref = c_in;
    std::vector<glp_arg> args{glp_arg{a.data(), m * k, GLP_FLOAT32, GLP_IN}, glp_arg{b.data(), k * n, GLP_FLOAT32, GLP_IN},
                              glp_arg{&alpha, 1, GLP_FLOAT32, GLP_IN}, glp_arg{&beta, 1, GLP_FLOAT32, GLP_IN},
                              glp_arg{ref.data(), m * n, GLP_FLOAT32, GLP_INOUT}};
    const std::vector<int64_t> sizes{m, n, k};
    ASSERT_EQ(f.reference(args.data(), 5, sizes.data()), 0);
    std::vector<glp_arg> in = args;
    in[4].data = c_in.data();
    auto judge = [&](std::vector<float>& c_out, uint64_t seed) {
      std::vector<glp_arg> out = args;
      for (int i = 0; i < 4; ++i) out[static_cast<std::size_t>(i)].data = nullptr;
      out[4].data = c_out.data();
      double rel = -1;
      EXPECT_EQ(f.check(in.data(), out.data(), 5, sizes.data(), seed, &rel), 0);
      return rel;
    };
    float scale = 0;
    for (float v : ref) scale = std::max(scale, std::fabs(v));
    auto honest = ref;
    EXPECT_LE(judge(honest, 1), 1e-6) << "k = " << k;
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      auto off = ref;
      off[static_cast<std::size_t>(seed * 97 % (m * n))] += 1e-3f * scale;
      EXPECT_GT(judge(off, seed), 1e-4) << "k = " << k;
      auto skipped = ref;
      const int64_t i = static_cast<int64_t>(seed % m);
      for (int64_t j = 0; j < n; ++j)
        skipped[static_cast<std::size_t>(i * n + j)] -=
            alpha * a[static_cast<std::size_t>(i * k + k - 1)] * b[static_cast<std::size_t>((k - 1) * n + j)];
      EXPECT_GT(judge(skipped, seed), 1e-4) << "k = " << k;
    }
  }
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
