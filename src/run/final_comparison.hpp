// The final word on a group's winner: timed interleaved with every baseline of its family and
// backend (A B A B ..., each run verified), printed, and written to the results file.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "run/setup.hpp"
#include "store/results_file.hpp"

namespace galapagos::run {

// Times the winner `best` (its variant's text, empty for the template) against the baselines.
// Prints it (titled by `group` in a mixed job) and returns what /winner holds: {"strings": {...},
// "numbers": {...}, "code": 0 or 1 (the winner failed its final check)}; `code` is raised to it.
nlohmann::json final_comparison(setup& s, const store::candidate_row& best, const std::string& variant_text,
                                const std::string& group, int& code);

// Writes a final_comparison's result as the attributes of `group` (/winner, /winners/<kind>).
void write_winner(store::results_file& f, const std::string& group, const nlohmann::json& w);

}  // namespace galapagos::run
