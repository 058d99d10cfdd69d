#include "propose/llm/proposer.hpp"

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "propose/llm/edits.hpp"
#include "propose/llm/prompt.hpp"
#include "propose/llm/supervisor.hpp"
#include "propose/llm/tools.hpp"
#include "propose/llm/variant.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace galapagos::propose {

using nlohmann::json;

namespace {

std::vector<double> weights_of(const std::vector<llm_model>& models) {
  std::vector<double> w;
  for (const auto& m : models) w.push_back(m.weight);
  return w;
}

std::string read_text(const std::filesystem::path& p, const char* what) {
  try {
    return util::read_file(p.string());
  } catch (const std::exception&) {
    throw error(p.string(), std::string("cannot read this ") + what);
  }
}

std::string conversation_text(const std::vector<chat_message>& messages) {
  std::string out;
  for (const auto& m : messages) {
    out += "### " + m.role + (m.role == "tool" ? " (" + m.tool_call_id + ")" : "") + "\n" + m.content + "\n";
    for (const auto& c : m.tool_calls) out += "[tool call " + c.id + "] " + c.name + " " + c.arguments + "\n";
  }
  return out;
}

std::string tail(const std::string& text, std::size_t n) {
  return text.size() <= n ? text : "[...]\n" + text.substr(text.size() - n);
}

}  // namespace

llm_proposer::llm_proposer(llm_settings settings, std::uint64_t seed)
    : settings_(std::move(settings)), ensemble_(weights_of(settings_.models), settings_.bandit), rng_(seed) {
  system_text_ = read_text(settings_.system_prompt, "prompt template");
  variation_text_ = read_text(settings_.variation_prompt, "prompt template");
  repair_text_ = read_text(settings_.repair_prompt, "prompt template");
  for (const auto& n : settings_.notes)
    notes_ += "\n## Notes: " + n.filename().string() + "\n\n" + read_text(n, "notes file") + "\n";
  std::uint64_t k = 0;
  for (const auto& m : settings_.models)
    clients_.push_back(std::make_unique<llm_client>(m.endpoint, llm_budget{}, core::derive_seed(seed, 17, k++)));
}

std::string llm_proposer::conversation_state() const { return json{{"feedback", feedback_}, {"rng", rng_.state()}}.dump(); }

void llm_proposer::restore_conversation(const std::string& state) {
  const json j = json::parse(state, nullptr, false);
  if (!j.is_object() || !j.contains("feedback") || !j["feedback"].is_string() || !j.contains("rng") || !j["rng"].is_string())
    throw std::invalid_argument("not a JSON object with the texts feedback and rng");
  rng_.restore(j["rng"].get<std::string>());  // throws std::invalid_argument for a malformed state
  feedback_ = j["feedback"].get<std::string>();
}

void llm_proposer::set_cancel(std::function<bool()> cancelled) {
  for (auto& c : clients_) c->set_cancel(cancelled);
}

bool llm_proposer::exhausted() const {
  return (settings_.budget.max_tokens > 0 && tokens_ >= settings_.budget.max_tokens) ||
         (settings_.budget.max_cost > 0 && cost_ >= settings_.budget.max_cost);
}

std::string llm_proposer::direction(const variation_request& r) const {
  if (settings_.stagnation_generations <= 0 || r.generations_without_improvement < settings_.stagnation_generations) return "";
  return "## Direction\n\nThe best candidate of this island has not improved for " +
         std::to_string(r.generations_without_improvement) +
         " generations. Small tweaks of the same structure have stopped paying off: propose a different direction "
         "(another loop order, blocking or tiling scheme, data layout, vectorisation or parallelisation strategy, or a "
         "fused pass), not another adjustment of constants.";
}

struct llm_proposer::conversation {
  const variation_request& request;
  const candidate_judge& judge;
  const variation_tools& tools;
  std::string current;                                 // the working source
  std::map<std::string, candidate_outcome> evaluated;  // by program_text: what the evaluate tool got
  double gain = 0;                                     // of the turn under way (for the bandit)
  supervisor watch;                                    // redirects the conversation when it stalls
  std::string edits;                                   // of the last tool call ("" for none)
  bool faster = false;                                 // the last tool call evaluated a candidate faster than the parent
};

std::string llm_proposer::run_tool(conversation& c, const tool_call& call, call_record& rec) {
  const auto t0 = std::chrono::steady_clock::now();
  rec.tool = call.name;
  rec.prompt = call.arguments;
  rec.reply.status = "ok";
  c.edits.clear();
  c.faster = false;
  auto done = [&](const std::string& outcome, const std::string& text) {
    rec.outcome = outcome;
    rec.reply.latency_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    rec.reply.text = text;
    return text;
  };
  const json args = call.arguments.empty() ? json::object() : json::parse(call.arguments, nullptr, false);
  if (!args.is_object()) return done("bad_arguments", "The arguments of " + call.name + " are not a JSON object.");
  if (call.name == "profile") {
    std::int64_t id = -1;
    if (args.contains("candidate") && !args["candidate"].is_null()) {
      if (!args["candidate"].is_number_integer()) return done("bad_arguments", "profile: `candidate` must be an integer id.");
      id = args["candidate"].get<std::int64_t>();
    }
    const tool_result r = c.tools.profile(id);
    rec.candidate_id = id;
    return done(r.status, r.text);  // its latency: the wall time, the profiler's included
  }
  if (call.name != "compile" && call.name != "evaluate")
    return done("unknown_tool", "There is no tool `" + call.name + "`: the tools are compile, evaluate and profile.");
  if (args.contains("edits") && !args["edits"].is_string())
    return done("bad_arguments", call.name + ": `edits` must be a string of SEARCH/REPLACE blocks.");
  const std::string edits = args.value("edits", "");
  c.edits = edits;
  std::string notes;
  if (edits.find_first_not_of(" \t\r\n") != std::string::npos) {
    const source_edit e = edit_source(c.current, edits, settings_.whole_file);
    rec.edits_applied = e.applied;
    rec.edits_failed = e.failed;
    for (const auto& n : e.notes) notes += "\n- " + n;
    if (e.outcome == "no_edits" || e.outcome == "edits_not_applied")
      return done(e.outcome, e.problem + " The working source is unchanged." + notes);
    if (e.outcome.empty()) c.current = e.source;
  }
  if (call.name == "compile") {
    const tool_result r = c.tools.compile(c.current);
    return done(r.status, r.text + notes);
  }
  if (c.current == c.request.parent_source)
    return done("unchanged", "The working source is still the parent's, which is measured already: change it first (edits).");
  const std::string key = program_text(c.current);
  if (const auto it = c.evaluated.find(key); it != c.evaluated.end()) {
    rec.candidate_id = it->second.candidate_id;
    return done("already_evaluated", "This program was evaluated in this conversation already (candidate " +
                                         std::to_string(it->second.candidate_id) + ", " + it->second.status + ").");
  }
  const candidate_outcome judged = c.judge(c.current);
  rec.candidate_id = judged.candidate_id;
  if (!judged.evaluated)
    return done(judged.status.empty() ? "not_evaluated" : judged.status, "The candidate was not evaluated: " + judged.message);
  c.evaluated[key] = judged;
  if (judged.status != "ok")
    return done(judged.status,
                "The candidate was rejected (" + judged.status + "):\n\n```\n" + tail(judged.message, 3000) + "\n```" + notes);
  if (std::isfinite(c.request.parent_time_s) && judged.time_s > 0) {
    c.gain += std::max(0.0, std::log(c.request.parent_time_s / judged.time_s));
    c.faster = judged.time_s < c.request.parent_time_s;
  }
  return done("ok", "Correct; it joined the island's population as candidate " + std::to_string(judged.candidate_id) + ": " +
                        judged.message + notes);
}

std::vector<call_record> llm_proposer::vary(const variation_request& request, const candidate_judge& judge,
                                            const variation_tools& tools) {
  std::vector<call_record> records;
  const int model = ensemble_.pick(rng_);
  const auto& m = settings_.models[static_cast<std::size_t>(model)];
  auto values = request.values;
  values["feedback"] = feedback_;
  values["direction"] = direction(request);
  values["parent_source"] = request.parent_source;
  std::vector<chat_message> messages = {
      {"system", render_prompt(system_text_, {{"notes", notes_}}, settings_.system_prompt.string()), {}, ""},
      {"user", render_prompt(variation_text_, values, settings_.variation_prompt.string()), {}, ""}};
  const bool with_tools = settings_.tools && tools.available();
  if (with_tools)
    messages[1].content +=
        "\n\n## Tools\n\nBefore you propose, you may call the tools compile, evaluate and profile (your turns are limited: " +
        std::to_string(settings_.turns) +
        " answers in all, the last without tools). Their edits apply to your working source, which starts as the "
        "parent's. Your answer without tool calls is your proposal: SEARCH/REPLACE blocks against the working source, or "
        "none to propose the working source as it stands.";
  const std::string tool_text = with_tools ? tool_definitions() : "";
  std::size_t sent = 0;  // messages already shown in an earlier record's prompt
  conversation c{request, judge, tools, request.parent_source, {}, 0, supervisor(settings_.supervisor_after), "", false};
  const auto measured = request.values.find("parent_measurements");
  const std::string parent_profile = measured == request.values.end() ? "" : measured->second;
  for (int turn = 0; turn < settings_.turns; ++turn) {
    call_record rec;
    rec.turn = turn;
    rec.model = m.name;
    rec.prompt =
        conversation_text(std::vector<chat_message>(messages.begin() + static_cast<std::ptrdiff_t>(sent), messages.end()));
    sent = messages.size();
    if (exhausted()) {
      rec.outcome = "budget_exhausted";
      rec.reply.status = "budget_exhausted";
      rec.reply.reason = "the LLM budget of this island is spent";
      rec.prompt.clear();
      records.push_back(std::move(rec));
      break;
    }
    const bool last = turn + 1 >= settings_.turns;
    auto& client = *clients_[static_cast<std::size_t>(model)];
    rec.reply = with_tools ? client.chat(messages, tool_text, last ? "none" : "auto") : client.chat(messages);
    const auto& reply = rec.reply;
    tokens_ += reply.prompt_tokens + reply.completion_tokens;
    cost_ += reply.cost;
    const double call_cost =
        reply.cost > 0 ? reply.cost : 1e-6 * static_cast<double>(reply.prompt_tokens + reply.completion_tokens);
    c.gain = 0;
    std::string problem;  // what the model is told went wrong this turn
    if (reply.status != "ok") {
      rec.outcome = "llm_" + reply.status;
      feedback_ = "The previous request failed (" + reply.status + ": " + reply.reason + ").";
      ensemble_.reward(model, 0, call_cost);
      records.push_back(std::move(rec));
      break;  // the conversation cannot go on
    }
    if (with_tools && !last && !reply.tool_calls.empty()) {  // the model works with its tools
      rec.outcome = "tool_calls";
      messages.push_back({"assistant", reply.text, reply.tool_calls, ""});
      sent = messages.size();  // the answer is this record's response
      std::vector<call_record> calls;
      std::string stall;
      for (const auto& call : reply.tool_calls) {
        call_record t;
        t.turn = turn;
        t.model = m.name;
        messages.push_back({"tool", run_tool(c, call, t), {}, call.id});
        const std::string s = c.watch.note(t.tool, t.outcome, c.edits, c.faster);
        if (stall.empty()) stall = s;
        calls.push_back(std::move(t));
      }
      if (!stall.empty()) {  // after the tool answers, which must follow the tool calls directly
        call_record v;
        v.turn = turn;
        v.model = m.name;
        v.tool = "supervisor";
        v.outcome = "redirected";
        v.prompt = stall;
        v.reply.status = "ok";
        v.reply.text = supervisor::message(stall, parent_profile);
        messages.push_back({"user", v.reply.text, {}, ""});
        calls.push_back(std::move(v));
      }
      ensemble_.reward(model, c.gain, call_cost);
      records.push_back(std::move(rec));
      records.insert(records.end(), calls.begin(), calls.end());
      continue;
    }
    source_edit edit = edit_source(c.current, reply.text, settings_.whole_file);
    if (edit.outcome == "no_edits" && with_tools && c.current != request.parent_source) {
      edit.outcome.clear();  // the proposal is the working source the tools left
      edit.source = c.current;
    }
    rec.outcome = edit.outcome;
    rec.edits_applied = edit.applied;
    rec.edits_failed = edit.failed;
    problem = edit.problem;
    std::string notes_text;
    for (const auto& n : edit.notes) notes_text += "- " + n + "\n";
    if (edit.outcome.empty()) {
      const std::string& changed = edit.source;
      candidate_outcome judged;
      bool known = false;  // judged by the evaluate tool in this conversation: not again
      if (const auto it = c.evaluated.find(program_text(changed)); it != c.evaluated.end()) {
        judged = it->second;
        known = true;
      } else {
        judged = judge(changed);
      }
      rec.candidate_id = judged.candidate_id;
      if (!judged.evaluated) {
        rec.outcome = judged.status.empty() ? "not_evaluated" : judged.status;
        problem = "The candidate was not evaluated: " + judged.message;
      } else if (judged.status == "ok") {
        rec.outcome = "accepted";
        if (!known && std::isfinite(request.parent_time_s) && judged.time_s > 0)
          c.gain += std::log(request.parent_time_s / judged.time_s);
        feedback_ =
            "Your last proposal was accepted: " + judged.message + (notes_text.empty() ? "" : "\nNotes on it:\n" + notes_text);
        problem = feedback_ + "\nRefine it: one more change that should make it faster still.";
        c.current = changed;
      } else {
        rec.outcome = judged.status;
        problem = "The candidate was rejected (" + judged.status + "):\n\n```\n" + tail(judged.message, 3000) + "\n```";
        c.current = changed;  // the repair edits the rejected source
      }
    }
    ensemble_.reward(model, c.gain, call_cost);
    records.push_back(rec);
    if (rec.outcome == "accepted" && !settings_.refine) break;
    if (rec.outcome != "accepted") feedback_ = problem + (notes_text.empty() ? "" : "\n" + notes_text);
    if (last) break;
    messages.push_back({"assistant", reply.text, {}, ""});
    const std::string& next = rec.outcome == "accepted" ? problem : feedback_;  // a refinement asks for more
    messages.push_back({"user",
                        render_prompt(repair_text_, {{"feedback", next}, {"source", c.current}, {"language", values["language"]}},
                                      settings_.repair_prompt.string()),
                        {},
                        ""});
  }
  return records;
}

}  // namespace galapagos::propose
