// A run's configuration, read strictly from TOML (configs/*.toml; every key documented in
// docs/configuration.md). Unknown keys are errors that name the file and the key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "config/search_tables.hpp"
#include "eval/evaluator.hpp"
#include "propose/llm/proposer.hpp"

namespace galapagos::config {

// When a run ends before its budget is spent ([run] keys, or run's and resume's options; 0: never).
struct stop_rules {
  double time_limit_s = 0;       // wall clock of one session (one start of the run)
  double target_roofline = 0;    // a best candidate at this fraction of the roofline floor, (0, 1]
  int stagnant_generations = 0;  // generations in a row without a better best on an island
};

// Where `galapagos export` writes the winner as a patch ([export], docs/configuration.md): the
// user's source file and the region of it the winner's code replaces.
struct export_target {
  std::filesystem::path user_file;       // empty: the family's template; relative: to the config's folder
  std::string user_file_as_written;      // as the config spells it (the patch's file name when relative)
  std::string begin_marker, end_marker;  // the region: the lines between the lines holding them
  int first_line = 0, last_line = 0;     // or lines first..last (1-based, inclusive); 0: the whole file
};

// Parses a region "A-B" (1-based lines) or "" into first/last; false when malformed.
bool parse_line_range(const std::string& text, int& first, int& last);

// The search tables ([search], [strategy], [migration]: budget, seed, ga, strategy,
// strategy_kinds, migration) come from search_settings, read as `galapagos simulate` reads them.
struct run_config : search_settings {
  std::filesystem::path file;
  std::string text;  // the whole config file, stored in the results
  std::string family;
  std::string backend = "cpu";
  std::filesystem::path out = "results/galapagos.h5";
  std::vector<std::filesystem::path> kernel_paths;
  // After SIGTERM or SIGUSR1, every island checkpoints and the job exits within this many seconds.
  double grace_s = 25;
  stop_rules stop;
  eval::eval_settings eval;
  std::filesystem::path node_lock = "/tmp/galapagos-node.lock";
  int final_rounds = 10;           // interleaved rounds winner vs baselines
  double reference_timeout_s = 0;  // one call of the family's reference; 0: max(60 s, 20 x [eval] timeout_s)
  // The LLM proposer ([llm], docs/llm.md); no models: genomes only. Its budget is the run's,
  // split evenly among the islands.
  propose::llm_settings llm;
  export_target export_to;  // [export]
};

// Throws galapagos::error "<file>: <problem>".
run_config load_run_config(const std::filesystem::path& file);
// The same from the text of a config (a resumed run's stored copy): `file` is where it was
// read from (kernel paths are relative to it), `origin` names it in errors.
run_config parse_run_config(const std::string& text, const std::filesystem::path& file, const std::string& origin);
// The resolved config as TOML: every table and key the run reads, defaults filled in (what
// `galapagos run --print-config` prints; it reads back as the same config).
std::string resolved_config_toml(const run_config& c);
// Settings of the [eval] table alone (also used by `galapagos eval --config`).
eval::eval_settings default_eval_settings();

}  // namespace galapagos::config
