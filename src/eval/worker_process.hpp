// The orchestrator's handle on one galapagos-worker: spawned in its own session with a clean
// environment and a private scratch folder, talked to over a socket pair, killed with its whole
// process group on a wall-clock deadline. Every way a worker can fail becomes a status.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "eval/candidate_status.hpp"
#include "worker/protocol.hpp"

namespace galapagos::eval {

namespace protocol = worker::protocol;  // the orchestrator's side speaks it too

class arena;

struct worker_options {
  std::filesystem::path executable;    // galapagos-worker
  std::filesystem::path scratch_root;  // a private folder is made below it
  int threads = 0;
  std::size_t flush_bytes = 64u << 20;
  // The CPU's flush buffer: a memfd of flush_bytes that the orchestrator faulted in once (a
  // worker starts per candidate; faulting its own 192 MB cost ~70 ms of each start on the 2-core
  // VM), or -1 for the worker's own memory.
  int flush_fd = -1;
  std::uint64_t address_space_bytes = 0;  // 0 = no limit
  std::uint64_t cpu_seconds = 120;
  std::string backend = "cpu";  // the worker's device backend: cpu | cuda
  int device_index = 0;
  // A program that starts the worker and stays its parent (a profiler), with its arguments; its
  // first element is an absolute path. Empty: the worker is started directly.
  std::vector<std::string> launcher;
};

// The result of one request: either a valid reply, or why there is none.
struct call_result {
  bool replied = false;
  protocol::reply reply{};
  candidate_status status = candidate_status::ok;  // when !replied: timeout, crash, sandbox_violation, protocol_error
  std::string reason;
  // The orchestrator's clock from sending the request until the worker was frozen after its
  // reply (or, for a worker started under a launcher, until the reply arrived).
  double elapsed_s = 0;
  double sent_at_s = 0;  // steady clock when the request was sent
};

class worker_process {
 public:
  worker_process(const worker_options& opt, const arena& shared);
  worker_process(const worker_process&) = delete;
  worker_process& operator=(const worker_process&) = delete;
  ~worker_process();  // kills the process group, reaps it, removes the scratch folder

  // Sends one request and waits for its reply. A worker started directly is frozen (SIGSTOP,
  // confirmed by waitpid) the moment its reply arrives, and continued only when the next request
  // is sent: nothing of a candidate runs between a reply and the orchestrator's checks of the
  // shared arena, and whatever it did before it was frozen lies inside elapsed_s.
  call_result call(protocol::request q, double timeout_s);
  // Threads of the worker process now, read by the orchestrator from /proc (-1: unknown). While
  // the worker is frozen the count cannot change except by threads that finish exiting.
  int thread_count() const;
  bool frozen() const { return frozen_; }
  // Asks the worker to quit and waits up to timeout_s for its process (or the launcher that
  // started it) to exit on its own; true when it exited with status 0. Killed otherwise.
  bool finish(double timeout_s);
  bool alive() const { return pid_ > 0; }

 private:
  void kill_and_reap(call_result& out, bool timed_out);
  void freeze();
  void thaw();
  int socket_ = -1;
  bool freezes_ = true;  // false under a launcher: the worker is not our child
  bool frozen_ = false;
  pid_t pid_ = -1;
  std::uint64_t next_nonce_;
  std::filesystem::path scratch_;
};

// Path of galapagos-worker: $GALAPAGOS_WORKER, else next to the running executable.
std::filesystem::path default_worker_executable();

}  // namespace galapagos::eval
