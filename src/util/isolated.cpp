#include "util/isolated.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstring>

namespace galapagos::util {

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

std::string signal_description(int sig) {
  const char* what = strsignal(sig);
  return what ? signal_name(sig) + " (" + what + ")" : signal_name(sig);
}

void quiet_child(pid_t parent) {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGPIPE, SIGTRAP, SIGSYS}) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
  // Quiet: what a library prints while it fails (glibc's "munmap_chunk(): invalid pointer",
  // HDF5's error stack) is not the caller's one line.
  const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null >= 0) dup2(null, STDOUT_FILENO), dup2(null, STDERR_FILENO);
}

}  // namespace galapagos::util
