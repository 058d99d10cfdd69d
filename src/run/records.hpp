// Rows for the results file travel from every island to rank 0, the file's one writer, as
// JSON text over MPI. This is their encoding.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "eval/evaluator.hpp"
#include "store/results_file.hpp"

namespace galapagos::store {
// JSON forms of rows that travel between ranks (NaN travels as null).
void to_json(nlohmann::json& j, const candidate_row& r);
void from_json(const nlohmann::json& j, candidate_row& r);
void to_json(nlohmann::json& j, const baseline_row& r);
void from_json(const nlohmann::json& j, baseline_row& r);
void to_json(nlohmann::json& j, const llm_call_row& r);
void from_json(const nlohmann::json& j, llm_call_row& r);
void to_json(nlohmann::json& j, const machine_row& r);
void to_json(nlohmann::json& j, const orchestration_row& r);
void from_json(const nlohmann::json& j, orchestration_row& r);
void from_json(const nlohmann::json& j, machine_row& r);
void to_json(nlohmann::json& j, const baseline_timing_row& r);
void from_json(const nlohmann::json& j, baseline_timing_row& r);
class results_reader;
}  // namespace galapagos::store

namespace galapagos::run {

// The order the islands pick their best row by: the lower fitness, ties to the lower id (so that
// a replayed run picks the same winner). True when `c` beats `best` (or there is none yet).
inline bool better_row(const store::candidate_row& c, const std::optional<store::candidate_row>& best) {
  return !best || c.fitness < best->fitness || (c.fitness == best->fitness && c.id < best->id);
}

// The /machine table of a results file: the probe of every island's node, in file order.
std::vector<store::machine_row> read_machines(const store::results_reader& f);

// The fields a measurement gives every row that records one (a candidate_row or a baseline_row):
// status, reason, source, setup and timing figures, error, roofline fraction, energy.
template <class Row>
void record_measurement(const eval::measurement& m, Row& r) {
  r.status = eval::status_name(m.status);
  r.reason = m.reason;
  r.source_hash = m.source_hash;
  r.setup_time_s = m.setup_time_s;
  r.time_median_s = m.time_median_s;
  r.time_min_s = m.time_min_s;
  r.time_spread_s = m.time_spread_s;
  r.repetitions = m.repetitions;
  r.rel_error = m.rel_error;
  r.roofline_fraction = m.roofline_fraction();
  r.energy_j = m.energy_j;
  r.power_w = m.power_w;
  r.sm_clock_mhz = m.sm_clock_mhz;
  r.throttled_runs = m.throttled_runs;
}

struct record_batch {
  std::vector<store::candidate_row> candidates;
  std::vector<store::population_row> populations;
  std::vector<store::migration_row> migrations;
  std::vector<store::generation_row> generations;
  std::vector<std::pair<std::string, std::string>> sources;  // hash, text
  std::vector<store::profile_row> profiles;
  std::vector<store::llm_call_row> llm_calls;
  std::vector<store::orchestration_row> orchestration;
  std::vector<store::baseline_timing_row> baseline_timings;
  // The island's state after the generation these rows complete (JSON, run/checkpoint.hpp);
  // empty when the batch completes no generation.
  std::string state;
  bool empty() const {
    return candidates.empty() && populations.empty() && migrations.empty() && generations.empty() && sources.empty() &&
           profiles.empty() && llm_calls.empty() && orchestration.empty() && baseline_timings.empty() && state.empty();
  }
  void clear() { *this = record_batch{}; }
};

std::string encode(const record_batch& b);
record_batch decode(const std::string& text);
void write_batch(store::results_file& f, const record_batch& b);

}  // namespace galapagos::run
