// Tool calls within a variation (OpenAI-compatible tool calling): with [llm] tools = true the
// model may, within its turns, call
//
//   compile  {"edits": SEARCH/REPLACE blocks}  the working source, edited, built: the diagnostics
//   evaluate {"edits": SEARCH/REPLACE blocks}  the working source, edited, judged as a candidate
//                                              of the island: status, time, roofline, reason
//   profile  {"candidate": id}                 what is known of a candidate's performance
//                                              (profile_text.hpp); no id: the parent
//
// The working source starts as the parent's; edits (optional) apply to it within its evolve
// regions, as a proposal's do, and stay applied. An answer without tool calls is the proposal:
// its edits against the working source, or, with none, the working source itself. A program the
// evaluate tool judged is not judged again when proposed.
#pragma once

#include <string>
#include <vector>

namespace galapagos::propose {

// The tools' definitions, the JSON array a request's `tools` holds.
std::string tool_definitions();

// A model's SEARCH/REPLACE text applied to a source.
struct source_edit {
  std::string source;              // the edited source (outcome empty)
  std::string outcome;             // empty: changed; else no_edits, edits_not_applied or unchanged
  std::string problem;             // what the model is told when not changed
  std::vector<std::string> notes;  // blocks not applied, malformed blocks, one line each
  int applied = 0, failed = 0;
};
source_edit edit_source(const std::string& current, const std::string& answer, bool whole_file);

}  // namespace galapagos::propose
