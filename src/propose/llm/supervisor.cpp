#include "propose/llm/supervisor.hpp"

namespace galapagos::propose {

std::string supervisor::note(const std::string& tool, const std::string& outcome, const std::string& edits, bool faster) {
  if (after_ <= 0) return "";
  std::string stall;
  const bool has_edits = edits.find_first_not_of(" \t\r\n") != std::string::npos;
  if (has_edits && !edits_seen_.insert(edits).second) {
    stall = "the same edit was sent again (" + tool + ", " + outcome + ")";
  } else if (tool == "evaluate" && outcome == "ok" && faster) {
    stalled_ = 0;
    outcomes_.clear();
  } else if (!((tool == "compile" && outcome == "compiled") || tool == "profile")) {
    ++stalled_;
    outcomes_ += (outcomes_.empty() ? "" : ", ") + tool + " " + (tool == "evaluate" && outcome == "ok" ? "no faster" : outcome);
    if (stalled_ >= after_) stall = std::to_string(stalled_) + " tool calls in a row made no progress (" + outcomes_ + ")";
  }
  if (stall.empty()) return "";
  stalled_ = 0;
  outcomes_.clear();
  ++redirections_;
  return stall;
}

std::string supervisor::message(const std::string& stall, const std::string& parent_profile) {
  std::string direction;
  if (parent_profile.find("memory-bound") != std::string::npos)
    direction =
        "The parent's profile says it is memory-bound: aim at memory traffic instead (block for cache reuse, fuse "
        "passes, read and write each element fewer times, stream the stores).";
  else if (parent_profile.find("compute-bound") != std::string::npos)
    direction =
        "The parent's profile says it is compute-bound: aim at the arithmetic instead (vectorise, fused "
        "multiply-adds, more independent operations in flight, less redundant work).";
  else
    direction =
        "Step back from the current edit: try another loop order, blocking scheme, data layout, or "
        "parallelisation strategy.";
  if (parent_profile.find("far from both ceilings") != std::string::npos)
    direction +=
        " It is far from both ceilings, so the code's structure (parallelism, vectorisation, access pattern, "
        "overheads) is what limits it.";
  else if (parent_profile.find("close to its ceiling") != std::string::npos)
    direction += " It is close to its ceiling, so only doing less work will pay off.";
  return "## Supervisor\n\nThis conversation has stalled: " + stall +
         ". Do not repeat or patch that approach; take a different direction. " + direction;
}

}  // namespace galapagos::propose
