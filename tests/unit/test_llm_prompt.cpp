// Prompt templates: placeholders filled, a missing value or an unclosed placeholder is an error
// naming the template; the shipped templates use only the placeholders the proposer provides.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "propose/llm/prompt.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace gp = galapagos::propose;

TEST(LlmPrompt, FillsEveryPlaceholder) {
  EXPECT_EQ(gp::render_prompt("Family {{family}} on {{ hardware }}; again {{family}}.", {{"family", "spmv"}, {"hardware", "H200"}}, "t.md"),
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
  const std::filesystem::path dir = std::filesystem::path(GALAPAGOS_SOURCE_DIR) / "configs/prompts";
  const std::vector<std::string> provided = {"family", "family_description", "entry_point", "hardware", "language",
                                             "parent_source", "parent_measurements", "elites", "feedback", "direction"};
  for (const char* name : {"system.md", "variation.md"}) {
    const auto path = (dir / name).string();
    for (const auto& p : gp::prompt_placeholders(galapagos::util::read_file(path), path))
      EXPECT_NE(std::find(provided.begin(), provided.end(), p), provided.end()) << name << " uses {{" << p << "}}";
  }
  EXPECT_EQ(gp::prompt_placeholders(galapagos::util::read_file((dir / "variation.md").string()), "variation.md").size(),
            provided.size());
}
