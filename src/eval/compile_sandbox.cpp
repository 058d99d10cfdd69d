#include "eval/compile_sandbox.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "eval/builder.hpp"
#include "util/error.hpp"

namespace galapagos::eval {

namespace {

// The supervisor's reaction to galapagos' death: kill the whole group, itself included.
void kill_own_group(int) { kill(0, SIGKILL); }

void set_limit(int resource, std::uint64_t value) {
  rlimit current{};
  if (getrlimit(resource, &current) != 0) return;
  rlim_t v = static_cast<rlim_t>(value);
  if (current.rlim_max != RLIM_INFINITY && v > current.rlim_max) v = current.rlim_max;
  rlimit l{v, v};
  setrlimit(resource, &l);
}

// Everything between fork and exec: async-signal-safe system calls only (the orchestrator has
// threads). Never returns.
[[noreturn]] void child(char* const* argv, char* const* envp, const char* workdir, const char* log, pid_t orchestrator,
                        const compile_limits& l, rlim_t nproc) {
  setsid();  // own process group, and no controlling terminal: /dev/tty cannot be opened
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) sigaction(s, &dfl, nullptr);
  struct sigaction hup {};
  hup.sa_handler = kill_own_group;
  sigaction(SIGHUP, &hup, nullptr);
  sigset_t mask = stop_signals();  // a batch system's stop signal is for the orchestrator alone
  sigprocmask(SIG_SETMASK, &mask, nullptr);
  if (prctl(PR_SET_PDEATHSIG, SIGHUP) != 0 || getppid() != orchestrator) _exit(126);  // it died already
  // A private network namespace: as root directly, else inside a user namespace; where the
  // kernel refuses both the compile still runs (without network isolation).
  if (unshare(CLONE_NEWNET) != 0) unshare(CLONE_NEWUSER | CLONE_NEWNET);

  set_limit(RLIMIT_CPU, l.cpu_seconds);
  if (l.address_space_bytes) set_limit(RLIMIT_AS, l.address_space_bytes);
  set_limit(RLIMIT_FSIZE, l.file_size_bytes);
  set_limit(RLIMIT_NOFILE, l.open_files);
  set_limit(RLIMIT_NPROC, nproc);
  set_limit(RLIMIT_CORE, 0);

  const int in = open("/dev/null", O_RDONLY);
  const int out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0) _exit(126);
  syscall(SYS_close_range, 3u, ~0u, 0u);  // nothing of the orchestrator's stays open
  if (chdir(workdir) != 0) _exit(126);

  const pid_t compiler = fork();
  if (compiler < 0) _exit(126);
  if (compiler == 0) {
    sigaction(SIGHUP, &dfl, nullptr);
    execve(argv[0], argv, envp);
    const char msg[] = "cannot start the compiler\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(127);
  }
  int st = 0;
  while (waitpid(compiler, &st, 0) < 0)
    if (errno != EINTR) _exit(126);
  if (WIFEXITED(st)) _exit(WEXITSTATUS(st));
  // Pass the driver's death on: the same signal ends the supervisor.
  const int sig = WTERMSIG(st);
  sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  raise(sig);
  _exit(128 + sig);
}

// Threads and processes on the node now (/proc/loadavg's fourth field): RLIMIT_NPROC counts
// every process of the user, so the limit is this plus a margin.
std::uint64_t tasks_now() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c, tasks;
  in >> a >> b >> c >> tasks;
  const auto slash = tasks.find('/');
  return slash == std::string::npos ? 4096 : std::strtoull(tasks.c_str() + slash + 1, nullptr, 10);
}

}  // namespace

std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const auto p = std::filesystem::path(dir.empty() ? "." : dir) / name;
    if (access(p.c_str(), X_OK) == 0 && std::filesystem::is_regular_file(p)) return p.string();
  }
  return "";
}

std::vector<std::string> compiler_environment(const std::string& compiler, const std::filesystem::path& private_tmp) {
  std::string path;
  const std::string resolved = find_program(compiler);
  if (!resolved.empty()) {
    path = std::filesystem::absolute(resolved).parent_path().string() + ":";
    // nvcc runs cicc, ptxas and fatbinary from its own toolkit (through nvcc.profile), and its
    // host compiler from PATH.
    std::error_code ec;
    const auto real = std::filesystem::canonical(resolved, ec);
    if (!ec && real.parent_path() != std::filesystem::absolute(resolved).parent_path()) path += real.parent_path().string() + ":";
  }
  path += "/usr/local/bin:/usr/bin:/bin";
  std::vector<std::string> env = {"PATH=" + path, "LANG=C", "LC_ALL=C", "HOME=" + private_tmp.string(),
                                  "TMPDIR=" + private_tmp.string()};
  if (const char* ld = std::getenv("LD_LIBRARY_PATH")) env.push_back(std::string("LD_LIBRARY_PATH=") + ld);
  return env;
}

compile_limits compile_limits_for(double timeout_s) {
  compile_limits l;
  l.wall_s = timeout_s;
  l.cpu_seconds = static_cast<std::uint64_t>(std::max(1.0, timeout_s));
  if (const char* mb = std::getenv("GALAPAGOS_COMPILE_MEMORY_MB")) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(mb, &end, 10);
    if (!*mb || *end || errno || mb[0] == '-')
      throw error("GALAPAGOS_COMPILE_MEMORY_MB", std::string("expected a whole number of MiB (0 = unlimited), got '") + mb + "'");
    l.address_space_bytes = static_cast<std::uint64_t>(v) << 20;
  }
  return l;
}

compile_outcome run_compiler(const std::vector<std::string>& argv, const std::filesystem::path& workdir,
                             const std::filesystem::path& log_file, const std::vector<std::string>& env,
                             const compile_limits& limits, std::size_t max_output_bytes) {
  compile_outcome out;
  if (argv.empty()) {
    out.error = "no compiler given";
    return out;
  }
  const std::string program = find_program(argv[0]);
  if (program.empty()) {
    out.error = "cannot start " + argv[0] + ": not found on PATH";
    return out;
  }
  // Everything the child needs is built before fork: it may not allocate.
  std::vector<std::string> args = argv;
  args[0] = program;
  std::vector<char*> cargv, cenv;
  for (auto& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::vector<std::string> envs = env;
  for (auto& e : envs) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  const std::string dir = workdir.string(), log = log_file.string();
  const rlim_t nproc = static_cast<rlim_t>(tasks_now() + limits.extra_processes);
  const pid_t self = getpid();

  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    out.error = std::string("cannot start ") + argv[0] + ": fork: " + std::strerror(errno);
    return out;
  }
  if (pid == 0) child(cargv.data(), cenv.data(), dir.c_str(), log.c_str(), self, limits, nproc);
  out.started = true;

  const auto deadline = t0 + std::chrono::duration<double>(limits.wall_s);
  int st = 0;
  auto nap = std::chrono::milliseconds(1);
  for (;;) {
    // Seen but not reaped (WNOWAIT): while the supervisor is a zombie its pid, and so the group
    // id, cannot be taken by another process.
    siginfo_t info{};
    const int r = waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (r == 0 && info.si_pid == pid) break;
    if (r < 0 && errno != EINTR) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      kill(-pid, SIGKILL);  // the supervisor leads the group of everything the compiler started
      kill(pid, SIGKILL);
      while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
      }
      out.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::milliseconds(20));
  }
  if (!out.timed_out) {
    kill(-pid, SIGKILL);  // anything the driver left running in its group
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(st)) out.exit_code = WEXITSTATUS(st);
    if (WIFSIGNALED(st)) out.signal = WTERMSIG(st);
  }

  std::ifstream in(log_file, std::ios::binary);
  out.output.resize(max_output_bytes);
  in.read(out.output.data(), static_cast<std::streamsize>(max_output_bytes));
  out.output.resize(static_cast<std::size_t>(in.gcount()));
  return out;
}

}  // namespace galapagos::eval
