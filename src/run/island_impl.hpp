// The inside of run::island_driver (island_driver.hpp), shared by the files that define it:
// island_driver.cpp (construction, candidates and records), island_loop.cpp (the generation loop
// and migration) and island_llm.cpp (LLM variation). Not for use outside src/run.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include "run/island_driver.hpp"

#include "config/run_config.hpp"
#include "core/island.hpp"
#include "core/topology.hpp"
#include "eval/evaluator.hpp"
#include "eval/family_process.hpp"
#include "eval/node_lock.hpp"
#include "eval/probe.hpp"
#include "families/family.hpp"
#include "propose/llm/local_includes.hpp"
#include "propose/llm/profile_text.hpp"
#include "propose/llm/proposer.hpp"
#include "propose/llm/variant.hpp"
#include "run/checkpoint.hpp"
#include "run/progress.hpp"
#include "run/records.hpp"
#include "run/replay.hpp"
#include "store/publish.hpp"
#include "store/results_file.hpp"
#include "store/results_target.hpp"
#include "util/build_info.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"
#include "util/utc.hpp"

namespace galapagos::run {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// Adds the seconds of its scope to a total: the orchestration's own accounting.
class scope_timer {
 public:
  explicit scope_timer(double& total) : total_(total), t0_(std::chrono::steady_clock::now()) {}
  ~scope_timer() { total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count(); }
  scope_timer(const scope_timer&) = delete;
  scope_timer& operator=(const scope_timer&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point t0_;
};

// A point of the island's space and the candidate it came from (-1: none; -2: bred here).
struct todo_item {
  core::point p;
  std::int64_t parent = -1;
  std::vector<std::int64_t> bred_from;  // bred here: the population members it came from
  const char* origin = nullptr;         // what the results file says it came from, when not the usual
};

class island_driver::impl {
 public:
  impl(setup& s, mailbox& migrants, mailbox& records, stop_signal& stop, double best_baseline_s, std::string best_baseline_name);

  // Runs the island to its budget. On rank 0 `file` receives every island's records.
  void run(store::results_file* file);

  // The island's elites under the profiler (GPU backends with Nsight Compute): metrics for the
  // report and the proposers, never for the fitness.
  void profile_elites();

  // Rank 0: writes records that arrived from other islands, then checkpoints what they complete.
  void drain_records();
  void absorb(const std::string& text);
  const std::optional<store::candidate_row>& best_row() const { return best_row_; }
  // The text of a source variant this island made or received, or whose rows it wrote (rank 0);
  // empty for the family's template and for sources it never saw.
  std::string variant_source(const std::string& hash) const;
  // The best correct candidate this island evaluated in this session.
  const std::optional<store::candidate_row>& best_own() const { return best_own_; }
  // The islands of this one's family and backend (rank 0 picks its group's winner among them).
  void set_group(std::vector<int> members) { group_ = std::move(members); }
  bool in_group(int island) const { return group_.empty() || std::find(group_.begin(), group_.end(), island) != group_.end(); }
  void set_checkpoints(checkpoint_writer* w) { checkpoints_ = w; }
  // Whether the island searched to its end (budget spent or space exhausted), not stopped.
  bool completed() const { return !stopped_; }
  // Whether rank 0 redraws a live progress line (then checkpoints are not announced one by one).
  bool live_progress() const { return progress_.live(); }

  // The fastest and slowest correct times of the fastest baseline over the run (+inf, 0: none).
  std::pair<double, double> baseline_range() const { return {baseline_min_s_, baseline_max_s_}; }

  // Puts the island where the checkpoint of a resumed run left it. `best` is the best correct
  // candidate of the whole run so far (rank 0 picks the winner from it).
  void restore(const resume_plan& p);

  // Tells the islands this one sends to that no more migrants will come from it: it searched to
  // its end ("done") or stopped ("stopped": in replay mode they then stop before a generation
  // whose migrants they would otherwise miss).
  void leave();

 private:
  // Whether migrants flow at all: the topology gives this island neighbours ([migration]).
  bool migrating() const { return !targets_.empty() || !sources_.empty(); }
  // Whether the islands, having just completed `generation`, exchange their elites.
  bool migration_due(int generation) const {
    return migrating() && generation > 0 && generation % s_.config.migration.interval == 0;
  }

  // Migrant messages that have arrived, by the sender's generation.
  void collect_migrants();

  // The migrants this generation takes in. Asynchronous (measuring): whatever has arrived, never
  // waiting, so a slow island stalls nobody. Scheduled (replay): exactly those every sending
  // island sent after the same generation, waiting for them, so that a replayed run is the same
  // however its islands' timing falls.
  std::vector<todo_item> take_immigrants();

  // Sends the island's elites to every island the topology names. Non-blocking: the message is
  // posted and the island goes on.
  void emigrate();

  // The island between two generations, as a checkpoint holds it.
  island_snapshot snapshot(double wall_s);

  eval::candidate_source candidate_of(const core::point& p) const;

  // GA offspring of rewrites (variant > 0) for an island whose strategy proposes the template's
  // genomes: `room` of them when `fill`, else as many as the rewrites' share of the population
  // (at least one while a rewrite is in it). Fewer when the GA finds no more.
  std::vector<core::point> rewrite_offspring(int room, bool fill);

  // Marks a point seen by the island (and, for the template, by its strategy).
  void mark_seen(const core::point& p);

  std::vector<std::string> variant_hashes() const;

  // The island's number of a source variant, registering it (and its declared parameters) when new.
  int variant_for(const std::string& text);

  // Evaluates one point; returns its measurement and candidate id. A point the interrupted
  // generation evaluated already (carried_) gives its recorded result and writes no row.
  // `parents`: the candidates it came from (a migrant's sender's, a rewrite's parent, the GA's
  // picks), written to its row's `parents`.
  std::pair<eval::measurement, std::int64_t> evaluate(const core::point& p, const std::vector<std::int64_t>& parents,
                                                      const std::string& origin);

  // The island takes a result as evaluated: its population, strategy, counts and best.
  void take_result(const core::point& p, const store::candidate_row& r);

  // The carried rows the resumed generation did not propose again (its migrants differ, a
  // model's rewrite): taken as evaluated in it all the same, so that nothing measured is lost.
  void take_rest_of_carried();

  // A stop request cut the generation short: its rows are written with the island's state at the
  // generation's start (generation_start_), marked as the unfinished generation's.
  void keep_unfinished(int carried_before, double wall_s);

  // One variation by the LLM proposer: a parent (the island's best, or another member of its
  // population), the model's turns, each candidate judged like any other, every call recorded.
  void vary_with_llm();

  // What is known of a candidate's performance, read for a model (propose/llm/profile_text.hpp):
  // the roofline position against the probe's ceilings, and on GPUs the profiler's metrics
  // (taken on demand where Nsight Compute is available, its time counted as evaluating).
  // Cached per candidate; `seconds` gets what it cost. `id` -1 or unknown: "" (see known).
  std::string candidate_profile(std::int64_t id, double& seconds, bool allow_profiler);
  // The profiler's metrics of a member of the population, taken under the node lock and added to
  // /profiles (empty, with `why`, when the profiler could not run it).
  std::vector<eval::profile_metric> profile(const core::individual& ind, std::string& why);
  // The LLM's compile tool: the source built as a candidate of the parent's values would be.
  propose::tool_result compile_for_model(const std::string& text, const core::individual& parent);

  // What the island's LLM variations keep from one to the next, for a checkpoint: the proposer's
  // conversation state (llm_proposer::conversation_state()), the random state that picks each
  // variation's parent and the declared values still to try, each as its source's hash and
  // parameters. JSON {"proposer": {...}, "parent_rng", "declared_to_try": [...]}. Restoring
  // (variant_of: a source hash to the island's variant number) throws std::invalid_argument.
  std::string llm_conversation() const;
  void restore_llm_conversation(const std::string& state, const std::function<int(const std::string&)>& variant_of);

  // What every variation prompt says about the family and the hardware.
  std::map<std::string, std::string> prompt_values() const;

  // Diverse inspirations: correct members of the population built from another source than the
  // parent's, the first with its source.
  std::string inspirations(const core::individual& parent);

  std::string describe_individual(const core::individual& ind) const;

  void report_generation(double wall_s);

  // Times the fastest baseline again, as the generation's candidates are about to be, and
  // records it (/baseline_timings); a failed timing keeps the previous time.
  void retime_baseline(double wall_s);

  void flush_records();

  // Where this session's search time went: evaluating (compiling, checking, timing, or serving
  // a recording) and waiting for a language model, against the orchestration around them: one
  // line, and one /orchestration row of the results file (bench/orchestration.py reads those).
  void report_orchestration(double search_s);

  setup& s_;
  mailbox& migrants_;
  mailbox& records_;
  stop_signal& stop_;
  // The fastest baseline (the start-up's measurement picked it), re-timed by this island at the
  // start of every generation: the speedups of the generation's candidates divide by baseline_s_.
  const families::source_spec* fastest_baseline_ = nullptr;  // null: the family has no baseline
  double baseline_s_;
  std::string best_baseline_name_;
  double best_speedup_ = nan;  // the search-time speedup of the island's best row
  // The fastest and slowest correct re-timings over the run (every session), for the drift.
  double baseline_min_s_ = inf, baseline_max_s_ = 0;
  progress_display progress_;  // the generation lines, or rank 0's live line on a terminal
  core::island island_;
  store::results_file* file_ = nullptr;
  record_batch batch_;
  std::int64_t next_id_ = 0;
  int evaluated_ = 0, failed_ = 0;
  double best_time_ = inf;
  bool sources_sent_ = false;
  double busy_at_start_s_ = 0;
  checkpoint_writer* checkpoints_ = nullptr;  // rank 0
  bool scheduled_;                            // replay: migrants arrive by generation, not by timing
  std::vector<int> targets_, sources_;        // islands this one sends to / receives from
  // sender generation -> sending island -> migrants
  std::map<int, std::map<int, std::vector<todo_item>>> inbox_;
  struct variant {
    std::string hash, text;
    std::unique_ptr<core::search_space> space;  // null for the template (s_.space)
  };
  std::vector<variant> variants_;  // index: the island's variant number; 0 = the template
  std::map<std::string, int> variant_of_hash_;
  // The same, by the hash of the program (propose::program_text): a rewrite that differs from a
  // registered source only in comments and blanks is that source's variant.
  std::map<std::string, int> variant_of_program_;
  // The template as a model sees it: its local includes (the shared CUDA/HIP kernels) inlined
  // (propose/llm/local_includes.hpp). Registered as the template's variant: unchanged, it is the
  // template, whose candidates are still built from its file.
  std::string template_for_model_;
  const std::string& source_for_model(int variant) const {
    return variant == 0 ? template_for_model_ : variants_[static_cast<std::size_t>(variant)].text;
  }
  std::unique_ptr<propose::llm_proposer> llm_;
  std::map<std::int64_t, double> measured_s_;         // median time of the correct candidates this island took in
  std::map<std::int64_t, std::string> profile_text_;  // candidate_profile(), cached
  std::map<std::int64_t, std::vector<eval::profile_metric>> profile_metrics_;  // the profiler's, per candidate
  core::rng llm_rng_{core::derive_seed(s_.config.seed, static_cast<std::uint64_t>(migrants_.rank()), 31)};
  int variations_ = 0;
  std::int64_t llm_calls_ = 0;
  bool llm_exhausted_reported_ = false;
  int stagnant_generations_ = 0;
  int stagnant_in_session_ = 0;  // the same, counted from this session's start (the stagnation rule)
  // The stopping rule ([run] target_roofline, stagnant_generations) this island's last generation reached.
  stop_reason rule_reached() const;
  std::optional<core::genome> template_point_;      // island 0's first candidate ([strategy] template_first)
  std::vector<core::point> declared_to_try_;        // values of parameters a model declared, not tried yet
  std::unique_ptr<core::strategy> strategy_;        // null: the island's GA proposes the template's genomes
  std::map<std::string, std::string> prompt_base_;  // what every variation prompt says of family and hardware
  double best_at_last_generation_ = inf;
  int migrants_through_ = 0;                          // sender generation of the last migrants taken in
  std::set<int> finished_sources_, stopped_sources_;  // senders that said "done" / "stopped"
  bool halted_ = false;                               // scheduled migrants cannot come before a stop: leave the loop
  bool stopped_ = false;                              // the loop ended on a stop request, not at its end
  double wall_offset_s_ = 0;                          // search time of earlier sessions
  int session_ = 0;                                   // this start of the run (0: the first; resume_plan::session)
  int stalled_generations_ = 0;                       // generations in a row left to the model alone that it added nothing to
  double longest_eval_s_ = 0;
  std::string generation_start_;  // snapshot JSON of the island as the generation in flight found it
  // Rows of a generation a stop request cut short in an earlier session, by carried_key().
  std::map<std::string, std::pair<core::point, store::candidate_row>> carried_;
  std::string carried_key(const core::point& p) const {
    return std::to_string(p.variant) + " " + island_.space(p.variant).to_json(p.g);
  }
  struct {
    double evaluating_s = 0, mpi_s = 0, migration_s = 0, hdf5_s = 0;
    double model_s = 0;  // in LLM calls (the evaluations of their candidates count as evaluating)
  } spent_;              // this session's time, by what it went to
  std::optional<store::candidate_row> best_row_;
  std::optional<store::candidate_row> best_own_;
  std::map<std::string, std::string> known_sources_;  // rank 0: hash -> text of every source written
  std::vector<int> group_;
};

}  // namespace galapagos::run
