// SIGTERM and SIGUSR1 ask a run to checkpoint and exit 0 within [run] grace_s. A signal may
// reach only some ranks (`scancel --signal` to one task; mpirun forwards SIGUSR1 to all), so a
// rank that sees one tells every other rank on a communicator of its own; ranks look at their
// own flag and at those messages between evaluations and at the end of every generation,
// never waiting for each other while searching.
#pragma once

#include <mpi.h>

#include <chrono>
#include <functional>
#include <vector>

#include "archipelago/channels.hpp"
#include "run/mailbox.hpp"

namespace galapagos::archipelago {

// Installs the handlers of SIGTERM and SIGUSR1: they only set a flag and note the time, so a
// signal that arrives while the run is being set up is answered at the first safe point.
void install_stop_handlers();

class stop_request : public run::stop_signal {
 public:
  stop_request(MPI_Comm comm, double grace_s);
  ~stop_request();
  stop_request(const stop_request&) = delete;
  stop_request& operator=(const stop_request&) = delete;

  // Looks at this process's signal flag (telling the other ranks the first time) and at the
  // messages of other ranks. Returns requested(). Never waits.
  bool poll() override;
  bool requested() const override { return requested_; }
  // A stopping rule of this island: every rank stops within the grace period, for `why`.
  void request(run::stop_reason why) override;
  run::stop_reason reason() const override { return reason_; }
  // The clock's rules: from `when` on, poll() requests a stop for `why` (--time-limit, the
  // Slurm job's end), with the grace period after it.
  void stop_at(std::chrono::steady_clock::time_point when, run::stop_reason why);
  // Whether work expected to take `next_s` seconds would end in the last quarter of the grace
  // period (or past it): the island then drops the generation in flight and stops. The last
  // quarter is left for the final checkpoint and for ranks waiting on the node lock.
  bool out_of_time(double next_s) const override;
  // Collective: returns once every rank has called it (every island left its search loop),
  // polling meanwhile so that a late signal still reaches every rank; calls `idle` between
  // polls (rank 0 writes the records that keep arriving).
  void wait_for_all(const std::function<void()>& idle);
  // Collective, after wait_for_all: the strongest reason any rank saw (none: no stop request),
  // then settles the messages still in flight.
  run::stop_reason agree();

 private:
  // Takes a request with this deadline and reason; tells the other ranks when it is this rank's own.
  void raise(std::chrono::steady_clock::time_point deadline, run::stop_reason why, bool own);
  void tell_others();
  message_channel control_;
  MPI_Comm barrier_comm_;
  double grace_s_;
  bool requested_ = false, told_signal_ = false;
  run::stop_reason reason_ = run::stop_reason::none;
  std::chrono::steady_clock::time_point deadline_;
  std::vector<std::pair<std::chrono::steady_clock::time_point, run::stop_reason>> timers_;
};

}  // namespace galapagos::archipelago
