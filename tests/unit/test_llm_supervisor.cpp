// The supervisor of a tool conversation (propose/llm/supervisor.hpp): when it calls a stall,
// what resets its count, and the direction its message takes from the parent's profile.
#include <gtest/gtest.h>

#include <string>

#include "propose/llm/supervisor.hpp"

namespace gp = galapagos::propose;

TEST(LlmSupervisor, CallsAStallAfterThatManyCallsWithoutProgress) {
  gp::supervisor s(3);
  EXPECT_EQ(s.note("compile", "compile_error", "edit A", false), "");
  EXPECT_EQ(s.note("compile", "compiled", "edit B", false), "");  // neither progress nor a stall
  EXPECT_EQ(s.note("profile", "profiled", "", false), "");
  EXPECT_EQ(s.note("evaluate", "wrong_result", "edit C", false), "");
  const std::string stall = s.note("evaluate", "ok", "edit D", false);  // correct, but no faster than the parent
  EXPECT_EQ(stall, "3 tool calls in a row made no progress (compile compile_error, evaluate wrong_result, evaluate no faster)");
  EXPECT_EQ(s.redirections(), 1);
  // The count starts again after a redirection.
  EXPECT_EQ(s.note("compile", "compile_error", "edit E", false), "");
  EXPECT_EQ(s.note("compile", "compile_error", "edit F", false), "");
  EXPECT_NE(s.note("evaluate", "already_evaluated", "", false), "");
  EXPECT_EQ(s.redirections(), 2);
}

TEST(LlmSupervisor, AFasterCandidateIsProgress) {
  gp::supervisor s(2);
  EXPECT_EQ(s.note("compile", "compile_error", "a", false), "");
  EXPECT_EQ(s.note("evaluate", "ok", "b", true), "");  // faster than the parent: the count starts again
  EXPECT_EQ(s.note("compile", "edits_not_applied", "c", false), "");
  EXPECT_NE(s.note("compile", "bad_arguments", "", false), "");
  EXPECT_EQ(s.redirections(), 1);
}

TEST(LlmSupervisor, TheSameEditSentAgainIsAStallAtOnce) {
  gp::supervisor s(5);
  EXPECT_EQ(s.note("compile", "compiled", "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n", false), "");
  EXPECT_EQ(s.note("compile", "edits_not_applied", "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n", false),
            "the same edit was sent again (compile, edits_not_applied)");
  EXPECT_EQ(s.note("compile", "compiled", "   \n", false), "");  // blank edits are no edit
  EXPECT_EQ(s.note("compile", "compiled", "", false), "");
}

TEST(LlmSupervisor, ZeroNeverRedirects) {
  gp::supervisor s(0);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(s.note("compile", "compile_error", "same", false), "");
  EXPECT_EQ(s.redirections(), 0);
}

TEST(LlmSupervisor, TheMessageNamesTheStallAndADirectionFromTheProfile) {
  const std::string memory = gp::supervisor::message(
      "3 tool calls in a row made no progress (x)",
      "candidate 3: time 1 ms\n- Arithmetic intensity 0.1 flop/byte ...: memory-bound by design: save traffic\n"
      "- It is far from both ceilings: the code, not the hardware, limits it");
  EXPECT_EQ(memory.rfind("## Supervisor", 0), 0u);
  EXPECT_NE(memory.find("3 tool calls in a row made no progress (x)"), std::string::npos);
  EXPECT_NE(memory.find("memory-bound: aim at memory traffic"), std::string::npos);
  EXPECT_NE(memory.find("far from both ceilings"), std::string::npos);
  const std::string compute =
      gp::supervisor::message("s", "...: compute-bound by design: vectorise\n- It is close to its ceiling");
  EXPECT_NE(compute.find("compute-bound: aim at the arithmetic"), std::string::npos);
  EXPECT_NE(compute.find("only doing less work"), std::string::npos);
  const std::string unknown = gp::supervisor::message("s", "candidate 3: failed");
  EXPECT_EQ(unknown.find("-bound"), std::string::npos);
  EXPECT_NE(unknown.find("another loop order"), std::string::npos);
}
