#include "propose/llm/proposer.hpp"

#include <cmath>
#include <stdexcept>

#include "propose/llm/edits.hpp"
#include "propose/llm/prompt.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace galapagos::propose {

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
  for (const auto& m : messages) out += "### " + m.role + "\n" + m.content + "\n";
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

std::vector<call_record> llm_proposer::vary(const variation_request& request, const candidate_judge& judge) {
  std::vector<call_record> records;
  const int model = ensemble_.pick(rng_);
  const auto& m = settings_.models[static_cast<std::size_t>(model)];
  auto values = request.values;
  values["feedback"] = feedback_;
  values["direction"] = direction(request);
  values["parent_source"] = request.parent_source;
  const std::vector<chat_message> opening = {
      {"system", render_prompt(system_text_, {{"notes", notes_}}, settings_.system_prompt.string())},
      {"user", render_prompt(variation_text_, values, settings_.variation_prompt.string())}};
  std::vector<chat_message> messages = opening;
  std::string current = request.parent_source;
  for (int turn = 0; turn < settings_.turns; ++turn) {
    call_record rec;
    rec.turn = turn;
    rec.model = m.name;
    rec.prompt = conversation_text(turn == 0 ? messages : std::vector<chat_message>(messages.end() - 2, messages.end()));
    if (exhausted()) {
      rec.outcome = "budget_exhausted";
      rec.reply.status = "budget_exhausted";
      rec.reply.reason = "the LLM budget of this island is spent";
      rec.prompt.clear();
      records.push_back(std::move(rec));
      break;
    }
    rec.reply = clients_[static_cast<std::size_t>(model)]->chat(messages);
    const auto& reply = rec.reply;
    tokens_ += reply.prompt_tokens + reply.completion_tokens;
    cost_ += reply.cost;
    const double call_cost =
        reply.cost > 0 ? reply.cost : 1e-6 * static_cast<double>(reply.prompt_tokens + reply.completion_tokens);
    double gain = 0;
    std::string problem;  // what the model is told went wrong this turn
    if (reply.status != "ok") {
      rec.outcome = "llm_" + reply.status;
      feedback_ = "The previous request failed (" + reply.status + ": " + reply.reason + ").";
      ensemble_.reward(model, 0, call_cost);
      records.push_back(std::move(rec));
      break;  // the conversation cannot go on
    }
    const parsed_edits parsed = parse_edits(reply.text);
    std::vector<std::string> notes = parsed.problems;
    std::string changed;
    if (parsed.blocks.empty()) {
      rec.outcome = "no_edits";
      problem = "Your answer held no complete SEARCH/REPLACE block.";
    } else {
      try {
        const edit_result applied = apply_edits(current, parsed.blocks, settings_.whole_file);
        rec.edits_applied = applied.applied();
        rec.edits_failed = static_cast<int>(applied.outcomes.size()) - rec.edits_applied;
        for (std::size_t i = 0; i < applied.outcomes.size(); ++i)
          if (!applied.outcomes[i].applied)
            notes.push_back("block " + std::to_string(i + 1) + " was not applied: " + applied.outcomes[i].reason);
        if (rec.edits_applied == 0) {
          rec.outcome = "edits_not_applied";
          problem = "None of your SEARCH/REPLACE blocks could be applied.";
        } else if (applied.source == current) {
          rec.outcome = "unchanged";
          problem = "Your edits left the source unchanged.";
        } else {
          changed = applied.source;
        }
      } catch (const std::invalid_argument& e) {
        rec.outcome = "edits_not_applied";
        problem = std::string("The source cannot be edited: ") + e.what();
      }
    }
    std::string notes_text;
    for (const auto& n : notes) notes_text += "- " + n + "\n";
    if (!changed.empty()) {
      const candidate_outcome judged = judge(changed);
      rec.candidate_id = judged.candidate_id;
      if (!judged.evaluated) {
        rec.outcome = judged.status.empty() ? "not_evaluated" : judged.status;
        problem = "The candidate was not evaluated: " + judged.message;
      } else if (judged.status == "ok") {
        rec.outcome = "accepted";
        if (std::isfinite(request.parent_time_s) && judged.time_s > 0) gain = std::log(request.parent_time_s / judged.time_s);
        feedback_ =
            "Your last proposal was accepted: " + judged.message + (notes_text.empty() ? "" : "\nNotes on it:\n" + notes_text);
        problem = feedback_ + "\nRefine it: one more change that should make it faster still.";
        current = changed;
      } else {
        rec.outcome = judged.status;
        problem = "The candidate was rejected (" + judged.status + "):\n\n```\n" + tail(judged.message, 3000) + "\n```";
        current = changed;  // the repair edits the rejected source
      }
    }
    ensemble_.reward(model, gain, call_cost);
    records.push_back(rec);
    if (rec.outcome == "accepted" && !settings_.refine) break;
    if (rec.outcome != "accepted") feedback_ = problem + (notes_text.empty() ? "" : "\n" + notes_text);
    if (turn + 1 >= settings_.turns) break;
    messages.push_back({"assistant", reply.text});
    const std::string& next = rec.outcome == "accepted" ? problem : feedback_;  // a refinement asks for more
    messages.push_back(
        {"user", render_prompt(repair_text_, {{"feedback", next}, {"source", current}, {"language", values["language"]}},
                               settings_.repair_prompt.string())});
  }
  return records;
}

}  // namespace galapagos::propose
