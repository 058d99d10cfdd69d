// Prompt templates: placeholders filled, a missing value or an unclosed placeholder is an error
// naming the template; the shipped templates use only the placeholders the proposer provides.
#include <gtest/gtest.h>

#include <map>

#include <algorithm>
#include <filesystem>

#include "propose/llm/profile_text.hpp"
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

// The parent's profile as the variation prompt carries it (in {{parent_measurements}}).
TEST(LlmPrompt, TheProfileReadsTheRooflineAndTheProfilersMetrics) {
  gp::profile_facts cpu;
  cpu.candidate_id = 12;
  cpu.backend = "cpu";
  cpu.time_s = 2e-3;
  cpu.floor_s = 5e-4;
  cpu.bytes = 4e7;  // 20 GB/s achieved
  cpu.flops = 1e7;  // 5 GFLOP/s achieved
  cpu.bandwidth_gbs = 80;
  cpu.peak_gflops = 1000;
  const std::string text = gp::describe_profile(cpu);
  for (const char* expected : {"candidate 12", "25.0% of the roofline", "20.0 GB/s achieved", "25% of the measured 80.0 GB/s",
                               "5.0 GFLOP/s achieved", "0.25 flop/byte", "ridge point of 12.5", "memory-bound"})
    EXPECT_NE(text.find(expected), std::string::npos) << expected << " in\n" << text;
  cpu.flops = 1e9;  // 25 flop/byte: past the ridge point
  EXPECT_NE(gp::describe_profile(cpu).find("compute-bound"), std::string::npos);
  cpu.time_s = 0.0 / 0.0;
  EXPECT_NE(gp::describe_profile(cpu).find("no correct measurement"), std::string::npos);

  gp::profile_facts gpu = cpu;
  gpu.backend = "cuda";
  gpu.time_s = 1e-3;
  gpu.metrics = {{"stencil", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "%", 85},
                 {"stencil", "sm__throughput.avg.pct_of_peak_sustained_elapsed", "%", 30},
                 {"stencil", "sm__warps_active.avg.pct_of_peak_sustained_active", "%", 22},
                 {"stencil", "launch__registers_per_thread", "register/thread", 96},
                 {"stencil", "l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum", "byte", 4096}};
  const std::string g = gp::describe_profile(gpu);
  for (const char* expected : {"Nsight Compute", "stencil: dram__throughput.avg.pct_of_peak_sustained_elapsed = 85 %",
                               "launch__registers_per_thread = 96", "memory-bound", "occupancy 22%", "(low",
                               "96 registers per thread", "4096 bytes of local-memory (register spill) traffic"})
    EXPECT_NE(g.find(expected), std::string::npos) << expected << " in\n" << g;

  const std::filesystem::path dir = std::filesystem::path(GALAPAGOS_SOURCE_DIR) / "configs/prompts";
  const auto path = (dir / "variation.md").string();
  std::map<std::string, std::string> values;
  for (const auto& name : gp::prompt_placeholders(galapagos::util::read_file(path), path)) values[name] = "(" + name + ")";
  values["parent_measurements"] = "candidate 12: time 1 ms\n\n" + g;
  const std::string prompt = gp::render_prompt(galapagos::util::read_file(path), values, path);
  EXPECT_NE(prompt.find("sm__warps_active.avg.pct_of_peak_sustained_active = 22 %"), std::string::npos);
  EXPECT_NE(prompt.find("of the roofline"), std::string::npos);
}
