// What became of a candidate the evaluator judged: one value per way it passes or fails
// (docs/threat-model.md says which defence gives which). The results file stores the name, the
// `status` column of /candidates and /baselines.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace galapagos::eval {

enum class candidate_status : std::uint8_t {
  ok,                 // correct on every check, timed
  compile_error,      // the build failed
  forbidden_symbol,   // the shared object exports or imports what a candidate may not
  load_error,         // the worker could not load it, or glp_setup failed
  kernel_error,       // the entry point returned an error code
  out_of_memory,      // std::bad_alloc escaped the entry point
  crash,              // the worker died of a signal or a device fault, or an exception escaped
  timeout,            // a call ran past the time limit
  protocol_error,     // the worker broke the protocol (a forged or missing reply)
  sandbox_violation,  // a forbidden system call ended the worker
  wrong_result,       // an output differs from the reference beyond the family's tolerance
  input_modified,     // it wrote to an input
  nondeterministic,   // two runs of one input gave different outputs
  leaked_thread,      // it left threads running after a call
  timer_mismatch,     // the worker's clock disagrees with the orchestrator's
  suspect_too_fast,   // faster than the hardware's floor allows
  not_recorded,       // replay: the recording has no row for it
};

// "ok", "compile_error", ...: the name stored in the results file.
const char* status_name(candidate_status s);
inline std::string to_string(candidate_status s) { return status_name(s); }
inline std::ostream& operator<<(std::ostream& out, candidate_status s) { return out << status_name(s); }
// As JSON (nlohmann-json finds these by argument-dependent lookup): the name, never a number.
template <class Json>
void to_json(Json& j, candidate_status s) {
  j = status_name(s);
}
// The status of a stored name; nullopt for a name no status has.
std::optional<candidate_status> candidate_status_from(std::string_view name);
// Whether a stored name (a row's `status`) is the name of candidate_status::ok: the one test a
// row read back from a file needs, instead of comparing with "ok" by hand.
inline bool stored_ok(std::string_view name) { return candidate_status_from(name) == candidate_status::ok; }
// The same for a name read from `file` (at `where`, e.g. "/candidates row 7"): throws
// galapagos::error "<file>: <where>: unknown status 'x'" for a name no status has.
candidate_status stored_status(const std::string& name, const std::string& file, const std::string& where);

}  // namespace galapagos::eval
