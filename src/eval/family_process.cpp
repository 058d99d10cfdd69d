#include "eval/family_process.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <new>

#include "util/error.hpp"
#include "util/isolated.hpp"

namespace galapagos::eval {

namespace {

std::atomic<double> time_limit_s{1200};

struct mailbox {
  family_process::request request;
  family_process::reply reply;
};

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

const char* code_name(family_code c) {
  switch (c) {
    case family_code::reference:
      return "reference";
    case family_code::checker:
      return "checker (glp_check)";
    case family_code::generator:
      return "generator";
  }
  return "code";
}

// In the child: only the forking thread exists. util::quiet_child (crash signals at their
// defaults, no core file, death with the parent, output to /dev/null); the signals a user or
// Slurm sends the job are the orchestrator's to act on; no descriptor but its socket.
void prepare_child(pid_t parent, int keep) {
  util::quiet_child(parent);
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCONT, SIGALRM}) signal(sig, SIG_IGN);
  if (keep > 3) close_range(3, static_cast<unsigned>(keep - 1), 0);
  close_range(static_cast<unsigned>(keep + 1), ~0u, 0);
}

[[noreturn]] void serve(int sock, mailbox* box, family_process::handler h) {
  for (;;) {
    char go = 0;
    const ssize_t n = recv(sock, &go, 1, 0);
    if (n == 0) _exit(0);  // the orchestrator closed its end
    if (n < 0) {
      if (errno == EINTR) continue;
      _exit(1);
    }
    box->reply = family_process::reply{};
    h(box->request, box->reply);
    while (send(sock, &go, 1, MSG_NOSIGNAL) < 0)
      if (errno != EINTR) _exit(1);
  }
}

}  // namespace

void set_reference_time_limit(double eval_timeout_s, double limit_s) {
  if (std::isfinite(limit_s) && limit_s > 0) {
    time_limit_s = limit_s;
    return;
  }
  time_limit_s = std::max(60.0, 20.0 * (std::isfinite(eval_timeout_s) && eval_timeout_s > 0 ? eval_timeout_s : 60.0));
}
double reference_time_limit_s() { return time_limit_s; }

family_process::~family_process() {
  stop();
  if (mailbox_) munmap(mailbox_, sizeof(mailbox));
}

void family_process::stop() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
  if (socket_ >= 0) close(socket_);
  socket_ = -1;
}

void family_process::fail(family_code code, const std::string& what) {
  const auto& source = code == family_code::generator ? family_.generator_source : family_.reference_source;
  throw error(source.string(), std::string("the ") + code_name(code) + " of family " + family_.name + " " + what);
}

void family_process::start() {
  if (pid_ > 0) return;
  if (!mailbox_) {
    void* p = mmap(nullptr, sizeof(mailbox), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      throw error(family_.reference_source.string(),
                  std::string("cannot start the family's process: mmap: ") + std::strerror(errno));
    mailbox_ = new (p) mailbox{};
  }
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    throw error(family_.reference_source.string(),
                std::string("cannot start the family's process: socketpair: ") + std::strerror(errno));
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw error(family_.reference_source.string(),
                std::string("cannot start the family's process: fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    prepare_child(parent, fds[1]);
    serve(fds[1], static_cast<mailbox*>(mailbox_), handler_);
  }
  close(fds[1]);
  pid_ = pid;
  socket_ = fds[0];
}

family_process::reply family_process::call(const request& q, family_code code, const std::string& at) {
  start();
  auto* box = static_cast<mailbox*>(mailbox_);
  box->request = q;
  const char go = 1;
  bool sent = false;
  while (!sent) {
    sent = send(socket_, &go, 1, MSG_NOSIGNAL) == 1;
    if (!sent && errno != EINTR) break;  // the child is gone: what it died of is told below
  }
  const double limit = reference_time_limit_s();
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const double left = limit - std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (left <= 0 && sent) {
      stop();
      fail(code, "did not finish within " + seconds_text(limit) + " s at " + at);
    }
    pollfd pfd{socket_, POLLIN, 0};
    const int ready = sent ? poll(&pfd, 1, static_cast<int>(std::min(left * 1000 + 1, 60000.0))) : 1;
    if (ready < 0 && errno != EINTR) {
      stop();
      fail(code, std::string("could not be waited for: ") + std::strerror(errno) + " at " + at);
    }
    if (ready <= 0) continue;
    char done = 0;
    const ssize_t n = sent ? recv(socket_, &done, 1, 0) : 0;
    if (n == 1) return box->reply;
    if (n < 0 && errno == EINTR) continue;
    // End of file: the child died. Collect how.
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    stop();
    if (WIFSIGNALED(status)) {
      fail(code, "crashed with " + util::signal_description(WTERMSIG(status)) + " at " + at);
    }
    fail(code, "exited with status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + " at " + at);
  }
}

}  // namespace galapagos::eval
