// The LLM client against a real HTTP server on loopback (tools/llm_test_server.py) that speaks
// the Chat Completions API with scripted answers: success and usage, retries on 429 (honouring
// Retry-After) and 5xx, time-outs, malformed answers, the budget, and the key kept secret.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "propose/llm/client.hpp"
#include "propose/llm/proposer.hpp"
#include "util/error.hpp"

namespace gp = galapagos::propose;
using nlohmann::json;

extern char** environ;

namespace {

const std::filesystem::path source_dir = GALAPAGOS_SOURCE_DIR;
const char* const secret = "sk-test-do-not-leak-5f1e";

// One scripted server for one test: started on a free loopback port, killed at the end.
class scripted_server {
 public:
  explicit scripted_server(const json& answers) {
    dir_ = std::filesystem::temp_directory_path() /
           ("galapagos-llm-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "script.json") << answers.dump();
    const std::string server = (source_dir / "tools/llm_test_server.py").string();
    const std::string script = (dir_ / "script.json").string(), port = (dir_ / "port").string(), log = (dir_ / "log").string();
    std::vector<char*> argv = {const_cast<char*>("/usr/bin/python3"), const_cast<char*>(server.c_str()),
                               const_cast<char*>(script.c_str()),     const_cast<char*>(port.c_str()),
                               const_cast<char*>(log.c_str()),        nullptr};
    if (posix_spawn(&pid_, argv[0], nullptr, nullptr, argv.data(), environ) != 0)
      throw std::runtime_error("cannot start the server");
    for (int i = 0; i < 200 && !std::filesystem::exists(dir_ / "port"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    std::ifstream in(dir_ / "port");
    in >> port_;
    if (port_ == 0) throw std::runtime_error("the server did not start");
  }
  ~scripted_server() {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    std::filesystem::remove_all(dir_);
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1/chat/completions"; }
  std::vector<json> requests() const {
    std::vector<json> out;
    std::ifstream in(dir_ / "log");
    for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
    return out;
  }

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

json completion(const std::string& text, int prompt_tokens = 100, int completion_tokens = 20) {
  return {{"status", 200},
          {"body",
           {{"id", "cmpl-1"},
            {"object", "chat.completion"},
            {"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", text}}}, {"finish_reason", "stop"}}}},
            {"usage", {{"prompt_tokens", prompt_tokens}, {"completion_tokens", completion_tokens}}}}}};
}

gp::llm_endpoint endpoint(const scripted_server& s) {
  setenv("GALAPAGOS_TEST_LLM_KEY", secret, 1);
  gp::llm_endpoint e;
  e.url = s.url();
  e.model = "test-model";
  e.temperature = 0.25;
  e.max_tokens = 512;
  e.timeout_s = 5;
  e.api_key_env = "GALAPAGOS_TEST_LLM_KEY";
  e.backoff_initial_s = 0.05;
  e.backoff_max_s = 2;
  e.price_prompt_per_mtok = 2.0;
  e.price_completion_per_mtok = 8.0;
  return e;
}

const std::vector<gp::chat_message> ask = {{"system", "You rewrite kernels."}, {"user", "Make it faster."}};

}  // namespace

TEST(LlmClient, AnswersWithUsageCostAndTheRequestAsTheApiWantsIt) {
  scripted_server s(json::array({completion("// faster\n", 1000, 250)}));
  gp::llm_client c(endpoint(s), {});
  const auto r = c.chat(ask);
  ASSERT_EQ(r.status, "ok") << r.reason;
  EXPECT_EQ(r.text, "// faster\n");
  EXPECT_EQ(r.attempts, 1);
  EXPECT_EQ(r.prompt_tokens, 1000);
  EXPECT_EQ(r.completion_tokens, 250);
  EXPECT_DOUBLE_EQ(r.cost, (1000 * 2.0 + 250 * 8.0) / 1e6);
  EXPECT_EQ(c.tokens_spent(), 1250);
  const auto reqs = s.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0]["path"], "/v1/chat/completions");
  EXPECT_EQ(reqs[0]["headers"]["Authorization"], std::string("Bearer ") + secret);
  const json body = json::parse(reqs[0]["body"].get<std::string>());
  EXPECT_EQ(body["model"], "test-model");
  EXPECT_EQ(body["max_tokens"], 512);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.25);
  EXPECT_EQ(body["messages"][1]["content"], "Make it faster.");
}

TEST(LlmClient, RetriesTooManyRequestsAfterTheServersRetryAfter) {
  scripted_server s(
      json::array({{{"status", 429}, {"headers", {{"Retry-After", "1"}}}, {"body", "slow down"}}, completion("ok")}));
  gp::llm_client c(endpoint(s), {});
  const auto r = c.chat(ask);
  ASSERT_EQ(r.status, "ok") << r.reason;
  EXPECT_EQ(r.attempts, 2);
  EXPECT_GE(r.latency_s, 0.95);  // the server asked for a second; the backoff alone waits 0.05 s
}

TEST(LlmClient, RetriesServerErrorsWithBackoffAndGivesUpAfterTheLastAttempt) {
  scripted_server s(json::array({{{"status", 500}, {"body", "oops"}}, {{"status", 503}, {"body", "busy"}}, completion("ok")}));
  gp::llm_client c(endpoint(s), {});
  const auto r = c.chat(ask);
  ASSERT_EQ(r.status, "ok") << r.reason;
  EXPECT_EQ(r.attempts, 3);

  scripted_server down(json::array({{{"status", 502}, {"body", "a"}}, {{"status", 502}, {"body", "b"}}}));
  auto e = endpoint(down);
  e.max_attempts = 2;
  gp::llm_client c2(e, {});
  const auto failed = c2.chat(ask);
  EXPECT_EQ(failed.status, "http_error");
  EXPECT_EQ(failed.http_status, 502);
  EXPECT_EQ(failed.attempts, 2);
  EXPECT_NE(failed.reason.find("2 attempts"), std::string::npos) << failed.reason;

  scripted_server refused(json::array({{{"status", 400}, {"body", "bad request"}}}));
  gp::llm_client c3(endpoint(refused), {});
  EXPECT_EQ(c3.chat(ask).attempts, 1) << "a client error is not retried";
}

TEST(LlmClient, SlowAnswersTimeOut) {
  auto slow = completion("late");
  slow["delay_s"] = 3;
  scripted_server s(json::array({slow, slow}));
  auto e = endpoint(s);
  e.timeout_s = 0.5;
  e.max_attempts = 2;
  gp::llm_client c(e, {});
  const auto r = c.chat(ask);
  EXPECT_EQ(r.status, "timeout");
  EXPECT_EQ(r.attempts, 2);
  EXPECT_LT(r.latency_s, 3.0);
}

TEST(LlmClient, MalformedAnswersAreAStatus) {
  scripted_server s(
      json::array({{{"status", 200}, {"body", "this is not json"}}, {{"status", 200}, {"body", {{"choices", json::array()}}}}}));
  gp::llm_client c(endpoint(s), {});
  for (int i = 0; i < 2; ++i) {
    const auto r = c.chat(ask);
    EXPECT_EQ(r.status, "malformed");
    EXPECT_EQ(r.attempts, 1);
    EXPECT_FALSE(r.reason.empty());
  }
}

TEST(LlmClient, TheBudgetStopsTheCalls) {
  scripted_server s(json::array({completion("a", 100, 20), completion("b", 100, 20), completion("c", 100, 20)}));
  gp::llm_client c(endpoint(s), {200, 0});
  EXPECT_EQ(c.chat(ask).status, "ok");
  EXPECT_EQ(c.chat(ask).status, "ok");  // 240 tokens spent: over the 200 of the budget
  EXPECT_TRUE(c.exhausted());
  const auto r = c.chat(ask);
  EXPECT_EQ(r.status, "budget_exhausted");
  EXPECT_EQ(r.attempts, 0);
  EXPECT_EQ(s.requests().size(), 2u) << "no request once the budget is spent";

  scripted_server money(json::array({completion("a", 1000000, 0), completion("b")}));
  gp::llm_client by_cost(endpoint(money), {0, 1.5});  // the first call costs 2.0
  EXPECT_EQ(by_cost.chat(ask).status, "ok");
  EXPECT_EQ(by_cost.chat(ask).status, "budget_exhausted");
}

TEST(LlmClient, TheKeyNeverAppearsInWhatTheClientReturns) {
  // A server that echoes the key back, in an error and in an answer.
  scripted_server s(json::array(
      {{{"status", 401}, {"body", std::string("invalid key ") + secret}}, completion(std::string("your key is ") + secret)}));
  gp::llm_client c(endpoint(s), {});
  const auto denied = c.chat(ask);
  EXPECT_EQ(denied.status, "http_error");
  EXPECT_EQ(denied.reason.find(secret), std::string::npos) << denied.reason;
  EXPECT_NE(denied.reason.find("***"), std::string::npos);
  const auto echoed = c.chat(ask);
  EXPECT_EQ(echoed.text.find(secret), std::string::npos);

  unsetenv("GALAPAGOS_TEST_LLM_UNSET");
  auto e = endpoint(s);
  e.api_key_env = "GALAPAGOS_TEST_LLM_UNSET";
  try {
    gp::llm_client missing(e, {});
    FAIL() << "a named but unset key variable must be an error";
  } catch (const galapagos::error& err) {
    EXPECT_NE(std::string(err.what()).find("GALAPAGOS_TEST_LLM_UNSET"), std::string::npos) << err.what();
  }
}

TEST(LlmClient, NoServerIsANetworkError) {
  scripted_server s(json::array());
  auto e = endpoint(s);
  e.url = "http://127.0.0.1:1/v1/chat/completions";  // nothing listens on port 1
  e.max_attempts = 2;
  gp::llm_client c(e, {});
  const auto r = c.chat(ask);
  EXPECT_EQ(r.status, "network_error");
  EXPECT_EQ(r.attempts, 2);
}

// The proposer's conversation (propose/llm/proposer.hpp) against the same server.
namespace {

gp::llm_settings proposer_settings(const scripted_server& s, int turns, bool refine) {
  const std::filesystem::path prompts = std::filesystem::path(GALAPAGOS_SOURCE_DIR) / "configs/prompts";
  gp::llm_settings st;
  st.models = {{"scripted", endpoint(s), 1.0}};
  st.turns = turns;
  st.refine = refine;
  st.system_prompt = prompts / "system.md";
  st.variation_prompt = prompts / "variation.md";
  st.repair_prompt = prompts / "repair.md";
  return st;
}

gp::variation_request parent() {
  gp::variation_request r;
  r.parent_source = "int f() {\n  // galapagos:evolve-begin\n  return 1;\n  // galapagos:evolve-end\n}\n";
  r.parent_time_s = 1.0;
  for (const char* k :
       {"family", "family_description", "entry_point", "hardware", "language", "parent_measurements", "elites", "inspirations"})
    r.values[k] = std::string("(") + k + ")";
  return r;
}

std::string edit(const std::string& from, const std::string& to) {
  return "<<<<<<< SEARCH\n" + from + "\n=======\n" + to + "\n>>>>>>> REPLACE\n";
}

}  // namespace

TEST(LlmProposer, RefineTurnsContinueFromTheAcceptedSourceWithItsMeasurements) {
  scripted_server s(
      json::array({completion(edit("  return 1;", "  return 2;")), completion(edit("  return 2;", "  return 3;"))}));
  gp::llm_proposer p(proposer_settings(s, 2, true), 1);
  std::vector<std::string> judged;
  const auto calls = p.vary(parent(), [&](const std::string& source) {
    judged.push_back(source);
    return gp::candidate_outcome{true, "ok", "time 0.5 s", 0.5, static_cast<std::int64_t>(judged.size())};
  });
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].outcome, "accepted");
  EXPECT_EQ(calls[1].outcome, "accepted");
  ASSERT_EQ(judged.size(), 2u);
  EXPECT_NE(judged[1].find("return 3;"), std::string::npos);  // the refinement edits the accepted source
  const auto reqs = s.requests();
  ASSERT_EQ(reqs.size(), 2u);
  const std::string second = json::parse(reqs[1].at("body").get<std::string>()).at("messages").back().at("content");
  EXPECT_NE(second.find("Refine it"), std::string::npos);
  EXPECT_NE(second.find("time 0.5 s"), std::string::npos);
  EXPECT_NE(second.find("return 2;"), std::string::npos);
  EXPECT_EQ(p.tokens_spent(), 240);
}

TEST(LlmProposer, ACancelledCallEndsTheVariationAtOnce) {
  auto slow = completion(edit("  return 1;", "  return 2;"));
  slow["delay_s"] = 30;
  scripted_server s(json::array({slow}));
  gp::llm_proposer p(proposer_settings(s, 3, false), 1);
  const auto t0 = std::chrono::steady_clock::now();
  p.set_cancel([&] { return std::chrono::steady_clock::now() - t0 > std::chrono::milliseconds(300); });
  int judged = 0;
  const auto calls = p.vary(parent(), [&](const std::string&) {
    ++judged;
    return gp::candidate_outcome{};
  });
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].reply.status, "cancelled");
  EXPECT_EQ(calls[0].outcome, "llm_cancelled");
  EXPECT_EQ(judged, 0);
}

// Tool calls (propose/llm/tools.hpp): the tools go out with the request, the model's calls run
// through the island's side, their answers go back as `tool` messages, the last turn offers no
// tools, and a program the evaluate tool judged is not judged again when proposed.
namespace {

json tool_calls(const json& calls) {
  json list = json::array();
  int k = 0;
  for (const auto& c : calls)
    list.push_back({{"id", "call_" + std::to_string(++k)},
                    {"type", "function"},
                    {"function", {{"name", c[0]}, {"arguments", c[1].dump()}}}});
  return {{"status", 200},
          {"body",
           {{"choices", {{{"message", {{"role", "assistant"}, {"content", nullptr}, {"tool_calls", list}}}}}},
            {"usage", {{"prompt_tokens", 10}, {"completion_tokens", 5}}}}}};
}

}  // namespace

TEST(LlmProposer, ToolCallsRunWithinTheTurnsAndEveryOneIsRecorded) {
  scripted_server s(json::array(
      {tool_calls(json::array(
           {json::array({"compile", {{"edits", edit("  return 1;", "  return x;")}}}), json::array({"launch", json::object()})})),
       tool_calls(json::array({json::array({"compile", {{"edits", edit("  return x;", "  return 2;")}}}),
                               json::array({"evaluate", json::object()}), json::array({"profile", {{"candidate", "seven"}}}),
                               json::array({"profile", {{"candidate", 7}}})})),
       completion("That is my proposal."), completion("never asked")}));
  auto settings = proposer_settings(s, 3, false);
  settings.tools = true;
  gp::llm_proposer p(settings, 1);
  std::vector<std::string> compiled, judged;
  std::vector<std::int64_t> profiled;
  gp::variation_tools tools;
  tools.compile = [&](const std::string& source) {
    compiled.push_back(source);
    return source.find("return x;") != std::string::npos ? gp::tool_result{"compile_error", "error: 'x' was not declared", 0.1}
                                                         : gp::tool_result{"compiled", "It compiles.", 0.1};
  };
  tools.profile = [&](std::int64_t id) {
    profiled.push_back(id);
    return gp::tool_result{"profiled", "Profile of candidate 7: 40% of the roofline", 0};
  };
  const auto calls = p.vary(
      parent(),
      [&](const std::string& source) {
        judged.push_back(source);
        return gp::candidate_outcome{true, "ok", "time 0.5 s", 0.5, 7};
      },
      tools);
  std::vector<std::pair<std::string, std::string>> steps;
  for (const auto& c : calls) steps.emplace_back(c.tool, c.outcome);
  const std::vector<std::pair<std::string, std::string>> expected = {
      {"", "tool_calls"}, {"compile", "compile_error"}, {"launch", "unknown_tool"}, {"", "tool_calls"}, {"compile", "compiled"},
      {"evaluate", "ok"}, {"profile", "bad_arguments"}, {"profile", "profiled"},    {"", "accepted"}};
  EXPECT_EQ(steps, expected);
  ASSERT_EQ(judged.size(), 1u);  // the proposal is the program evaluate judged: not judged again
  EXPECT_NE(judged[0].find("return 2;"), std::string::npos);
  EXPECT_EQ(compiled.size(), 2u);
  EXPECT_EQ(profiled, std::vector<std::int64_t>{7});
  ASSERT_EQ(calls.size(), 9u);
  EXPECT_EQ(calls[5].candidate_id, 7);
  EXPECT_EQ(calls[8].candidate_id, 7);
  EXPECT_EQ(calls[1].prompt, json({{"edits", edit("  return 1;", "  return x;")}}).dump());
  EXPECT_NE(calls[1].reply.text.find("not declared"), std::string::npos);
  const auto reqs = s.requests();
  ASSERT_EQ(reqs.size(), 3u);
  const json first = json::parse(reqs[0].at("body").get<std::string>());
  ASSERT_EQ(first.at("tools").size(), 3u);
  EXPECT_EQ(first.at("tools")[0]["function"]["name"], "compile");
  EXPECT_EQ(first.at("tool_choice"), "auto");
  const json second = json::parse(reqs[1].at("body").get<std::string>());
  const auto& m = second.at("messages");
  ASSERT_EQ(m.size(), 5u);  // system, user, the assistant's calls, two tool answers
  EXPECT_EQ(m[2]["role"], "assistant");
  EXPECT_TRUE(m[2]["content"].is_null());
  EXPECT_EQ(m[2]["tool_calls"][1]["function"]["name"], "launch");
  EXPECT_EQ(m[3]["role"], "tool");
  EXPECT_EQ(m[3]["tool_call_id"], "call_1");
  EXPECT_NE(m[3]["content"].get<std::string>().find("not declared"), std::string::npos);
  EXPECT_NE(m[4]["content"].get<std::string>().find("There is no tool `launch`"), std::string::npos);
  const json third = json::parse(reqs[2].at("body").get<std::string>());
  EXPECT_EQ(third.at("tool_choice"), "none");  // the last turn is for the proposal
}

TEST(LlmProposer, WithoutToolsTheRequestOffersNone) {
  scripted_server s(json::array({completion(edit("  return 1;", "  return 2;"))}));
  gp::llm_proposer p(proposer_settings(s, 1, false), 1);  // tools off, the default
  gp::variation_tools tools;
  tools.compile = [](const std::string&) { return gp::tool_result{"compiled", "", 0}; };
  tools.profile = [](std::int64_t) { return gp::tool_result{"profiled", "", 0}; };
  const auto calls = p.vary(
      parent(),
      [](const std::string&) {
        return gp::candidate_outcome{true, "ok", "time 0.5 s", 0.5, 1};
      },
      tools);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].outcome, "accepted");
  const json body = json::parse(s.requests().at(0).at("body").get<std::string>());
  EXPECT_FALSE(body.contains("tools"));
  EXPECT_FALSE(body.contains("tool_choice"));
}

// The supervisor (propose/llm/supervisor.hpp) in a conversation: after `supervisor_after` tool
// calls without progress its message follows the tool answers, and it is recorded.
TEST(LlmProposer, TheSupervisorRedirectsAStalledToolConversation) {
  const json broken = {{"edits", edit("  return 1;", "  return x;")}};
  scripted_server s(json::array({tool_calls(json::array({json::array({"compile", broken})})),
                                 tool_calls(json::array({json::array({"compile", json::object()})})),
                                 completion(edit("  return x;", "  return 2;"))}));
  auto settings = proposer_settings(s, 3, false);
  settings.tools = true;
  settings.supervisor_after = 2;
  gp::llm_proposer p(settings, 1);
  gp::variation_tools tools;
  tools.compile = [](const std::string&) { return gp::tool_result{"compile_error", "error: 'x' was not declared", 0.1}; };
  tools.profile = [](std::int64_t) { return gp::tool_result{"profiled", "", 0}; };
  auto request = parent();
  request.values["parent_measurements"] = "candidate 1: time 1 s\n- ...: memory-bound by design: save traffic";
  const auto calls = p.vary(
      request,
      [](const std::string&) {
        return gp::candidate_outcome{true, "ok", "time 0.5 s", 0.5, 2};
      },
      tools);
  std::vector<std::pair<std::string, std::string>> steps;
  for (const auto& c : calls) steps.emplace_back(c.tool, c.outcome);
  const std::vector<std::pair<std::string, std::string>> expected = {{"", "tool_calls"},           {"compile", "compile_error"},
                                                                     {"", "tool_calls"},           {"compile", "compile_error"},
                                                                     {"supervisor", "redirected"}, {"", "accepted"}};
  EXPECT_EQ(steps, expected);
  ASSERT_EQ(calls.size(), 6u);
  EXPECT_EQ(calls[4].prompt, "2 tool calls in a row made no progress (compile compile_error, compile compile_error)");
  const auto reqs = s.requests();
  ASSERT_EQ(reqs.size(), 3u);
  const auto m = json::parse(reqs[2].at("body").get<std::string>()).at("messages");
  ASSERT_GE(m.size(), 2u);
  EXPECT_EQ(m[m.size() - 2]["role"], "tool");  // the tool answer first, then the supervisor
  EXPECT_EQ(m.back()["role"], "user");
  EXPECT_EQ(m.back()["content"], calls[4].reply.text);
  EXPECT_NE(m.back()["content"].get<std::string>().find("memory-bound: aim at memory traffic"), std::string::npos);
  const auto second = json::parse(reqs[1].at("body").get<std::string>()).at("messages");
  EXPECT_EQ(second.back()["role"], "tool");  // no redirection before the stall
}

// What the proposer keeps between variations goes into a checkpoint and comes back: a restored
// proposer tells the model of the variation before the stop.
TEST(LlmProposer, TheConversationStateComesBackAfterARestore) {
  scripted_server s(json::array({completion(edit("  return 1;", "  return 2;")), completion("Nothing to change.")}));
  const auto settings = proposer_settings(s, 1, false);
  gp::llm_proposer before(settings, 1);
  before.vary(parent(), [](const std::string&) { return gp::candidate_outcome{true, "ok", "time 0.25 s, 4x", 0.25, 2}; });
  const std::string state = before.conversation_state();
  gp::llm_proposer after(settings, 99);
  EXPECT_THROW(after.restore_conversation("[1, 2]"), std::invalid_argument);
  EXPECT_THROW(after.restore_conversation(R"({"feedback": "x", "rng": "not a state"})"), std::invalid_argument);
  after.restore_conversation(state);
  EXPECT_EQ(after.conversation_state(), state);
  after.vary(parent(), [](const std::string&) { return gp::candidate_outcome{}; });
  const auto reqs = s.requests();
  ASSERT_EQ(reqs.size(), 2u);
  const std::string prompt = json::parse(reqs[1].at("body").get<std::string>()).at("messages")[1].at("content");
  EXPECT_NE(prompt.find("Your last proposal was accepted: time 0.25 s, 4x"), std::string::npos) << prompt;
}
