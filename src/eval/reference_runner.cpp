#include "eval/reference_runner.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#include "util/error.hpp"

namespace galapagos::eval {

namespace {

std::atomic<double> time_limit_s{1200};

// Sizes at which a reference has returned from a child once. A fork costs the child a page fault
// for every page of the problem it touches (tens of milliseconds per 8 MB on a virtual machine,
// more than a serial reference at a fitness size takes), and the timed runs call the reference
// again and again at one size: later calls at a proven size run in this process.
std::mutex proven_mutex;
std::set<std::pair<const void*, std::vector<std::int64_t>>> proven;

std::size_t page_align(std::size_t n) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return (n + page - 1) / page * page;
}

// A MAP_SHARED anonymous mapping: what the child writes there, this process reads.
class shared_buffer {
 public:
  explicit shared_buffer(std::size_t bytes) : bytes_(page_align(std::max<std::size_t>(bytes, 1))) {
    void* p = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::system_error(errno, std::generic_category(), "mmap of the reference's outputs");
    data_ = static_cast<std::byte*>(p);
  }
  ~shared_buffer() { munmap(data_, bytes_); }
  shared_buffer(const shared_buffer&) = delete;
  shared_buffer& operator=(const shared_buffer&) = delete;
  std::byte* data() const { return data_; }

 private:
  std::size_t bytes_;
  std::byte* data_ = nullptr;
};

// In the child: only this thread exists. Default signal dispositions (a crash must end the child
// with its signal, not in a handler of the orchestrator), no core file, and death with the parent.
void prepare_child(pid_t parent) {
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGPIPE, SIGALRM})
    signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  const rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
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

int run_reference(const families::family& f, int (*ref)(const glp_arg*, int, const std::int64_t*), std::vector<glp_arg>& args,
                  const std::int64_t* sizes, const std::string& at) {
  const std::pair<const void*, std::vector<std::int64_t>> key{reinterpret_cast<const void*>(ref),
                                                              std::vector<std::int64_t>(sizes, sizes + f.symbols.size())};
  {
    std::lock_guard<std::mutex> hold(proven_mutex);
    if (proven.count(key)) return ref(args.data(), static_cast<int>(args.size()), sizes);
  }
  // Layout: the return code, then every out and inout argument at its own page-aligned offset.
  std::vector<std::size_t> offset(args.size(), 0);
  std::size_t total = page_align(sizeof(int));
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].intent == static_cast<std::int32_t>(families::intent::in) || args[i].data == nullptr) continue;
    offset[i] = total;
    total += page_align(static_cast<std::size_t>(args[i].count) * families::dtype_bytes(static_cast<families::dtype>(args[i].dtype)));
  }
  shared_buffer shared(total);
  std::vector<glp_arg> child_args = args;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (offset[i] == 0) continue;
    const std::size_t n = static_cast<std::size_t>(args[i].count) * families::dtype_bytes(static_cast<families::dtype>(args[i].dtype));
    std::memcpy(shared.data() + offset[i], args[i].data, n);  // inout: the input; out: whatever is there
    child_args[i].data = shared.data() + offset[i];
  }
  int* rc_slot = reinterpret_cast<int*>(shared.data());
  *rc_slot = -1;

  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw error(f.reference_source.string(), std::string("cannot start the reference: fork: ") + std::strerror(errno));
  if (pid == 0) {
    prepare_child(parent);
    *rc_slot = ref(child_args.data(), static_cast<int>(child_args.size()), sizes);
    _exit(0);  // no atexit handlers, no stdio flush: the orchestrator's state is not ours
  }

  const double limit = reference_time_limit_s();
  const auto start = std::chrono::steady_clock::now();
  auto pause = std::chrono::microseconds(200);
  int status = 0;
  for (;;) {
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) throw error(f.reference_source.string(), std::string("waiting for the reference: ") + std::strerror(errno));
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > limit) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      throw error(f.reference_source.string(),
                  "the reference of family " + f.name + " did not finish within " + seconds_text(limit) + " s at " + at);
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    throw error(f.reference_source.string(), "the reference of family " + f.name + " crashed with SIG" + (abbrev ? abbrev : std::to_string(sig)) +
                                                 " (" + strsignal(sig) + ") at " + at);
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw error(f.reference_source.string(), "the reference of family " + f.name + " exited with status " +
                                                 std::to_string(WEXITSTATUS(status)) + " at " + at);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (offset[i] == 0) continue;
    const std::size_t n = static_cast<std::size_t>(args[i].count) * families::dtype_bytes(static_cast<families::dtype>(args[i].dtype));
    std::memcpy(args[i].data, shared.data() + offset[i], n);
  }
  if (*rc_slot == 0) {
    std::lock_guard<std::mutex> hold(proven_mutex);
    proven.insert(key);
  }
  return *rc_slot;
}

}  // namespace galapagos::eval
