// Source variants (propose/llm/variant.hpp) and the model ensemble (ensemble.hpp).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "core/rng.hpp"
#include "propose/llm/ensemble.hpp"
#include "propose/llm/variant.hpp"

namespace gp = galapagos::propose;
namespace gc = galapagos::core;

namespace {
const std::vector<gc::parameter> base = {{"TILE", {"8", "16"}}, {"UNROLL", {"1", "2", "4"}}};
}

TEST(LlmVariant, DeclaredParametersAreReadFromComments) {
  const std::string src =
      "// galapagos:evolve-begin\n"
      "  // galapagos:param BLOCK = [64, 256, 1024]\n"
      "#ifndef GLP_BLOCK\n#define GLP_BLOCK 256\n#endif\n"
      "  /* galapagos:param MODE = [fast, exact] */\n"
      "// galapagos:evolve-end\n";
  const auto d = gp::parse_declared_params(src, base);
  EXPECT_TRUE(d.problems.empty());
  ASSERT_EQ(d.params.size(), 2u);
  EXPECT_EQ(d.params[0].name, "BLOCK");
  EXPECT_EQ(d.params[0].values, (std::vector<std::string>{"64", "256", "1024"}));
  EXPECT_EQ(d.params[1].name, "MODE");
  EXPECT_EQ(d.params[1].values, (std::vector<std::string>{"fast", "exact"}));
  EXPECT_EQ(gp::default_value_index(src, d.params[0]), 1);  // #define GLP_BLOCK 256
  EXPECT_EQ(gp::default_value_index(src, d.params[1]), 0);  // no default: the first value
}

TEST(LlmVariant, TheTemplatesPointIsItsDefinesWhenEveryOneIsListedAndValid) {
  // TILE * UNROLL stays below 64: TILE 16 with UNROLL 4 breaks it.
  const gc::search_space space(base, [](const gc::genome& g) { return !(g[0] == 1 && g[1] == 2); });
  const std::string both = "#ifndef GLP_TILE\n#define GLP_TILE 16\n#endif\n#  define  GLP_UNROLL 2\n";
  EXPECT_EQ(gp::defined_point(both, space), (gc::genome{1, 1}));
  EXPECT_FALSE(gp::defined_point("#define GLP_TILE 16\n", space));                        // UNROLL undefined
  EXPECT_FALSE(gp::defined_point("#define GLP_TILE 32\n#define GLP_UNROLL 2\n", space));  // 32 not listed
  EXPECT_FALSE(gp::defined_point("#define GLP_TILEX 8\n#define GLP_UNROLL 2\n", space));  // another name
  EXPECT_FALSE(gp::defined_point("#define GLP_TILE 16\n#define GLP_UNROLL 4\n", space));  // breaks the constraint
  EXPECT_EQ(gp::defined_point("#define GLP_TILE 8\n#define GLP_UNROLL 4\n", space), (gc::genome{0, 2}));
}

TEST(LlmVariant, APreprocessedListFollowsADefaultGivenThroughAnotherMacro) {
  const gc::search_space space(base, [](const gc::genome&) { return true; });
  // As `g++ -E -dM` lists a build's macros: every name once, the conditionals resolved.
  const std::string listed =
      "#define GLP_DEF_UNROLL 4\n#define GLP_TILE GLP_DEF_TILE\n#define GLP_UNROLL GLP_DEF_UNROLL\n"
      "#define GLP_DEF_TILE GLP_WIDE_TILE\n#define GLP_WIDE_TILE 16\n";
  EXPECT_EQ(gp::defined_point(listed, space, true), (gc::genome{1, 2}));
  EXPECT_FALSE(gp::defined_point(listed, space));  // raw text: another macro's name is no value
  EXPECT_FALSE(gp::defined_point("#define GLP_TILE GLP_TILE\n#define GLP_UNROLL 2\n", space, true));  // a loop ends
  EXPECT_FALSE(gp::defined_point("#define GLP_TILE GLP_NOWHERE\n#define GLP_UNROLL 2\n", space, true));
  EXPECT_FALSE(gp::defined_point("#define GLP_TILE (16)\n#define GLP_UNROLL 2\n", space, true));  // not a name
}

TEST(LlmVariant, BadDeclarationsAreRefusedWithAReason) {
  std::string src =
      "// galapagos:param TILE = [4, 8]\n"  // a template parameter
      "// galapagos:param lower = [1]\n"    // not capitals
      "// galapagos:param A = [1, 2]\n"
      "// galapagos:param A = [3]\n"          // repeated
      "// galapagos:param B = [1; rm -rf]\n"  // not a value
      "// galapagos:param C = []\n";          // no values
  const auto d = gp::parse_declared_params(src, base);
  ASSERT_EQ(d.params.size(), 1u);
  EXPECT_EQ(d.params[0].name, "A");
  ASSERT_EQ(d.problems.size(), 5u);
  EXPECT_NE(d.problems[0].find("line 1: parameter TILE already exists"), std::string::npos);
  EXPECT_NE(d.problems[1].find("line 2"), std::string::npos);
  for (int i = 0; i < 20; ++i) src += "// galapagos:param P" + std::to_string(i) + " = [1]\n";
  EXPECT_EQ(gp::parse_declared_params(src, base).params.size(), static_cast<std::size_t>(gp::max_declared_params));
}

TEST(LlmVariant, TheProgramTextIgnoresCommentsAndBlanksOnly) {
  const std::string a = "#define GLP_X 4\n// galapagos:param X = [2, 4]\nint f(int v) {\n  return v * GLP_X; // times X\n}\n";
  const std::string same =
      "/* a rewrite */\n#define GLP_X 4\n//   galapagos:param X = [2, 4]\n\nint  f(int v)\n{\n"
      "\treturn v*GLP_X;\n}\n";
  EXPECT_EQ(gp::program_text(a), gp::program_text(a + "\n\n// the end\n"));
  EXPECT_EQ(gp::program_text("int f(int v) {  return v; }   // x\n"),
            gp::program_text("\tint   f(int v) { /* y */ return v; }\n"));
  // Line breaks and the blanks between tokens stay where a preprocessor or a literal needs them.
  EXPECT_NE(gp::program_text(a), gp::program_text(same));
  // Code, a declaration, a literal's content: each makes another program.
  EXPECT_NE(gp::program_text(a), gp::program_text("#define GLP_X 8\n// galapagos:param X = [2, 4]\nint f(int v) {\n"
                                                  "  return v * GLP_X;\n}\n"));
  EXPECT_NE(gp::program_text(a), gp::program_text("#define GLP_X 4\n// galapagos:param X = [2, 4, 8]\nint f(int v) {\n"
                                                  "  return v * GLP_X;\n}\n"));
  EXPECT_NE(gp::program_text("const char* s = \"a  // b\";\n"), gp::program_text("const char* s = \"a // b\";\n"));
  EXPECT_EQ(gp::program_text("const char* s = \"a // b\"; // c\n"), "const char* s = \"a // b\";\n");
  EXPECT_EQ(gp::program_text("char q = '\\''; /* x */ int y;\n"), "char q = '\\''; int y;\n");
}

TEST(LlmVariant, TheVariantSpaceKeepsTheTemplateConstraints) {
  const gc::search_space b(base, [](const gc::genome& g) { return !(g[0] == 1 && g[1] == 2); });
  const auto v = gp::variant_space(b, {{"BLOCK", {"64", "256"}}});
  ASSERT_EQ(v->parameters().size(), 3u);
  EXPECT_TRUE(v->is_valid({0, 2, 1}));
  EXPECT_FALSE(v->is_valid({1, 2, 0}));  // the template's constraint on its leading genes
  EXPECT_FALSE(v->is_valid({0, 0, 2}));  // out of range
  EXPECT_EQ(v->count_valid(100), 10u);
}

TEST(LlmEnsemble, WithoutTheBanditTheWeightsDecide) {
  gp::ensemble e({1.0, 3.0}, false);
  e.reward(0, 5.0, 1.0);
  const auto p = e.shares();
  EXPECT_DOUBLE_EQ(p[0], 0.25);
  EXPECT_DOUBLE_EQ(p[1], 0.75);
  gc::rng r(1);
  int second = 0;
  for (int i = 0; i < 4000; ++i) second += e.pick(r);
  EXPECT_NEAR(second / 4000.0, 0.75, 0.03);
  EXPECT_THROW(gp::ensemble({}, false), std::invalid_argument);
  EXPECT_THROW(gp::ensemble({1.0, 0.0}, false), std::invalid_argument);
}

TEST(LlmEnsemble, TheBanditMovesWeightToTheModelThatImprovesMostPerCost) {
  gp::ensemble e({1.0, 1.0}, true);
  EXPECT_DOUBLE_EQ(e.shares()[0], 0.5);  // nothing known yet
  // Model 0 is cheap but never improves; model 1 costs twice as much and improves.
  for (int i = 0; i < 5; ++i) {
    e.reward(0, 0.0, 1.0);
    e.reward(1, 0.3, 2.0);
  }
  const auto p = e.shares();
  EXPECT_GT(p[1], 0.9);
  EXPECT_GT(p[0], 0.0);  // still explored now and then
  EXPECT_EQ(e.calls(1), 5);
  // A newcomer under its warm-up is tried as if it were the best.
  gp::ensemble f({1.0, 1.0, 1.0}, true);
  for (int i = 0; i < 3; ++i) f.reward(0, 0.5, 1.0), f.reward(1, 0.0, 1.0);
  EXPECT_GT(f.shares()[2], f.shares()[1]);
}

TEST(LlmEnsemble, ItsStatisticsSurviveACheckpoint) {
  gp::ensemble e({1.0, 2.0}, true);
  for (int i = 0; i < 4; ++i) e.reward(0, 0.0, 1.0), e.reward(1, 0.4, 1.5);
  gp::ensemble restored({1.0, 2.0}, true);
  restored.restore(e.state());
  EXPECT_EQ(restored.shares(), e.shares());
  EXPECT_EQ(restored.calls(1), 4);
  EXPECT_NE(restored.shares(), gp::ensemble({1.0, 2.0}, true).shares());  // a fresh bandit differs
  gp::ensemble three({1.0, 1.0, 1.0}, true);
  EXPECT_THROW(three.restore(e.state()), std::invalid_argument);  // another number of models
  EXPECT_THROW(restored.restore("not json"), std::invalid_argument);
  EXPECT_THROW(restored.restore(R"([{"calls": 1, "gain": -1, "cost": 0}, {"calls": 0, "gain": 0, "cost": 0}])"),
               std::invalid_argument);
  EXPECT_EQ(restored.calls(1), 4);  // a refused state changes nothing
}
