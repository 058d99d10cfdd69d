// The LLM proposer of an island: one variation is a short conversation (the AVO pattern). The
// model proposes SEARCH/REPLACE edits to a parent's source; galapagos applies them, builds and
// judges the candidate with the same evaluator as every other candidate, and sends the
// compiler's or checker's words (or the measurements) back; the model repairs, up to `turns`
// turns, until a candidate is accepted. Every call becomes a record; the API key never does.
// With `tools` on, the model may also call tools within its turns (tools.hpp): compile or
// evaluate its working source, or profile a candidate, before it proposes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/rng.hpp"
#include "propose/llm/client.hpp"
#include "propose/llm/ensemble.hpp"

namespace galapagos::propose {

struct llm_model {
  std::string name;  // as records and the bandit name it
  llm_endpoint endpoint;
  double weight = 1;  // share of the variations it gets (before the bandit moves it)
};

struct llm_settings {
  std::vector<llm_model> models;      // empty: the island proposes genomes only
  llm_budget budget;                  // this island's part of the run's budget
  bool bandit = false;                // move weight to the model that improves most per cost
  double share = 0.25;                // of each generation's new candidates (after the first)
  std::vector<double> island_shares;  // per island (island i: [i % size]), instead of share
  bool refine = false;                // after an accepted candidate, spend the turns left on refining it
  int turns = 3;                      // model turns per variation: the proposal, then repairs
  bool tools = false;                 // offer the compile, evaluate and profile tools (tools.hpp)
  int stagnation_generations = 3;     // no better best for this long: ask for another direction
  int supervisor_after = 3;           // tool calls in a row without progress before a redirection (supervisor.hpp); 0: none
  bool whole_file = false;            // edits may change every line, not only the evolve regions
  int elites_in_prompt = 3;           // elites shown with their measurements
  std::filesystem::path system_prompt, variation_prompt, repair_prompt;
  std::vector<std::filesystem::path> notes;  // hardware notes given as context
  bool enabled() const { return !models.empty(); }
  double share_of(int island) const {
    return island_shares.empty() ? share : island_shares[static_cast<std::size_t>(island) % island_shares.size()];
  }
};

// What became of a candidate the proposer made (the island's evaluation of it).
struct candidate_outcome {
  bool evaluated = false;  // false: not judged (already evaluated, or the island's budget is spent)
  std::string status;      // the evaluator's status (ok, compile_error, wrong_result, ...) or why not evaluated
  std::string message;     // the compiler's or checker's words, or the measurements when ok
  double time_s = std::numeric_limits<double>::quiet_NaN();
  std::int64_t candidate_id = -1;
};

struct call_record {
  int turn = 0;
  std::string model;
  // A tool call the model made in this turn (compile, evaluate, profile); empty: a request to the
  // model. A tool call's reply holds what the model was told (text), its latency_s the seconds the
  // tool took (its cost: compiling, evaluating, profiling), no tokens.
  std::string tool;
  llm_reply reply;     // the answer as received (the key masked)
  std::string prompt;  // the messages sent, role by role; for a tool call, its arguments
  int edits_applied = 0, edits_failed = 0;
  // accepted, or what went wrong: the evaluator's status, no_edits, edits_not_applied,
  // unchanged, already_evaluated, not_evaluated, budget_exhausted, llm_<client status>;
  // tool_calls for a request answered with tool calls; for a tool call, tools.hpp's statuses
  std::string outcome;
  std::int64_t candidate_id = -1;
};

struct variation_request {
  std::string parent_source;
  double parent_time_s = std::numeric_limits<double>::infinity();
  // Placeholders of the variation template: family, family_description, entry_point,
  // hardware, language, parent_measurements, elites, inspirations.
  std::map<std::string, std::string> values;
  int generations_without_improvement = 0;
};

using candidate_judge = std::function<candidate_outcome(const std::string& source)>;

// What a tool (other than evaluate, which is the judge) gives back.
struct tool_result {
  std::string status;  // compile: compiled or compile_error; profile: profiled or unknown_candidate
  std::string text;    // what the model is told
  double seconds = 0;  // what it cost
};

// The island's side of the tools: each goes through the island's own builder and evaluator.
struct variation_tools {
  std::function<tool_result(const std::string& source)> compile;
  std::function<tool_result(std::int64_t candidate_id)> profile;  // -1: the parent
  bool available() const { return compile && profile; }
};

class llm_proposer {
 public:
  // Reads the templates and notes and sets up a client per model. Throws galapagos::error naming
  // the file for a template or note that cannot be read, or the variable of a missing API key.
  llm_proposer(llm_settings settings, std::uint64_t seed);
  // One variation of the parent: the model's turns, each candidate judged by `judge`. With the
  // tools setting on and `tools` available, the model may call them within its turns.
  std::vector<call_record> vary(const variation_request& request, const candidate_judge& judge,
                                const variation_tools& tools = {});
  bool exhausted() const;  // the budget is spent: no more calls
  // Asked during every model call; true cancels it (the run is stopping: no further turns).
  void set_cancel(std::function<bool()> cancelled);
  // What earlier sessions of a resumed run spent of the budget.
  void restore_spent(std::int64_t tokens, double cost) { tokens_ = tokens, cost_ = cost; }
  std::int64_t tokens_spent() const { return tokens_; }
  double cost_spent() const { return cost_; }
  const ensemble& models() const { return ensemble_; }
  // The bandit's statistics, for a checkpoint, and back (ensemble::state()). Throws
  // std::invalid_argument for a state that does not fit this run's models.
  std::string models_state() const { return ensemble_.state(); }
  void restore_models(const std::string& state) { ensemble_.restore(state); }
  // What the proposer keeps between variations, for a checkpoint, and back: what the next prompt
  // tells the model of its last variation (accepted, or what went wrong), and the random state
  // that picks each variation's model. JSON {"feedback", "rng"}. Throws std::invalid_argument for
  // a state that is not one.
  std::string conversation_state() const;
  void restore_conversation(const std::string& state);

 private:
  std::string direction(const variation_request& r) const;
  struct conversation;  // one variation in progress (proposer.cpp)
  // Runs one tool call of the model in `c` and returns what the model is told (tools.cpp).
  std::string run_tool(conversation& c, const tool_call& call, call_record& rec);
  llm_settings settings_;
  std::vector<std::unique_ptr<llm_client>> clients_;
  ensemble ensemble_;
  core::rng rng_;
  std::string system_text_, variation_text_, repair_text_, notes_;
  std::string feedback_ = "This is your first proposal on this island.";
  std::int64_t tokens_ = 0;
  double cost_ = 0;
};

}  // namespace galapagos::propose
