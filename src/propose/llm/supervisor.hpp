// The supervisor of a tool conversation (AVO's pattern): it watches the model's tool calls
// within one variation and, when the conversation stalls, has a short message put to the model
// that names the stall and points at another direction, read from the parent's profile. A
// stall is `after` tool calls in a row that make no progress (a source that does not compile,
// an evaluation that is rejected or no faster than the parent, edits that do not apply, a
// program already evaluated, bad arguments), or one edit sent again that was sent before in the
// conversation. A call that compiles, and any profile, is neither progress nor a stall; an evaluation
// faster than the parent is progress and starts the count again, and so does each redirection.
#pragma once

#include <set>
#include <string>

namespace galapagos::propose {

class supervisor {
 public:
  explicit supervisor(int after) : after_(after) {}  // after <= 0: never redirects
  // One tool call of the model: its tool, its outcome (tools.hpp's statuses), the edits it
  // sent ("" for none), and whether it evaluated a candidate faster than the parent. Returns
  // the stall when the conversation has stalled ("" when not), and starts counting again.
  std::string note(const std::string& tool, const std::string& outcome, const std::string& edits, bool faster);
  int redirections() const { return redirections_; }

  // What the model is told: the stall, and a direction read from the parent's profile
  // (profile_text.hpp: memory- or compute-bound, far from or close to its ceilings).
  static std::string message(const std::string& stall, const std::string& parent_profile);

 private:
  int after_;
  int stalled_ = 0;  // tool calls in a row without progress
  std::string outcomes_;
  std::set<std::string> edits_seen_;
  int redirections_ = 0;
};

}  // namespace galapagos::propose
