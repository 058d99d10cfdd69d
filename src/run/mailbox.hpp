// How an island reaches the other islands of its run: messages (text payloads) to a numbered
// island, and those that have arrived. The MPI implementation is archipelago::message_channel
// (one rank per island); local_mailbox.hpp keeps several islands in one process (tests).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace galapagos::run {

class mailbox {
 public:
  virtual ~mailbox() = default;
  virtual int rank() const = 0;  // this island
  virtual int size() const = 0;  // islands in the run
  // Sends without waiting; messages from one island to another arrive in the order sent.
  virtual void send(int dest, std::string payload) = 0;
  // Every message that has arrived so far (source, payload), without waiting.
  virtual std::vector<std::pair<int, std::string>> poll() = 0;
};

// Why a run stops before its budget is spent, weakest first. The run's own rules (a target
// fraction of the roofline reached, generations without a better best, its time limit) end the
// search: the winner is compared and written as at the end of the budget. A stop from outside
// (the Slurm job about to end, SIGTERM or SIGUSR1) checkpoints for `galapagos resume`.
enum class stop_reason { none = 0, target_roofline, stagnation, time_limit, job_end, signal };

inline const char* to_string(stop_reason r) {
  switch (r) {
    case stop_reason::none:
      return "none";
    case stop_reason::target_roofline:
      return "target_roofline";
    case stop_reason::stagnation:
      return "stagnation";
    case stop_reason::time_limit:
      return "time_limit";
    case stop_reason::job_end:
      return "job_end";
    case stop_reason::signal:
      return "signal";
  }
  return "none";
}

// Whether a stop for `r` ends the search with a winner (a rule of the run's), rather than
// checkpointing it for resume.
inline bool ends_search(stop_reason r) {
  return r == stop_reason::target_roofline || r == stop_reason::stagnation || r == stop_reason::time_limit;
}

// Whether the run has been asked to stop (SIGTERM/SIGUSR1 under MPI: archipelago::stop_request,
// or a stopping rule an island or the clock reached), why, and whether work of a given length
// still fits the time left to checkpoint.
class stop_signal {
 public:
  virtual ~stop_signal() = default;
  // Looks for a request without waiting; returns requested().
  virtual bool poll() = 0;
  virtual bool requested() const = 0;
  // This island reached a stopping rule: every island stops within the grace period.
  virtual void request(stop_reason why) = 0;
  // The strongest reason any island has told this one so far (none: no request).
  virtual stop_reason reason() const = 0;
  // Whether work expected to take `next_s` seconds would end too late to checkpoint.
  virtual bool out_of_time(double next_s) const = 0;
};

}  // namespace galapagos::run
