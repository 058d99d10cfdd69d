#include "worker/sandbox.hpp"

#include <fcntl.h>
#include <linux/capability.h>
#include <linux/sockios.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <stdexcept>
#include <string>

namespace galapagos::worker::sandbox {

namespace {

void set_limit(int resource, std::uint64_t value, const char* what) {
  rlimit r{value, value};
  if (setrlimit(resource, &r) != 0) throw std::runtime_error(std::string("setrlimit ") + what + ": " + std::strerror(errno));
}

bool write_file(const char* path, const std::string& text) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(fd);
  return ok;
}

// One seccomp filter under construction; a rule that cannot be added is an error, never a
// silently wider filter.
class filter {
 public:
  explicit filter(std::uint32_t default_action) : ctx_(seccomp_init(default_action)) {
    if (!ctx_) throw std::runtime_error("seccomp_init failed");
    // Every thread, not only the caller: the OpenMP pool and the GPU driver's threads exist
    // before the filter, and candidate code runs on them (parallel regions, host callbacks).
    const int rc = seccomp_attr_set(ctx_, SCMP_FLTATR_CTL_TSYNC, 1);
    if (rc < 0) throw std::runtime_error(std::string("seccomp thread sync: ") + std::strerror(-rc));
  }
  ~filter() { seccomp_release(ctx_); }
  filter(const filter&) = delete;
  filter& operator=(const filter&) = delete;

  void add(std::uint32_t action, int nr, std::initializer_list<scmp_arg_cmp> args = {}) {
    const int rc = seccomp_rule_add_array(ctx_, action, nr, static_cast<unsigned>(args.size()), args.begin());
    if (rc < 0) {
      char* name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);
      const std::string what = name ? name : std::to_string(nr);
      std::free(name);
      throw std::runtime_error("seccomp rule for " + what + ": " + std::strerror(-rc));
    }
  }
  void allow(std::initializer_list<int> nrs) {
    for (int nr : nrs) add(SCMP_ACT_ALLOW, nr);
  }
  void load() {
    const int rc = seccomp_load(ctx_);
    if (rc < 0) throw std::runtime_error(std::string("seccomp_load: ") + std::strerror(-rc));
  }

 private:
  scmp_filter_ctx ctx_;
};

scmp_datum_t datum(long long v) { return static_cast<scmp_datum_t>(v); }

constexpr std::uint32_t kill = SCMP_ACT_KILL_PROCESS;
constexpr std::uint32_t allowed = SCMP_ACT_ALLOW;

#ifndef PR_SET_VMA
#define PR_SET_VMA 0x53564d41
#endif
// arch_prctl codes for AMX tile state (OpenBLAS asks for it on CPUs that have AMX).
constexpr long arch_get_xcomp_supp = 0x1021, arch_get_xcomp_perm = 0x1022, arch_req_xcomp_perm = 0x1023;

// The allow-list proper: every call, and every argument form, the worker and what it loads
// need. docs/threat-model.md lists each with the reason.
void add_allow_list(filter& f, bool gpu) {
  f.allow({// memory
           SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise), SCMP_SYS(mincore), SCMP_SYS(membarrier),
           SCMP_SYS(mbind), SCMP_SYS(get_mempolicy), SCMP_SYS(set_mempolicy),
           // threads and their synchronisation
           SCMP_SYS(futex), SCMP_SYS(set_robust_list), SCMP_SYS(set_tid_address), SCMP_SYS(rseq), SCMP_SYS(sched_yield),
           SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(restart_syscall),
           // signal masks and returns of the worker's own signals
           SCMP_SYS(rt_sigprocmask), SCMP_SYS(rt_sigreturn), SCMP_SYS(sigaltstack),
           // clocks and sleeping
           SCMP_SYS(clock_gettime), SCMP_SYS(clock_getres), SCMP_SYS(gettimeofday), SCMP_SYS(time), SCMP_SYS(nanosleep),
           SCMP_SYS(clock_nanosleep),
           // descriptors already open, reading files and directories
           SCMP_SYS(read), SCMP_SYS(pread64), SCMP_SYS(readv), SCMP_SYS(write), SCMP_SYS(pwrite64), SCMP_SYS(writev),
           SCMP_SYS(close), SCMP_SYS(dup), SCMP_SYS(dup3), SCMP_SYS(lseek), SCMP_SYS(fstat), SCMP_SYS(stat), SCMP_SYS(lstat),
           SCMP_SYS(newfstatat), SCMP_SYS(statx), SCMP_SYS(statfs), SCMP_SYS(fstatfs), SCMP_SYS(getdents64), SCMP_SYS(readlink),
           SCMP_SYS(readlinkat), SCMP_SYS(access), SCMP_SYS(faccessat), SCMP_SYS(faccessat2), SCMP_SYS(getcwd), SCMP_SYS(ioctl),
           // waiting on descriptors (the GPU driver's event threads)
           SCMP_SYS(poll), SCMP_SYS(ppoll), SCMP_SYS(epoll_create1), SCMP_SYS(epoll_ctl), SCMP_SYS(epoll_wait),
           SCMP_SYS(epoll_pwait), SCMP_SYS(eventfd2), SCMP_SYS(pipe2),
           // about this process and the machine (reads only)
           SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getppid), SCMP_SYS(getuid), SCMP_SYS(geteuid), SCMP_SYS(getgid),
           SCMP_SYS(getegid), SCMP_SYS(getresuid), SCMP_SYS(getresgid), SCMP_SYS(uname), SCMP_SYS(sysinfo), SCMP_SYS(getrlimit),
           SCMP_SYS(getrusage), SCMP_SYS(getcpu), SCMP_SYS(sched_getaffinity), SCMP_SYS(sched_getparam),
           SCMP_SYS(sched_getscheduler), SCMP_SYS(sched_get_priority_min), SCMP_SYS(sched_get_priority_max),
           SCMP_SYS(getpriority), SCMP_SYS(getrandom)});

  // Threads only: a clone without CLONE_THREAD would be a new process. clone3 passes its flags
  // in memory the filter cannot read, and openat2 its open flags: ENOSYS makes glibc fall back
  // to clone and openat, whose arguments are checked.
  f.add(allowed, SCMP_SYS(clone), {SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD)});
  f.add(SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3));
  f.add(SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2));

  // Opening for reading only: no writing, creating, truncating or appending.
  const auto writes = datum(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND);
  f.add(allowed, SCMP_SYS(open), {SCMP_A1(SCMP_CMP_MASKED_EQ, writes, 0)});
  f.add(allowed, SCMP_SYS(openat), {SCMP_A2(SCMP_CMP_MASKED_EQ, writes, 0)});
  // The CUDA driver writes its JIT cache (~/.nv/ComputeCache) when it compiles PTX (AMD's runtime
  // its code-object cache): it gets EACCES and runs without the cache. Nothing is written either way.
  if (gpu)
    for (int flag : {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND}) {
      f.add(SCMP_ACT_ERRNO(EACCES), SCMP_SYS(open), {SCMP_A1(SCMP_CMP_MASKED_EQ, datum(flag), datum(flag))});
      f.add(SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat), {SCMP_A2(SCMP_CMP_MASKED_EQ, datum(flag), datum(flag))});
    }

  // fcntl: descriptor flags and duplication. Never an owner or a signal for I/O events
  // (F_SETOWN, F_SETOWN_EX, F_SETSIG, O_ASYNC), leases or directory notifications: each would
  // deliver a signal later, to code that runs without a thread of its own.
  for (long cmd : {F_DUPFD, F_DUPFD_CLOEXEC, F_GETFD, F_SETFD, F_GETFL})
    f.add(allowed, SCMP_SYS(fcntl), {SCMP_A1(SCMP_CMP_EQ, datum(cmd))});
  f.add(allowed, SCMP_SYS(fcntl), {SCMP_A1(SCMP_CMP_EQ, datum(F_SETFL)), SCMP_A2(SCMP_CMP_MASKED_EQ, datum(O_ASYNC), 0)});

  // Memory is never writable and executable, nor executable without a file behind it: the
  // dynamic loader maps shared objects' code from their files, which is all the CPU path needs.
  if (gpu) {
    f.allow({SCMP_SYS(mmap), SCMP_SYS(mprotect)});  // not yet verified without: kept open
  } else {
    f.add(allowed, SCMP_SYS(mmap), {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)});
    f.add(allowed, SCMP_SYS(mmap),
          {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC | PROT_WRITE, PROT_EXEC), SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_ANONYMOUS, 0)});
    f.add(allowed, SCMP_SYS(mprotect), {SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)});
  }

  // Signal handlers: queries always; installing one only for the GPU driver. On the CPU path a
  // new handler gets EPERM, so nothing can run from a signal after the reply.
  if (gpu) {
    f.allow({SCMP_SYS(rt_sigaction)});
  } else {
    f.add(allowed, SCMP_SYS(rt_sigaction), {SCMP_A1(SCMP_CMP_EQ, 0)});
    f.add(SCMP_ACT_ERRNO(EPERM), SCMP_SYS(rt_sigaction), {SCMP_A1(SCMP_CMP_NE, 0)});
  }

  // Signals only to this process (abort and raise signal the caller itself).
  const auto self = datum(getpid());
  f.add(allowed, SCMP_SYS(kill), {SCMP_A0(SCMP_CMP_EQ, self)});
  f.add(allowed, SCMP_SYS(tgkill), {SCMP_A0(SCMP_CMP_EQ, self)});
  // Reading this process's limits, never setting them.
  f.add(allowed, SCMP_SYS(prlimit64), {SCMP_A0(SCMP_CMP_EQ, 0), SCMP_A2(SCMP_CMP_EQ, 0)});

  // Scheduling of the calling thread itself (pid 0) only: re-nicing or re-scheduling another
  // process, or every process of the user (PRIO_USER), is what the orchestrator must never see.
  // Pinning another thread gets EPERM instead of a kill: seccomp cannot tell this process's
  // threads from others', and honest code pins its own threads by thread id (then unpinned).
  f.add(allowed, SCMP_SYS(sched_setaffinity), {SCMP_A0(SCMP_CMP_EQ, 0)});
  f.add(SCMP_ACT_ERRNO(EPERM), SCMP_SYS(sched_setaffinity), {SCMP_A0(SCMP_CMP_NE, 0)});
  f.add(allowed, SCMP_SYS(sched_setscheduler), {SCMP_A0(SCMP_CMP_EQ, 0)});
  f.add(allowed, SCMP_SYS(sched_setparam), {SCMP_A0(SCMP_CMP_EQ, 0)});
  f.add(allowed, SCMP_SYS(setpriority), {SCMP_A0(SCMP_CMP_EQ, PRIO_PROCESS), SCMP_A1(SCMP_CMP_EQ, 0)});

  // prctl: thread names and reads of this process's own state.
  for (long option : {PR_SET_NAME, PR_GET_NAME, PR_GET_DUMPABLE, PR_GET_NO_NEW_PRIVS, PR_GET_SECCOMP, PR_CAPBSET_READ,
                      PR_GET_TIMERSLACK, PR_SET_VMA})
    f.add(allowed, SCMP_SYS(prctl), {SCMP_A0(SCMP_CMP_EQ, datum(option))});
  // AMX tile state for this process (OpenBLAS requests it at load on CPUs that have AMX).
  for (long code : {arch_get_xcomp_supp, arch_get_xcomp_perm, arch_req_xcomp_perm})
    f.add(allowed, SCMP_SYS(arch_prctl), {SCMP_A0(SCMP_CMP_EQ, datum(code))});
}

// ioctl stays open for the GPU driver, except the requests that make a descriptor signal its
// owner (FIOASYNC, FIOSETOWN, SIOCSPGRP) or push input into a terminal (TIOCSTI). A second
// filter, whose default is to allow, refuses them: libseccomp cannot express "any but these"
// in an allow-list. The kernel reads the request as 32 bits, so the upper half is masked off.
void add_ioctl_refusals(filter& f) {
  for (unsigned long request : {FIOASYNC, FIOSETOWN, SIOCSPGRP, TIOCSTI})
    f.add(kill, SCMP_SYS(ioctl), {SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, request)});
}

}  // namespace

bool enter_private_ipc() {
  if (unshare(CLONE_NEWIPC) == 0) return true;
  const uid_t uid = getuid();
  const gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWIPC) != 0) return false;
  // Map the worker's ids to themselves so that it keeps its own identity inside. Should a map
  // fail, the kernel still checks file access against the real ids.
  write_file("/proc/self/setgroups", "deny");
  write_file("/proc/self/uid_map", std::to_string(uid) + " " + std::to_string(uid) + " 1\n");
  write_file("/proc/self/gid_map", std::to_string(gid) + " " + std::to_string(gid) + " 1\n");
  return true;
}

void apply_limits(const limits& l) {
  if (l.address_space_bytes > 0) set_limit(RLIMIT_AS, l.address_space_bytes, "address space");
  set_limit(RLIMIT_CPU, l.cpu_seconds, "cpu time");
  set_limit(RLIMIT_NOFILE, l.open_files, "open files");
  set_limit(RLIMIT_FSIZE, l.file_size_bytes, "file size");
  set_limit(RLIMIT_CORE, 0, "core size");
  // No real-time scheduling and no raised priority, even where the user is granted them: a
  // SCHED_FIFO worker would starve the orchestrator.
  set_limit(RLIMIT_RTPRIO, 0, "real-time priority");
  set_limit(RLIMIT_NICE, 0, "nice");
  set_limit(RLIMIT_MSGQUEUE, 0, "message queues");
}

void drop_privileges() {
  for (int cap = 0; cap <= CAP_LAST_CAP; ++cap) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capset, &header, data) != 0) throw std::runtime_error(std::string("capset: ") + std::strerror(errno));
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) throw std::runtime_error(std::string("no_new_privs: ") + std::strerror(errno));
}

void install_filter(std::string_view backend) {
  const bool gpu = backend != "cpu";
  filter allow_list(kill);
  add_allow_list(allow_list, gpu);
  filter refusals(allowed);
  add_ioctl_refusals(refusals);
  // The refusals first: once the allow-list is loaded, seccomp() itself is no longer allowed.
  refusals.load();
  allow_list.load();
}

}  // namespace galapagos::worker::sandbox
