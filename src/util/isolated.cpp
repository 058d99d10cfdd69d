#include "util/isolated.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <system_error>

namespace galapagos::util {

std::string isolated_outcome::signal_name() const {
  const char* abbrev = sigabbrev_np(code);
  return std::string("SIG") + (abbrev ? abbrev : std::to_string(code)) + " (" + strsignal(code) + ")";
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

isolated_outcome run_isolated(const std::function<int(int)>& fn, double timeout_s) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int e = errno;
    close(fds[0]);
    close(fds[1]);
    throw std::system_error(e, std::generic_category(), "fork");
  }
  if (pid == 0) {
    close(fds[0]);
    quiet_child(parent);
    _exit(fn(fds[1]));
  }
  close(fds[1]);
  isolated_outcome out;
  const auto start = std::chrono::steady_clock::now();
  auto drain = [&](int wait_ms) {  // what the child wrote (another child forked meanwhile may hold the pipe open too)
    pollfd p{fds[0], POLLIN, 0};
    if (poll(&p, 1, wait_ms) <= 0) return;
    char buf[65536];
    const ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) out.message.append(buf, static_cast<std::size_t>(n));
    if (n == 0) usleep(static_cast<useconds_t>(wait_ms) * 1000);  // end of file: the child is exiting
  };
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) {
      for (std::size_t had = ~std::size_t{0}; had != out.message.size();) had = out.message.size(), drain(0);
      if (WIFSIGNALED(status)) out.how = isolated_outcome::kind::signaled, out.code = WTERMSIG(status);
      else out.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      break;
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > timeout_s) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      out.how = isolated_outcome::kind::timed_out;
      break;
    }
    drain(5);
  }
  close(fds[0]);
  return out;
}

}  // namespace galapagos::util
