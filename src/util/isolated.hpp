// Runs a function in a forked child process, so that a crash or a hang in library code working
// on untrusted data (libhdf5 reading a damaged file) ends the child, not galapagos.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

namespace galapagos::util {

struct isolated_outcome {
  enum class kind { exited, signaled, timed_out } how = kind::exited;
  int code = 0;         // the exit status (exited) or the signal (signaled)
  std::string message;  // what the child wrote to its message stream
  std::string signal_name() const;  // "SIGSEGV (Segmentation fault)"
};

// Forks; the child runs fn(message_fd) and exits with what it returns (no atexit handlers, no
// stdio flush), its standard output and error sent to /dev/null. fn may write a message to
// message_fd. The child dies with its parent, writes no
// core file, and is killed after timeout_s. Throws std::system_error when it cannot fork.
isolated_outcome run_isolated(const std::function<int(int message_fd)>& fn, double timeout_s);

// What run_isolated does first in its child, for children forked elsewhere: default handlers of
// the crash signals, no core file, death with `parent`, standard output and error to /dev/null.
void quiet_child(pid_t parent);

}  // namespace galapagos::util
