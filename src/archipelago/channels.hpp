// Non-blocking MPI traffic between islands: elites migrating to neighbours, and result records
// funnelled to rank 0 (the results file's one writer). Each runs on its own duplicate of the
// communicator so the two never match each other's messages. No call here ever waits for a
// slow island while the search runs; finish() settles what is still in flight at the end.
#pragma once

#include <mpi.h>

#include <list>
#include <string>
#include <vector>

#include "run/mailbox.hpp"

namespace galapagos::archipelago {

class message_channel : public run::mailbox {
 public:
  explicit message_channel(MPI_Comm comm);
  ~message_channel();
  message_channel(const message_channel&) = delete;
  message_channel& operator=(const message_channel&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void send(int dest, std::string payload) override;  // MPI_Isend; the payload is kept until delivered
  // Every message that has arrived so far (source, payload), without waiting: a message is
  // matched as soon as it is announced and received in the background (a large one completes
  // only when its sender next enters MPI); messages of one source come out in the order sent.
  std::vector<std::pair<int, std::string>> poll() override;
  // Collective: receives every message still in flight towards this rank (returned), then
  // completes this rank's own sends.
  std::vector<std::pair<int, std::string>> finish();

 private:
  struct arriving {
    int source = 0;
    MPI_Request request = MPI_REQUEST_NULL;
    std::string payload;
  };
  MPI_Comm comm_;
  std::list<arriving> arriving_;  // matched, in matching order; receives in flight
  int rank_ = 0, size_ = 1;
  std::list<std::pair<MPI_Request, std::string>> pending_;
  std::vector<int> sent_to_, received_from_;
};

// Waits for a non-blocking collective while sleeping, so idle ranks leave the cores to timing.
void wait_politely(MPI_Request& r);

}  // namespace galapagos::archipelago
