// Checkpoints of a run, and what `galapagos resume` reads back (docs/hdf5-schema.md,
// /checkpoint). Each island sends its state with the records of every generation it completes,
// so rank 0 always holds, for every island, a state that matches exactly the rows of that island
// in the file; a checkpoint writes those states and publishes the working copy atomically over
// the results file (store/publish.hpp). Islands need not stop at the same generation.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/run_config.hpp"
#include "core/island.hpp"
#include "core/search_space.hpp"
#include "store/results_file.hpp"

namespace galapagos::run {

inline constexpr int checkpoint_format_version = 1;

// One island between two generations. A generation a stop request cut short keeps the candidates
// it evaluated: their rows follow the island's `evaluated` rows in /candidates (`unfinished` of
// them), and a resumed island takes their results instead of measuring them again.
struct island_snapshot {
  int island = 0;
  int generation = 0;                             // generations completed
  int evaluated = 0, failed = 0;                  // candidates evaluated by this island (its rows in /candidates)
  std::int64_t next_id = 0;                       // the next candidate's number on this island
  double best_time_s = 0;                         // +inf: nothing correct yet
  double best_speedup = 0;                        // the best row's search-time speedup (NaN: none, or a checkpoint without it)
  double baseline_time_s = 0;                     // the fastest baseline as last re-timed (NaN: not yet)
  double baseline_min_s = 0, baseline_max_s = 0;  // its fastest and slowest correct re-timings (+inf, 0: none)
  double wall_time_s = 0;                         // search time so far, over every session
  int migrants_through = 0;                       // sender generation of the last migrants taken in (0: none)
  bool sources_sent = false;
  std::string rng_state;         // core::rng::state()
  std::string population;        // JSON [{"id", "fitness" (null = failed), "params"}]
  std::string strategy_state;    // core::strategy::state() of a non-GA strategy; empty for the GA
  std::string llm_state;         // the LLM ensemble's bandit statistics (propose::ensemble::state()); empty: none
  std::string llm_conversation;  // what the LLM proposer keeps between variations (llm_proposer::conversation_state())
  int unfinished = 0;            // rows of the generation in progress, after the `evaluated` ones
};
std::string to_json_text(const island_snapshot& s);
island_snapshot snapshot_from_json(const std::string& text);

// An island's population as JSON, and back: genomes through the parameter values of each
// member's own space (so a value list reordered in family.toml still restores correctly), source
// variants named by hash (`variant_hashes[v]` of variant v; none for the template). Reading,
// `variant_of(hash)` gives the island's number of a variant ("" = the template).
std::string population_json(const core::island& island, const std::vector<std::string>& variant_hashes);
std::vector<core::individual> population_from_json(const core::island& island, const std::string& text,
                                                   const std::function<int(const std::string&)>& variant_of,
                                                   const std::string& origin);
// The genome of a parameter object as written in /candidates (`params`); nullopt when a name or
// value is not in the space.
std::optional<core::genome> genome_from_params(const core::search_space& space, const std::string& params_json);

// Settings of the run that are not in its config file (command-line overrides and replay).
struct run_settings {
  int budget = 0;
  std::uint64_t seed = 0;
  std::string replay;  // recording served instead of measuring; empty: none
  double replay_delay_s = 0;
  // The stopping rules in force (/checkpoint; absent in files of earlier galapagos: the config's).
  std::optional<config::stop_rules> stop;
};

// Rank 0: the latest state of every island, written into the working copy and published.
class checkpoint_writer {
 public:
  // status_line: a live status line shows the progress, so checkpoints are announced only when
  // write() is asked to (otherwise each new generation's is, with --verbose only).
  checkpoint_writer(store::results_file& working, std::filesystem::path target, int islands, bool status_line);
  // The state that came with an island's records (snapshot JSON), or one restored from a file.
  void note(const std::string& snapshot_json);
  void note(const island_snapshot& s);
  bool dirty() const { return dirty_; }
  void touch() { dirty_ = true; }  // rows were written that the next checkpoint must publish
  // How write() tells of the checkpoint, "checkpoint written: generation N, FILE":
  //   when_new   with --verbose, when N (the generation every island has completed) moved on
  //              and no live status line shows the progress
  //   verbose    with --verbose, always (the start and the end of a session)
  //   shown      always, at every level (a stopped run: the file to resume)
  enum class announce { when_new, verbose, shown };
  // Writes the islands' states and the /checkpoint attributes, and publishes the working copy
  // over the target.
  void write(announce how = announce::when_new);
  // The end of a finished run: the working copy is closed and becomes the results file.
  void finish();
  int generation() const;  // the least generation over the islands
  int count() const { return count_; }
  double total_s() const { return total_s_; }      // over every session of the run
  double session_s() const { return session_s_; }  // this session's
  void set_history(int count, double total_s) { count_ = count, total_s_ = total_s; }

 private:
  store::results_file& working_;
  std::filesystem::path target_;
  int islands_;
  bool status_line_;
  std::map<int, island_snapshot> latest_;
  std::map<int, bool> changed_;
  bool dirty_ = true;
  int announced_ = -1;
  int count_ = 0;
  double total_s_ = 0, session_s_ = 0;
};

// What `galapagos resume FILE` starts from. Read on rank 0 and broadcast as JSON.
struct resume_plan {
  std::string path;
  bool finished = false;  // the run had finished: read further only to extend it (resume --budget)
  std::string config_text, config_file;
  run_settings settings;
  // A mixed job (islands of several families or backends, groups.hpp): each island's kind
  // ("family/backend"), and per kind the config and settings its islands ran (root attribute
  // kind_configs); config_text and settings above are island 0's. Empty for a job of one kind.
  struct kind_config {
    std::string config_text, config_file;
    int budget = 0;
    std::uint64_t seed = 0;
  };
  std::vector<std::string> island_kinds;
  std::map<std::string, kind_config> kind_configs;
  int islands = 0;
  int session = 0;  // number of this session (0: the original run)
  int checkpoints = 0;
  double checkpoint_time_s = 0;
  int baseline_rows = 0;                     // rows of /baselines so far (earlier sessions)
  std::vector<store::machine_row> machines;  // /machine: the probes the run is judged against
  struct island {
    std::optional<island_snapshot> snapshot;  // none: the island had not completed a generation
    std::vector<std::string> seen;            // params of every candidate it evaluated
    std::vector<std::string> seen_sources;    // and the source_hash of each (a rewrite's, or the template's)
    // The rows of the generation a stop cut short (island_snapshot::unfinished), in file order:
    // not in `seen`, their results are taken again as the resumed generation proposes them.
    std::vector<store::candidate_row> carried;
    struct migrant {
      int from = 0, generation = 0;
      std::int64_t id = -1;
      std::string params;
      std::string source_hash;  // a rewrite's (its text in resume_plan::sources); "" for the template
    };
    std::vector<migrant> migrants;  // /migrations rows addressed to it, in file order
    // Its best correct row so far, as the islands judge it: the lowest fitness, ties to the lower id.
    std::optional<store::candidate_row> best;
    // The LLM proposer's part of the run so far (/llm_calls rows of the island).
    int llm_calls = 0, llm_variations = 0;
    std::int64_t llm_tokens = 0;
    double llm_cost = 0;
  };
  std::vector<island> per_island;
  // The LLM-made rewrites the run evaluated or sent as migrants (source_hash of the rows of origin
  // `llm`, and of /migrations rows that name one -> the text in /sources). Every other
  // source_hash is the family's template.
  std::map<std::string, std::string> sources;
};
// Throws galapagos::error "<FILE>: <problem>" for a missing, unreadable or foreign file, one
// without a checkpoint, from another galapagos version, or whose checkpoint disagrees with its
// tables. Reads only; `finished` is set (and nothing else checked) for a finished run.
resume_plan read_resume_plan(const std::string& path, bool extend_finished = false);
std::string to_json_text(const resume_plan& p);
resume_plan resume_plan_from_json(const std::string& text);

}  // namespace galapagos::run
