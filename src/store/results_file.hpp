// The HDF5 results file of one run (schema: docs/hdf5-schema.md). One writer per file: under
// MPI the archipelago funnels every record to rank 0, so this module knows nothing about MPI.
// Rows are appended to chunked, extendible compound tables and flushed at every call to
// flush(), so a killed job leaves a file that opens and holds every flushed row.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "store/attribute_value.hpp"

namespace galapagos::store {

struct candidate_row {
  std::int64_t id = -1;
  std::int32_t island = 0;
  std::int32_t generation = 0;
  std::string origin;       // "random", "offspring", "migrant", "winner_recheck", ...
  std::string status;       // ok, compile_error, crash, timeout, wrong_result, ...
  std::string reason;       // one line: why it failed, empty when ok
  std::string params;       // JSON object {"NAME": value}
  std::string parents;      // JSON array of candidate ids
  std::string source_hash;  // key into /sources
  double compile_time_s = 0;
  double setup_time_s = 0;   // the candidate's setup phase (format conversion) at the fitness size
  double eval_time_s = 0;    // wall time of the whole evaluation (checks + timing)
  double time_median_s = 0;  // NaN when not ok
  double time_min_s = 0;
  double time_spread_s = 0;  // interquartile range of the timed runs
  std::int32_t repetitions = 0;
  double rel_error = 0;             // max over checks of max|out-ref| / max|ref|
  double speedup = 0;               // baseline_time_s / this median (search-time speedup); NaN when not ok
  double baseline_time_s = 0;       // the fastest baseline as the island re-timed it for this generation
  double roofline_fraction = 0;     // cost-model floor at measured ceilings / median; NaN when not ok
  double device_time_s = 0;         // wall time the device was held for this candidate's checks and timing
  double energy_j = 0;              // GPU energy per call (NVML or ROCm SMI, sustained calls); NaN when not measured
  double power_w = 0;               // mean board power during those calls; NaN when not measured
  double sm_clock_mhz = 0;          // median SM clock after the timed runs; NaN when not measured
  std::int32_t throttled_runs = 0;  // timed runs after which the clock was held down (power, thermal)
  // What the search minimised for this candidate, in the root attribute fitness_unit: the time
  // (s), energy (J) or energy x time (J*s) of one call ([search] objective); NaN when not ok.
  double fitness = 0;
};

struct baseline_row {
  std::string name;
  std::string status;
  std::string reason;
  std::string source_hash;
  double setup_time_s = 0;
  double time_median_s = 0, time_min_s = 0, time_spread_s = 0;
  std::int32_t repetitions = 0;
  double rel_error = 0;
  double roofline_fraction = 0;
  double energy_j = 0, power_w = 0, sm_clock_mhz = 0;  // as in candidate_row
  std::int32_t throttled_runs = 0;
  std::int32_t island = 0;  // the island that measured it: the first of its family and backend
};

struct baseline_timing_row {  // the fastest baseline re-timed by one island at the start of one generation
  std::int32_t session = 0, island = 0, generation = 0;
  std::string name;    // the baseline
  std::string status;  // ok, or why the timing failed (the island keeps its previous time)
  double time_median_s = 0, time_min_s = 0, time_spread_s = 0;
  std::int32_t repetitions = 0;
  double wall_time_s = 0;  // the island's search time when it was timed
};

struct population_row {  // one member of an island's population after a generation
  std::int32_t island = 0, generation = 0, rank = 0;
  std::int64_t candidate_id = -1;
  double fitness = 0;
};

struct migration_row {  // one individual sent from one island to another
  std::int32_t generation = 0, from_island = 0, to_island = 0;
  std::int64_t candidate_id = -1;  // id on the sending island
  std::string params;
  double fitness = 0;
  std::string source_hash;  // the source it is built from, in /sources; "" for the family's template
};

struct generation_row {  // one progress line of one island
  std::int32_t island = 0, generation = 0, evaluated = 0, failed = 0;
  double best_time_s = 0, best_speedup = 0, wall_time_s = 0;
  double device_busy_s = 0;  // of wall_time_s, the time the island's device was held for measuring
};

struct orchestration_row {  // where one island's search time went in one session (start) of the run
  std::int32_t session = 0, island = 0;
  double search_s = 0;         // the island's search loop, this session
  double evaluating_s = 0;     // measuring candidates (or serving replayed measurements)
  double model_s = 0;          // waiting for the LLM's replies
  double orchestration_s = 0;  // the rest: mpi_s + migration_s + hdf5_s + logic_s
  double mpi_s = 0, migration_s = 0, hdf5_s = 0, logic_s = 0;
};

struct profile_row {  // one profiler metric of one kernel launched by a profiled candidate
  std::int64_t candidate_id = -1;
  std::int32_t island = 0;
  std::string kernel;       // the kernel's name as the profiler reports it
  std::int32_t launch = 0;  // which launch of the candidate's call (0, 1, ...)
  std::string metric, unit;
  double value = 0;
};

struct llm_call_row {    // one request to a language model (the LLM proposer); never holds the API key
  std::int64_t id = -1;  // island * 1000000 + number of the call on that island
  std::int32_t island = 0, generation = 0;
  std::int32_t variation = 0;  // the island's variation (conversation) this call belongs to
  std::int32_t turn = 0;       // 0 = the proposal, 1.. = repairs (or turns of tool calls)
  std::string tool;            // a tool call the model made in the turn (compile, evaluate, profile); "": a request
  std::string model;           // the [[llm.models]] name
  std::string status;          // the client's: ok, http_error, timeout, network_error, malformed, budget_exhausted
  std::string reason;          // why not ok, one line
  std::int32_t http_status = 0, attempts = 0;
  std::int64_t prompt_tokens = 0, completion_tokens = 0;
  double cost = 0;       // money, from the model's prices
  double latency_s = 0;  // the whole call, retries included
  std::int32_t edits_applied = 0, edits_failed = 0;
  std::string outcome;             // accepted, the evaluator's status, no_edits, edits_not_applied, ...
  std::int64_t candidate_id = -1;  // the candidate the call produced; -1: none
  std::string prompt, response;    // the messages sent and the answer's text
};

struct machine_row {  // the hardware probe of the node an island ran on
  std::int32_t island = 0;
  std::string host, cpu_model;
  std::int32_t cores = 0;
  std::int64_t llc_bytes = 0;
  double bandwidth_gbs = 0;    // STREAM-like, bytes read + written per second / 1e9
  double peak_gflops = 0;      // practical peak arithmetic rate (float64: BLAS dgemm)
  double peak_gflops_f32 = 0;  // float32 (BLAS sgemm)
};

struct recheck_row {  // one `galapagos recheck` of the run's winner, on the machine it ran on
  std::string utc, host, cpu_model, gpu, driver, compiler, galapagos_version, git_revision;
  std::string changes;  // what the recheck was told to change (JSON: tolerance, baseline_flags); "{}": nothing
  std::int64_t candidate_id = -1;
  std::string status, reason;  // the winner's check now
  double time_median_s = 0, time_p50_s = 0, time_p99_s = 0, time_spread_s = 0;
  std::int32_t repetitions = 0;
  std::string fastest_baseline;
  double baseline_median_s = 0;
  double speedup = 0;                     // fastest baseline's median / the winner's, now (NaN: the winner failed)
  double recorded_speedup = 0;            // /winner speedup as the run recorded it
  double sm_clock_mhz = 0, energy_j = 0;  // GPUs (NaN otherwise)
  std::int32_t throttled_runs = 0;
  std::string verdict;  // still_faster, no_longer_faster, no_longer_correct
};

class results_file {
 public:
  // Creates (truncates) the file and writes the root attributes, and schema_version. Throws
  // galapagos::error.
  static results_file create(const std::string& path, const attributes& root_attrs);
  // Opens a results file this build wrote, to append to it (a resumed run's working copy).
  // Throws galapagos::error naming the file.
  static results_file open(const std::string& path);
  results_file(results_file&&) noexcept;
  results_file& operator=(results_file&&) noexcept;
  ~results_file();

  void append(const std::vector<candidate_row>& rows);
  void append(const std::vector<baseline_row>& rows);
  void append(const std::vector<baseline_timing_row>& rows);
  void append(const std::vector<population_row>& rows);
  void append(const std::vector<migration_row>& rows);
  void append(const std::vector<generation_row>& rows);
  void append(const std::vector<machine_row>& rows);
  void append(const std::vector<orchestration_row>& rows);
  void append(const std::vector<profile_row>& rows);
  void append(const std::vector<llm_call_row>& rows);
  void append(const std::vector<recheck_row>& rows);
  // Stores a source text once under /sources/<hash> (no-op if present).
  void add_source(const std::string& hash, const std::string& text);
  // Writes (or replaces) attributes of a group, creating it (e.g. "/winner"), each in the HDF5
  // type of its kind: text, number, integer or flag (docs/hdf5-schema.md, "Attributes").
  void set_attributes(const std::string& group, const attributes& attrs);
  void set_attribute(const std::string& group, const std::string& key, const attribute_value& value);
  // Writes a text as a 1-D uint8 dataset at `dataset` (e.g. "/checkpoint/island_0/rng_state"),
  // creating it and its groups on first use and overwriting it in place afterwards, so that a
  // text rewritten at every checkpoint does not make the file grow (variable-length strings
  // would leave their old copies behind).
  void set_text(const std::string& dataset, const std::string& text);
  void flush();
  // Flushes and closes the file; nothing may be called afterwards but the destructor.
  void close();
  const std::string& path() const;

 private:
  struct impl;
  explicit results_file(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

}  // namespace galapagos::store
