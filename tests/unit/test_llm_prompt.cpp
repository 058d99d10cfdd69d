// Prompt templates: placeholders filled, a missing value or an unclosed placeholder is an error
// naming the template; the shipped templates use only the placeholders the proposer provides.
#include <gtest/gtest.h>

#include <map>

#include <algorithm>
#include <filesystem>

#include "propose/llm/prompt.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace gp = galapagos::propose;

TEST(LlmPrompt, FillsEveryPlaceholder) {
  EXPECT_EQ(gp::render_prompt("Family {{family}} on {{ hardware }}; again {{family}}.",
                              {{"family", "spmv"}, {"hardware", "H200"}}, "t.md"),
            "Family spmv on H200; again spmv.");
  EXPECT_EQ(gp::render_prompt("no placeholders", {}, "t.md"), "no placeholders");
}

TEST(LlmPrompt, MissingValuesAndUnclosedPlaceholdersNameTheTemplate) {
  try {
    gp::render_prompt("line one\nuses {{elites}}", {{"family", "x"}}, "configs/prompts/variation.md");
    FAIL();
  } catch (const galapagos::error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("configs/prompts/variation.md"), std::string::npos) << what;
    EXPECT_NE(what.find("line 2"), std::string::npos) << what;
    EXPECT_NE(what.find("{{elites}}"), std::string::npos) << what;
  }
  EXPECT_THROW(gp::render_prompt("broken {{family", {{"family", "x"}}, "t.md"), galapagos::error);
}

TEST(LlmPrompt, TheShippedTemplatesUseTheProposersPlaceholders) {
  // What the proposer fills in for each template (propose/llm/proposer.cpp, archipelago.cpp).
  const std::filesystem::path dir = std::filesystem::path(GALAPAGOS_SOURCE_DIR) / "configs/prompts";
  const std::map<std::string, std::vector<std::string>> provided = {
      {"system.md", {"notes"}},
      {"variation.md",
       {"family", "family_description", "entry_point", "hardware", "language", "parent_source", "parent_measurements", "elites",
        "inspirations", "feedback", "direction"}},
      {"repair.md", {"feedback", "source", "language"}}};
  for (const auto& [name, values] : provided) {
    const auto path = (dir / name).string();
    const auto used = gp::prompt_placeholders(galapagos::util::read_file(path), path);
    for (const auto& p : used)
      EXPECT_NE(std::find(values.begin(), values.end(), p), values.end()) << name << " uses {{" << p << "}}";
    EXPECT_EQ(used.size(), values.size()) << name << " leaves a value unused";
  }
}
