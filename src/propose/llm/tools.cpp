#include "propose/llm/tools.hpp"

#include <chrono>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "propose/llm/edits.hpp"
#include "propose/llm/proposer.hpp"
#include "propose/llm/variant.hpp"

namespace galapagos::propose {

using nlohmann::json;

std::string tool_definitions() {
  const json edits = {{"type", "string"},
                      {"description",
                       "SEARCH/REPLACE blocks applied to the working source first (it starts as the parent's source; "
                       "applied edits stay). Empty: the working source as it stands."}};
  auto function = [](const char* name, const char* description, json properties) {
    return json{{"type", "function"},
                {"function",
                 {{"name", name},
                  {"description", description},
                  {"parameters", {{"type", "object"}, {"properties", std::move(properties)}, {"required", json::array()}}}}}};
  };
  return json::array(
             {function("compile", "Build the working source as a candidate is built; returns the compiler's diagnostics.",
                       {{"edits", edits}}),
              function("evaluate",
                       "Judge the working source as a candidate of the island: built, checked against the "
                       "reference, timed. Returns its status, time, roofline fraction, or the reason it failed. "
                       "Counts as one evaluation of the island's budget; a correct one joins the population.",
                       {{"edits", edits}}),
              function("profile",
                       "What is known of a candidate's performance: roofline position, achieved bandwidth and "
                       "arithmetic rate against the machine's ceilings, profiler metrics on GPUs.",
                       {{"candidate",
                         {{"type", "integer"}, {"description", "the candidate's id (from evaluate); absent: the parent"}}}})})
      .dump();
}

source_edit edit_source(const std::string& current, const std::string& answer, bool whole_file) {
  source_edit out;
  const parsed_edits parsed = parse_edits(answer);
  out.notes = parsed.problems;
  if (parsed.blocks.empty()) {
    out.outcome = "no_edits";
    out.problem = "Your answer held no complete SEARCH/REPLACE block.";
    return out;
  }
  try {
    const edit_result applied = apply_edits(current, parsed.blocks, whole_file);
    out.applied = applied.applied();
    out.failed = static_cast<int>(applied.outcomes.size()) - out.applied;
    for (std::size_t i = 0; i < applied.outcomes.size(); ++i)
      if (!applied.outcomes[i].applied)
        out.notes.push_back("block " + std::to_string(i + 1) + " was not applied: " + applied.outcomes[i].reason);
    if (out.applied == 0) {
      out.outcome = "edits_not_applied";
      out.problem = "None of your SEARCH/REPLACE blocks could be applied.";
    } else if (applied.source == current) {
      out.outcome = "unchanged";
      out.problem = "Your edits left the source unchanged.";
    } else {
      out.source = applied.source;
    }
  } catch (const std::invalid_argument& e) {
    out.outcome = "edits_not_applied";
    out.problem = std::string("The source cannot be edited: ") + e.what();
  }
  return out;
}

}  // namespace galapagos::propose
