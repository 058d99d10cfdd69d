// SEARCH/REPLACE edits from a model's answer, applied inside evolve regions only.
#include <gtest/gtest.h>

#include <stdexcept>

#include "propose/llm/edits.hpp"

namespace gp = galapagos::propose;

namespace {

const std::string kernel = R"(#include "glp_kernel.h"
static double scale = 2.0;
// galapagos:evolve-begin
static void sweep(const double* u, double* v, long n) {
  for (long i = 0; i < n; ++i)
    v[i] = scale * u[i];
}
// galapagos:evolve-end
GLP_EXPORT int glp_kernel(const glp_arg* a, int, const int64_t* s, void*) {
  sweep((const double*)a[0].data, (double*)a[1].data, s[0]);
  return 0;
}
)";

std::string block(const std::string& search, const std::string& replace) {
  return "<<<<<<< SEARCH\n" + search + "=======\n" + replace + ">>>>>>> REPLACE\n";
}

}  // namespace

TEST(LlmEdits, ParsesEveryBlockAndReportsMalformedOnes) {
  const auto p = gp::parse_edits("Here is my change:\n" + block("a\n", "b\n") + "and another\n" + block("c\nd\n", "") +
                                 "<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n<<<<<<< SEARCH\ny\n=======\n");
  ASSERT_EQ(p.blocks.size(), 2u);
  EXPECT_EQ(p.blocks[0].search, "a\n");
  EXPECT_EQ(p.blocks[0].replace, "b\n");
  EXPECT_EQ(p.blocks[1].search, "c\nd\n");
  EXPECT_EQ(p.blocks[1].replace, "");
  ASSERT_EQ(p.problems.size(), 2u);
  EXPECT_NE(p.problems[0].find("no ======="), std::string::npos) << p.problems[0];
  EXPECT_NE(p.problems[1].find("ends inside"), std::string::npos) << p.problems[1];
}

TEST(LlmEdits, AppliesInsideTheRegionWhateverTheWhiteSpace) {
  // Other indentation, a tab and trailing blanks in the SEARCH part still match.
  const auto p = gp::parse_edits(block("for (long i = 0; i < n; ++i)\n\tv[i] =  scale * u[i];   \n",
                                       "  #pragma omp simd\n  for (long i = 0; i < n; ++i)\n    v[i] = u[i] + u[i];\n"));
  const auto r = gp::apply_edits(kernel, p.blocks);
  ASSERT_EQ(r.applied(), 1) << r.outcomes[0].reason;
  EXPECT_NE(r.source.find("#pragma omp simd\n  for (long i = 0; i < n; ++i)\n    v[i] = u[i] + u[i];\n}"), std::string::npos)
      << r.source;
  EXPECT_EQ(r.source.find("scale * u[i]"), std::string::npos);
  EXPECT_NE(r.source.find("static double scale = 2.0;"), std::string::npos);  // outside: untouched
}

TEST(LlmEdits, BlocksThatCannotApplySayWhyAndTheOthersStillApply) {
  const std::vector<gp::edit_block> blocks = {
      {"static double scale = 2.0;\n", "static double scale = 3.0;\n"},  // outside the region
      {"v[i] = scale * u[i];\n", "v[i] = 2.0 * u[i];\n"},                // applies
      {"return 42;\n", "return 0;\n"},                                   // nowhere
      {"\n\n", "x\n"},                                                   // empty
      {"    v[i] = 2.0 * u[i];\n", "// galapagos:evolve-end\n"},         // would move a marker
  };
  const auto r = gp::apply_edits(kernel, blocks);
  ASSERT_EQ(r.outcomes.size(), 5u);
  EXPECT_FALSE(r.outcomes[0].applied);
  EXPECT_NE(r.outcomes[0].reason.find("outside the evolve regions"), std::string::npos) << r.outcomes[0].reason;
  EXPECT_TRUE(r.outcomes[1].applied) << r.outcomes[1].reason;
  EXPECT_NE(r.outcomes[2].reason.find("not in the source"), std::string::npos);
  EXPECT_NE(r.outcomes[3].reason.find("empty"), std::string::npos);
  EXPECT_NE(r.outcomes[4].reason.find("marker"), std::string::npos);
  EXPECT_EQ(r.applied(), 1);
  EXPECT_NE(r.source.find("v[i] = 2.0 * u[i];"), std::string::npos);
  EXPECT_NE(r.source.find("static double scale = 2.0;"), std::string::npos);
}

TEST(LlmEdits, AnAmbiguousBlockIsNotApplied) {
  const std::string src = "// galapagos:evolve-begin\nx = 1;\ny = 2;\nx = 1;\n// galapagos:evolve-end\n";
  const auto r = gp::apply_edits(src, {{"x = 1;\n", "x = 3;\n"}});
  EXPECT_FALSE(r.outcomes[0].applied);
  EXPECT_NE(r.outcomes[0].reason.find("matches 2 places"), std::string::npos);
  EXPECT_EQ(r.source, src);
  const auto more = gp::apply_edits(src, {{"y = 2;\nx = 1;\n", "y = 2;\nx = 3;\n"}});
  EXPECT_TRUE(more.outcomes[0].applied);
  EXPECT_EQ(more.source, "// galapagos:evolve-begin\nx = 1;\ny = 2;\nx = 3;\n// galapagos:evolve-end\n");
}

TEST(LlmEdits, OpenEvolveMarkersMarkRegionsToo) {
  std::string source = kernel;
  source.replace(source.find("// galapagos:evolve-begin"), 25, "// EVOLVE-BLOCK-START");
  source.replace(source.find("// galapagos:evolve-end"), 23, "// EVOLVE-BLOCK-END");
  ASSERT_EQ(source.find("galapagos:evolve"), std::string::npos);
  const auto inside = gp::apply_edits(source, {{"v[i] = scale * u[i];\n", "v[i] = 2.0 * u[i];\n"}});
  ASSERT_EQ(inside.applied(), 1) << inside.outcomes[0].reason;
  EXPECT_NE(inside.source.find("v[i] = 2.0 * u[i];"), std::string::npos);
  const auto outside = gp::apply_edits(source, {{"static double scale = 2.0;\n", "static double scale = 3.0;\n"}});
  EXPECT_EQ(outside.applied(), 0);
  const auto marker = gp::apply_edits(source, {{"v[i] = scale * u[i];\n", "v[i] = u[i];\n// EVOLVE-BLOCK-END\n"}});
  EXPECT_EQ(marker.applied(), 0) << "a replacement may not add or remove a region's marker";
}

TEST(LlmEdits, WithoutRegionsOnlyWholeFileModeEdits) {
  const std::string src = "int a = 1;\nint b = 2;\n";
  EXPECT_THROW(gp::apply_edits(src, {{"int a = 1;\n", "int a = 5;\n"}}), std::invalid_argument);
  const auto r = gp::apply_edits(src, {{"int a = 1;\n", "int a = 5;\n"}}, true);
  EXPECT_EQ(r.source, "int a = 5;\nint b = 2;\n");
  EXPECT_THROW(gp::apply_edits("// galapagos:evolve-begin\nx\n", {}), std::invalid_argument);  // never closed
}
