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

// Whether the run has been asked to stop (SIGTERM/SIGUSR1 under MPI: archipelago::stop_request),
// and whether work of a given length still fits the time left to checkpoint.
class stop_signal {
 public:
  virtual ~stop_signal() = default;
  // Looks for a request without waiting; returns requested().
  virtual bool poll() = 0;
  virtual bool requested() const = 0;
  // Whether work expected to take `next_s` seconds would end too late to checkpoint.
  virtual bool out_of_time(double next_s) const = 0;
};

}  // namespace galapagos::run
