// The evaluation path on real candidates: built with the real compiler through the cache, run
// in a real worker, checked against the Kokkos reference.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cmath>

#include "eval/builder.hpp"
#include "eval/evaluator.hpp"
#include "eval/probe.hpp"
#include "eval/symbols.hpp"
#include "families/family.hpp"

namespace ge = galapagos::eval;
namespace gf = galapagos::families;

namespace {

const std::filesystem::path source_dir = GALAPAGOS_SOURCE_DIR;

struct Eval : ::testing::Test {
  static void SetUpTestSuite() {
    family = new gf::family(gf::load_family("stencil3d7", {source_dir / "kernels"}));
    ge::eval_settings s;
    s.fitness_size = "small";
    s.checks.seeds = 1;
    s.timing.min_repetitions = 3;
    s.timing.max_repetitions = 5;
    s.timeout_s = 20;
    s.cache_dir = std::filesystem::temp_directory_path() / "galapagos-test-cache";
    const auto p = ge::probe_machine();
    ev = new ge::evaluator(*family, "cpu", s, p.limits(), 12345);
  }
  static void TearDownTestSuite() {
    delete ev;
    delete family;
  }
  static ge::candidate_source text(const std::string& code) {
    return {source_dir / "tests/data/inline.cpp", code, {}, family->backend("cpu").tmpl.flags, {}};
  }
  static inline gf::family* family = nullptr;
  static inline ge::evaluator* ev = nullptr;
};

const char* copy_only = R"(#include "glp_kernel.h"
GLP_EXPORT int glp_kernel(const glp_arg* a, int, const int64_t* s, void*) {
  const double* u = (const double*)a[0].data; double* v = (double*)a[1].data;
  for (int64_t i = 0; i < s[0] * s[1] * s[2]; ++i) v[i] = u[i];
  return 0;
})";

}  // namespace

TEST_F(Eval, TemplateCandidateIsAcceptedAndTimed) {
  const auto& b = family->backend("cpu");
  const auto m = ev->evaluate({b.tmpl.source, "", {{"TILE_Y", "8"}, {"SIMD", "1"}}, b.tmpl.flags, {}});
  ASSERT_EQ(m.status, "ok") << m.reason;
  EXPECT_GE(m.repetitions, 3);
  EXPECT_GT(m.time_median_s, 0);
  EXPECT_LE(m.time_min_s, m.time_median_s);
  EXPECT_GE(m.time_spread_s, 0);
  EXPECT_LE(m.rel_error, family->tolerance);
  EXPECT_GT(m.roofline_fraction(), 0);
  // Every acceptance size once (one seed), two warm-up runs, and every timed run verified.
  EXPECT_EQ(m.verified_runs, static_cast<int>(family->accept_sizes.size()) + 2 + m.repetitions);
  EXPECT_EQ(m.source_hash.size(), 32u);
}

TEST_F(Eval, WrongCandidateIsRejected) {
  const auto m = ev->evaluate(text(copy_only));
  EXPECT_EQ(m.status, "wrong_result");
  EXPECT_NE(m.reason.find("relative error"), std::string::npos) << m.reason;
  EXPECT_TRUE(std::isnan(m.time_median_s));
  EXPECT_TRUE(std::isnan(m.roofline_fraction()));
}

TEST_F(Eval, CompileErrorIsAStatusWithTheCompilerMessage) {
  const auto m = ev->evaluate(text("int glp_kernel( {"));
  EXPECT_EQ(m.status, "compile_error");
  EXPECT_NE(m.reason.find("error"), std::string::npos);
}

TEST_F(Eval, NothingIsCompiledTwice) {
  ge::builder b("g++", std::filesystem::temp_directory_path() / "galapagos-test-cache-2");
  ge::build_request r;
  r.source = source_dir / "tests/data/inline.cpp";
  r.source_text = std::string(copy_only) + "\n// " + std::to_string(::getpid());
  r.flags = {"-O1"};
  r.defines = {"GLP_X=1"};
  r.include_dirs = {(source_dir / "kernels/include").string()};
  const auto first = b.build(r);
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_FALSE(first.cached);
  const auto second = b.build(r);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(first.shared_object, second.shared_object);
  r.defines = {"GLP_X=2"};  // other flags: another object
  const auto third = b.build(r);
  EXPECT_NE(third.key, first.key);
}

TEST(Symbols, OnlyTheEntryPointMayBeExported) {
  using S = ge::exported_symbol;
  EXPECT_EQ(ge::check_exports({{"glp_kernel", false, true}, {"_init", false, true}}, "glp_kernel"), "");
  EXPECT_EQ(ge::check_exports({{"glp_kernel", false, true}, {"glp_setup", false, true}}, "glp_kernel"), "");
  EXPECT_EQ(ge::check_exports({{"glp_kernel", false, true}, {"_ZNSt6vectorIdSaIdEE9push_backERKd", true, true}}, "glp_kernel"), "");
  EXPECT_NE(ge::check_exports({{"glp_kernel", false, true}, {"clock_gettime", false, true}}, "glp_kernel").find("clock_gettime"), std::string::npos);
  EXPECT_NE(ge::check_exports({{"glp_kernel", false, true}, {"omp_get_wtime", true, true}}, "glp_kernel").find("reserved"), std::string::npos);
  EXPECT_NE(ge::check_exports({{"glp_kernel", false, true}, {"_Znwm", true, true}}, "glp_kernel").find("reserved"), std::string::npos);
  EXPECT_NE(ge::check_exports({{"glp_kernel", false, true}, {"helper", false, true}}, "glp_kernel").find("besides"), std::string::npos);
  EXPECT_NE(ge::check_exports({S{"other", false, true}}, "glp_kernel"), "");
}

TEST(Statistics, MedianMinAndInterquartileRange) {
  const auto s = ge::summarize({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.iqr, 2);
  EXPECT_DOUBLE_EQ(ge::summarize({2, 4}).median, 3);
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
