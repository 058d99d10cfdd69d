// The ledger of a run: what the search cost (wall time, device- and core-hours spent evaluating,
// energy, model tokens and money) against what its winner saves per call, the break-even number
// of calls, the cost per accepted improvement and the share of candidates accepted. Computed at
// the end of a run (and of every resume that finishes it) from the published results file and
// the final comparison, written as the attributes of /ledger (docs/hdf5-schema.md) and printed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "config/run_config.hpp"
#include "eval/rapl.hpp"
#include "store/attribute_value.hpp"
#include "store/results_file.hpp"

namespace galapagos::run {

struct ledger_inputs {
  std::string results;              // the published results file, holding every row of the run
  std::string backend;              // "cpu": the device is the node's CPU; else a GPU
  int session = 0;                  // this session (its figures are passed, the earlier ones read)
  double session_wall_s = 0;        // this session's wall time so far
  double session_cpu_energy_j = 0;  // RAPL over this session; NaN: unavailable
  std::string cpu_energy_note;      // why it is unavailable (empty when measured)
  bool prices_configured = false;   // some [[llm.models]] has a price per token
  nlohmann::json winner = nullptr;  // final_comparison's result (null: no winner)
};

// The /ledger attributes: numbers (NaN where not available) and, beside every figure that can be
// unavailable, `<figure>_note` saying why. Throws galapagos::error naming the file.
store::attributes compute_ledger(const ledger_inputs& in);

// The ledger's lines of the end-of-run summary.
void print_ledger(const store::attributes& ledger);

// One session's (start's) share: its wall time and the CPU packages' energy (RAPL) from its start.
class session_meter {
 public:
  session_meter() : start_(eval::read_rapl()) {}
  // Writes `wall_s` and cpu_energy_j (NaN and cpu_energy_j_note when RAPL is unreadable) to the
  // session's group of the working copy.
  void close(store::results_file& f, const std::string& session_group, double wall_s);
  double wall_s = 0, cpu_energy_j = 0;
  std::string cpu_energy_note;

 private:
  eval::rapl_reading start_;
};

// At the end of a finished run (rank 0, after the final comparison and `meter.close`): computes the
// ledger from the published file `cfg.out` and `winner`, writes /ledger into `f` and prints it. A
// ledger that cannot be computed is a printed problem, never a failed run.
void write_ledger(store::results_file& f, const config::run_config& cfg, int session, const session_meter& meter,
                  const nlohmann::json& winner);

}  // namespace galapagos::run
