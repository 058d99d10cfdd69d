// The worker's sandbox on its own: the system-call allow-list installed in a forked child
// (what the worker and its libraries need passes; anything else, and the refused forms of
// listed calls, kill the child with SIGSYS), and the private IPC namespace.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <linux/sockios.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "worker/sandbox.hpp"

namespace sb = galapagos::worker::sandbox;

namespace {

constexpr int filter_failed = 90;

// Runs `body` in a child process under the filter for `backend` and returns its wait status.
// The child exits 0 when `body` returns true, 1 when it returns false.
int run_filtered(const char* backend, const std::function<bool()>& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    try {
      sb::install_filter(backend);
    } catch (...) {
      _exit(filter_failed);
    }
    _exit(body() ? 0 : 1);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

std::string describe(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status)) return "exited with " + std::to_string(WEXITSTATUS(status));
  return "status " + std::to_string(status);
}

bool killed_by_filter(int status) { return WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS; }
bool passed(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

int own_nice() { return getpriority(PRIO_PROCESS, 0); }

struct refused_call {
  const char* what;
  std::function<bool()> body;  // harmless if the call were allowed
  bool cpu_only = false;       // the CUDA filter allows or refuses it softly (see below)
};

// Every one of these must kill the process. Each is written so that, were the filter to let it
// through, it would change nothing outside the child.
std::vector<refused_call> refused_calls() {
  return {
      {"an unlisted call (acct)", [] { return syscall(SYS_acct, "/nonexistent/galapagos-test") == 0 || true; }},
      {"add_key", [] { return syscall(SYS_add_key, "user", "galapagos-test", "x", 1, -2 /* process keyring */) >= 0 || true; }},
      {"keyctl", [] { return syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -2, 0) >= 0 || true; }},
      {"shmget", [] { return shmget(0x6a1a9a05, 4096, 0) >= 0 || true; }},
      {"mq_open", [] { return syscall(SYS_mq_open, "galapagos-test-absent", O_RDONLY, 0, nullptr) >= 0 || true; }},
      {"open for writing", [] { return open("/dev/null", O_WRONLY) >= 0 || true; }, true},
      {"fork",
       [] {
         const pid_t p = fork();
         if (p == 0) _exit(0);
         return true;
       }},
      {"kill of the parent", [] { return kill(getppid(), 0) == 0 || true; }},
      {"setpriority of the parent", [] { return setpriority(PRIO_PROCESS, getppid(), own_nice()) == 0 || true; }},
      {"setpriority of the process group", [] { return setpriority(PRIO_PGRP, 0, own_nice()) == 0 || true; }},
      {"sched_setscheduler of the parent",
       [] {
         sched_param p{};
         const int policy = sched_getscheduler(getppid());
         return sched_getparam(getppid(), &p) == 0 && sched_setscheduler(getppid(), policy, &p) == 0;
       }},
      {"ioprio_set", [] { return syscall(SYS_ioprio_set, 1, 0, 0) == 0 || true; }},
      {"setrlimit",
       [] {
         rlimit r{};
         return getrlimit(RLIMIT_CORE, &r) == 0 && setrlimit(RLIMIT_CORE, &r) == 0;
       }},
      {"timer_create",
       [] {
         timer_t t;
         sigevent ev{};
         ev.sigev_notify = SIGEV_NONE;
         return timer_create(CLOCK_MONOTONIC, &ev, &t) == 0 || true;
       }},
      {"setitimer",
       [] {
         itimerval zero{};
         return setitimer(ITIMER_REAL, &zero, nullptr) == 0 || true;
       }},
      {"alarm", [] { return syscall(SYS_alarm, 0) >= 0 || true; }},
      {"timerfd_create", [] { return syscall(SYS_timerfd_create, CLOCK_MONOTONIC, 0) >= 0 || true; }},
      {"fcntl F_SETOWN", [] { return fcntl(0, F_SETOWN, getpid()) == 0 || true; }},
      {"fcntl F_SETSIG", [] { return fcntl(0, F_SETSIG, 0) == 0 || true; }},
      {"fcntl F_SETFL O_ASYNC", [] { return fcntl(0, F_SETFL, O_ASYNC) == 0 || true; }},
      {"fcntl F_SETLEASE", [] { return fcntl(0, F_SETLEASE, F_UNLCK) == 0 || true; }},
      {"ioctl FIOASYNC",
       [] {
         int off = 0;
         return ioctl(0, FIOASYNC, &off) == 0 || true;
       }},
      {"ioctl FIOASYNC with the upper bits set",
       [] {
         int off = 0;
         return syscall(SYS_ioctl, 0, (1ul << 32) | FIOASYNC, &off) == 0 || true;
       }},
      {"ioctl FIOSETOWN",
       [] {
         int self = getpid();
         return ioctl(0, FIOSETOWN, &self) == 0 || true;
       }},
      {"memfd_create", [] { return syscall(SYS_memfd_create, "galapagos-test", 0u) >= 0 || true; }},
      {"anonymous executable mmap",
       [] { return mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) != MAP_FAILED || true; }, true},
      {"writable executable mmap of a file",
       [] {
         const int fd = open("/dev/zero", O_RDONLY);
         return mmap(nullptr, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE, fd, 0) != MAP_FAILED || true;
       },
       true},
      {"mprotect adding PROT_EXEC",
       [] {
         void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
         return mprotect(p, 4096, PROT_READ | PROT_EXEC) == 0 || true;
       },
       true},
      {"prctl PR_SET_DUMPABLE", [] { return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) == 0 || true; }},
      {"prctl PR_SET_PDEATHSIG", [] { return prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0) == 0 || true; }},
      {"userfaultfd", [] { return syscall(SYS_userfaultfd, 0) >= 0 || true; }},
      {"perf_event_open", [] { return syscall(SYS_perf_event_open, nullptr, 0, -1, -1, 0) >= 0 || true; }},
      {"unshare", [] { return unshare(CLONE_NEWIPC) == 0 || true; }},
  };
}

}  // namespace

TEST(SandboxFilter, KillsEveryUnlistedOrRefusedCall) {
  for (const char* backend : {"cpu", "cuda"}) {
    for (const auto& c : refused_calls()) {
      if (c.cpu_only && std::string(backend) != "cpu") continue;
      const int status = run_filtered(backend, c.body);
      EXPECT_TRUE(killed_by_filter(status)) << backend << ": " << c.what << ": " << describe(status);
    }
  }
}

TEST(SandboxFilter, AllowsWhatTheWorkerAndItsLibrariesNeed) {
  for (const char* backend : {"cpu", "cuda"}) {
    const int status = run_filtered(backend, [] {
      std::vector<double> big(1 << 22, 1.0);  // mmap, munmap
      std::atomic<int> ran{0};
      std::thread t([&] { ran = 1; });  // clone3 gets ENOSYS, then clone with CLONE_THREAD
      t.join();
      char buf[256];
      const int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
      const bool read_ok = fd >= 0 && read(fd, buf, sizeof buf) > 0 && close(fd) == 0;
      int fds[2];
      const bool pipe_ok = pipe2(fds, O_CLOEXEC) == 0 && write(fds[1], "x", 1) == 1 && read(fds[0], buf, 1) == 1 &&
                           fcntl(fds[0], F_SETFL, O_NONBLOCK) == 0;
      timespec now{}, pause{0, 1000};
      const bool time_ok = clock_gettime(CLOCK_MONOTONIC, &now) == 0 && nanosleep(&pause, nullptr) == 0;
      cpu_set_t set;
      const bool sched_ok = sched_getaffinity(0, sizeof set, &set) == 0 && sched_setaffinity(0, sizeof set, &set) == 0 &&
                            setpriority(PRIO_PROCESS, 0, own_nice()) == 0;
      rlimit r{};
      const bool limits_ok = getrlimit(RLIMIT_AS, &r) == 0;
      const bool self_signal_ok = kill(getpid(), 0) == 0;
      return big[12345] == 1.0 && ran == 1 && read_ok && pipe_ok && time_ok && sched_ok && limits_ok && self_signal_ok;
    });
    EXPECT_TRUE(passed(status)) << backend << ": " << describe(status);
  }
}

TEST(SandboxFilter, RefusesSoftlyWhereLibrariesProbe) {
  const int status = run_filtered("cpu", [] {
    struct sigaction sa {};
    sa.sa_handler = SIG_IGN;
    const bool handler_refused = sigaction(SIGALRM, &sa, nullptr) == -1 && errno == EPERM;
    struct sigaction old {};
    const bool query_allowed = sigaction(SIGALRM, nullptr, &old) == 0;
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);
    const bool other_pin_refused = sched_setaffinity(getppid(), sizeof set, &set) == -1 && errno == EPERM;
    const bool clone3_enosys = syscall(SYS_clone3, nullptr, 0) == -1 && errno == ENOSYS;
    return handler_refused && query_allowed && other_pin_refused && clone3_enosys;
  });
  EXPECT_TRUE(passed(status)) << describe(status);
}

TEST(SandboxFilter, CudaKeepsMappingsAndHandlersAndRefusesWritesSoftly) {
  const int status = run_filtered("cuda", [] {
    void* p = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    struct sigaction sa {};
    sa.sa_handler = SIG_IGN;
    const bool exec_and_handler_ok =
        p != MAP_FAILED && mprotect(p, 4096, PROT_READ | PROT_EXEC) == 0 && sigaction(SIGALRM, &sa, nullptr) == 0;
    const bool write_refused = open("/dev/null", O_WRONLY) == -1 && errno == EACCES &&
                               openat(AT_FDCWD, "/dev/null", O_RDONLY | O_CREAT, 0600) == -1 && errno == EACCES;
    return exec_and_handler_ok && write_refused;
  });
  EXPECT_TRUE(passed(status)) << describe(status);
}

TEST(SandboxFilter, CoversThreadsStartedBeforeIt) {
  // The OpenMP pool and the GPU driver's threads exist before the filter; candidate code runs
  // on them. A forbidden call from such a thread must kill the process too.
  const pid_t pid = fork();
  if (pid == 0) {
    std::atomic<int> stage{0};
    std::thread early([&] {
      while (stage.load() == 0) std::this_thread::yield();
      syscall(SYS_acct, "/nonexistent/galapagos-test");
      stage = 2;
    });
    try {
      sb::install_filter("cpu");
    } catch (...) {
      _exit(filter_failed);
    }
    stage = 1;
    early.join();
    _exit(0);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  EXPECT_TRUE(killed_by_filter(status)) << describe(status);
}

TEST(SandboxNamespace, SystemVSegmentsDieWithTheWorker) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    int id = -2;                                                                    // the kernel refused a namespace
    if (sb::enter_private_ipc()) id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);  // never removed
    (void)!write(fds[1], &id, sizeof id);
    _exit(0);
  }
  close(fds[1]);
  int id = -1;
  ASSERT_EQ(read(fds[0], &id, sizeof id), static_cast<ssize_t>(sizeof id));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (id == -2) GTEST_SKIP() << "this kernel gives no IPC namespace to this user";
  ASSERT_GE(id, 0) << "shmget failed in the child";
  shmid_ds info{};
  const bool visible_here = shmctl(id, IPC_STAT, &info) == 0;
  if (visible_here && info.shm_cpid == pid) shmctl(id, IPC_RMID, nullptr);  // clean up after a failure
  EXPECT_FALSE(visible_here && info.shm_cpid == pid) << "the child's segment outlived it in this namespace";
}
