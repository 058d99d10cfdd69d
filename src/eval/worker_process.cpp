#include "eval/worker_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "eval/arena.hpp"
#include "eval/builder.hpp"
#include "util/error.hpp"
#include "util/isolated.hpp"

namespace galapagos::eval {

namespace {

constexpr int child_socket_fd = 3;
constexpr int child_arena_fd = 4;
constexpr int child_flush_fd = 5;

}  // namespace

std::filesystem::path default_worker_executable() {
  if (const char* env = std::getenv("GALAPAGOS_WORKER")) return env;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return self.parent_path() / "galapagos-worker";
}

worker_process::worker_process(const worker_options& opt, const arena& shared)
    : freezes_(opt.launcher.empty()), next_nonce_(std::random_device{}() | (std::uint64_t{std::random_device{}()} << 32)) {
  if (!std::filesystem::exists(opt.executable))
    throw error(opt.executable.string(), "worker executable not found (build the galapagos-worker target)");
  std::filesystem::create_directories(opt.scratch_root);
  std::string tmpl = (opt.scratch_root / "worker-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw error(opt.scratch_root.string(), "cannot create a scratch folder");
  scratch_ = tmpl;

  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
    throw error("worker", std::string("socketpair: ") + std::strerror(errno));
  socket_ = sv[0];
  const std::string log = (scratch_ / "worker.log").string();

  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  // Move both descriptors above the child's fixed numbers first, so that neither dup2 can
  // overwrite the other's source (and dup2 onto itself would keep close-on-exec).
  const int high_socket = fcntl(sv[1], F_DUPFD_CLOEXEC, 64);
  const int high_arena = fcntl(shared.fd(), F_DUPFD_CLOEXEC, 64);
  posix_spawn_file_actions_adddup2(&fa, high_socket, child_socket_fd);
  posix_spawn_file_actions_adddup2(&fa, high_arena, child_arena_fd);
  const int high_flush = opt.flush_fd >= 0 ? fcntl(opt.flush_fd, F_DUPFD_CLOEXEC, 64) : -1;
  if (high_flush >= 0) posix_spawn_file_actions_adddup2(&fa, high_flush, child_flush_fd);
  posix_spawn_file_actions_addchdir_np(&fa, scratch_.c_str());
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t all;
  sigfillset(&all);
  const sigset_t blocked = stop_signals();  // the orchestrator alone acts on a stop request
  posix_spawnattr_setsigmask(&attr, &blocked);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::vector<std::string> args = opt.launcher;
  for (std::string a : {opt.executable.string(), std::to_string(child_socket_fd), std::to_string(child_arena_fd),
                        std::to_string(shared.bytes()), std::to_string(opt.threads), std::to_string(opt.flush_bytes),
                        std::to_string(opt.address_space_bytes), std::to_string(opt.cpu_seconds), opt.backend,
                        std::to_string(opt.device_index), std::to_string(high_flush >= 0 ? child_flush_fd : -1)})
    args.push_back(std::move(a));
  // A clean environment: nothing that could carry keys or tokens reaches candidate code.
  std::vector<std::string> env = {
      "PATH=/usr/bin:/bin",
      "LANG=C",
      "HOME=" + scratch_.string(),
      std::string("LD_LIBRARY_PATH=") + (std::getenv("LD_LIBRARY_PATH") ? std::getenv("LD_LIBRARY_PATH") : ""),
      "TMPDIR=" + scratch_.string(),
      "OMP_NUM_THREADS=" + std::to_string(opt.threads > 0 ? opt.threads : std::thread::hardware_concurrency()),
      "OMP_WAIT_POLICY=PASSIVE"};
  // Which GPUs a job may use is set by the batch system; it is not a secret.
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) env.push_back(std::string("CUDA_VISIBLE_DEVICES=") + v);
  std::vector<char*> argv, envp;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  const int rc = posix_spawn(&pid_, args.front().c_str(), &fa, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  posix_spawnattr_destroy(&attr);
  close(sv[1]);
  close(high_socket);
  close(high_arena);
  if (high_flush >= 0) close(high_flush);
  if (rc != 0) {
    pid_ = -1;
    throw error(args.front(), std::string("cannot start worker: ") + std::strerror(rc));
  }
}

worker_process::~worker_process() {
  if (pid_ > 0) {
    call_result ignored;
    kill_and_reap(ignored, false);
  }
  if (socket_ >= 0) close(socket_);
  std::error_code ec;
  std::filesystem::remove_all(scratch_, ec);
}

void worker_process::freeze() {
  if (!freezes_ || pid_ <= 0 || frozen_) return;
  if (kill(pid_, SIGSTOP) != 0) return;
  for (;;) {
    int st = 0;
    const pid_t r = waitpid(pid_, &st, WUNTRACED);
    if (r < 0 && errno == EINTR) continue;
    if (r == pid_ && WIFSTOPPED(st)) {
      frozen_ = true;
      return;
    }
    if (r == pid_ && (WIFEXITED(st) || WIFSIGNALED(st))) {
      // It ended right after replying: the reply stands, the next request finds no worker.
      kill(-pid_, SIGKILL);
      pid_ = -1;
    }
    return;
  }
}

void worker_process::thaw() {
  if (!frozen_ || pid_ <= 0) return;
  frozen_ = false;
  kill(pid_, SIGCONT);
}

int worker_process::thread_count() const {
  if (pid_ <= 0) return -1;
  std::error_code ec;
  int n = 0;
  for (std::filesystem::directory_iterator it("/proc/" + std::to_string(pid_) + "/task", ec), end; !ec && it != end;
       it.increment(ec))
    ++n;
  return ec ? -1 : n;
}

void worker_process::kill_and_reap(call_result& out, bool timed_out) {
  if (pid_ <= 0) return;
  frozen_ = false;
  kill(-pid_, SIGKILL);  // the worker leads its own process group
  int st = 0;
  while (waitpid(pid_, &st, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  out.replied = false;
  if (timed_out) {
    out.status = candidate_status::timeout;
    return;
  }
  if (WIFSIGNALED(st)) {
    const int sig = WTERMSIG(st);
    if (sig == SIGSYS) {
      out.status = candidate_status::sandbox_violation;
      out.reason = "killed by the sandbox (SIGSYS): a forbidden system call (network, exec, fork, file writes, ...)";
    } else if (sig == SIGXCPU) {
      out.status = candidate_status::timeout;
      out.reason = "CPU time limit exceeded";
    } else {
      out.status = candidate_status::crash;
      out.reason = "worker killed by " + util::signal_name(sig);
    }
  } else if (WIFEXITED(st)) {
    out.status = candidate_status::crash;
    out.reason = "worker exited with code " + std::to_string(WEXITSTATUS(st)) + " before replying";
  }
}

call_result worker_process::call(protocol::request q, double timeout_s) {
  call_result out;
  if (pid_ <= 0) {
    out.status = candidate_status::crash;
    out.reason = "worker is not running";
    return out;
  }
  q.magic_value = protocol::magic;
  q.nonce = next_nonce_++;
  thaw();
  const auto t0 = std::chrono::steady_clock::now();
  out.sent_at_s = std::chrono::duration<double>(t0.time_since_epoch()).count();
  if (write(socket_, &q, sizeof q) != static_cast<ssize_t>(sizeof q)) {
    kill_and_reap(out, false);
    out.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return out;
  }
  pollfd p{socket_, POLLIN, 0};
  const auto deadline = t0 + std::chrono::duration<double>(timeout_s);
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      kill_and_reap(out, true);
      out.reason = "no reply within " + std::to_string(timeout_s) + " s";
      break;
    }
    const int pr = poll(&p, 1, static_cast<int>(left));
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0) continue;
    protocol::reply r{};
    const ssize_t n = read(socket_, &r, sizeof r);
    out.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (n <= 0) {  // the worker died: find out how
      kill_and_reap(out, false);
      break;
    }
    if (n != static_cast<ssize_t>(sizeof r) || r.magic_value != protocol::magic || r.nonce != q.nonce || r.kind != q.kind) {
      kill_and_reap(out, false);
      out.status = candidate_status::protocol_error;
      out.reason = "garbled or forged reply on the result channel";
      break;
    }
    r.message[protocol::message_bytes - 1] = '\0';
    if (q.kind != protocol::request_kind::quit) freeze();
    out.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    out.replied = true;
    out.reply = r;
    return out;
  }
  out.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

bool worker_process::finish(double timeout_s) {
  protocol::request q{};
  q.kind = protocol::request_kind::quit;
  if (!call(q, timeout_s).replied) return false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < deadline) {
    int st = 0;
    const pid_t r = waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      pid_ = -1;
      kill(-r, SIGKILL);  // anything the worker left behind in its group
      return WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  call_result ignored;
  kill_and_reap(ignored, true);
  return false;
}

}  // namespace galapagos::eval
