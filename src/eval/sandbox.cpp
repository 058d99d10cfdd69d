#include "eval/sandbox.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace galapagos::eval::sandbox {

namespace {

void set_limit(int resource, std::uint64_t value, const char* what) {
  rlimit r{value, value};
  if (setrlimit(resource, &r) != 0)
    throw std::runtime_error(std::string("setrlimit ") + what + ": " + std::strerror(errno));
}

void check(int rc, const char* what) {
  if (rc < 0) throw std::runtime_error(std::string("seccomp: ") + what + ": " + std::strerror(-rc));
}

}  // namespace

void apply_limits(const limits& l) {
  if (l.address_space_bytes > 0) set_limit(RLIMIT_AS, l.address_space_bytes, "address space");
  set_limit(RLIMIT_CPU, l.cpu_seconds, "cpu time");
  set_limit(RLIMIT_NOFILE, l.open_files, "open files");
  set_limit(RLIMIT_FSIZE, l.file_size_bytes, "file size");
  set_limit(RLIMIT_CORE, 0, "core size");
}

void drop_privileges() {
  for (int cap = 0; cap <= CAP_LAST_CAP; ++cap) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (syscall(SYS_capset, &header, data) != 0)
    throw std::runtime_error(std::string("capset: ") + std::strerror(errno));
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    throw std::runtime_error(std::string("no_new_privs: ") + std::strerror(errno));
}

void install_filter() {
  scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
  if (!ctx) throw std::runtime_error("seccomp_init failed");
  const auto kill = SCMP_ACT_KILL_PROCESS;
  auto deny = [&](int nr) { check(seccomp_rule_add(ctx, kill, nr, 0), "rule"); };

  for (int nr : {SCMP_SYS(socket), SCMP_SYS(socketpair), SCMP_SYS(connect), SCMP_SYS(bind),
                 SCMP_SYS(listen), SCMP_SYS(accept), SCMP_SYS(accept4),
                 SCMP_SYS(execve), SCMP_SYS(execveat), SCMP_SYS(fork), SCMP_SYS(vfork),
                 SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv), SCMP_SYS(process_vm_writev),
                 SCMP_SYS(creat), SCMP_SYS(unlink), SCMP_SYS(unlinkat), SCMP_SYS(rename),
                 SCMP_SYS(renameat), SCMP_SYS(renameat2), SCMP_SYS(mkdir), SCMP_SYS(mkdirat),
                 SCMP_SYS(rmdir), SCMP_SYS(link), SCMP_SYS(linkat), SCMP_SYS(symlink),
                 SCMP_SYS(symlinkat), SCMP_SYS(truncate), SCMP_SYS(chmod), SCMP_SYS(fchmodat),
                 SCMP_SYS(chown), SCMP_SYS(fchownat), SCMP_SYS(setrlimit), SCMP_SYS(setsid),
                 SCMP_SYS(setpgid), SCMP_SYS(mount), SCMP_SYS(unshare), SCMP_SYS(setns),
                 SCMP_SYS(kexec_load), SCMP_SYS(init_module), SCMP_SYS(bpf),
                 SCMP_SYS(perf_event_open), SCMP_SYS(userfaultfd), SCMP_SYS(pidfd_open),
                 SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter), SCMP_SYS(io_uring_register),
                 SCMP_SYS(open_by_handle_at), SCMP_SYS(name_to_handle_at), SCMP_SYS(pidfd_send_signal),
                 SCMP_SYS(rt_sigqueueinfo), SCMP_SYS(rt_tgsigqueueinfo), SCMP_SYS(tkill),
                 SCMP_SYS(fchmod), SCMP_SYS(fchown), SCMP_SYS(lchown), SCMP_SYS(setxattr),
                 SCMP_SYS(lsetxattr), SCMP_SYS(fsetxattr), SCMP_SYS(removexattr), SCMP_SYS(lremovexattr),
                 SCMP_SYS(fremovexattr), SCMP_SYS(utimensat), SCMP_SYS(futimesat), SCMP_SYS(utimes),
                 SCMP_SYS(utime), SCMP_SYS(mknod), SCMP_SYS(mknodat), SCMP_SYS(ftruncate), SCMP_SYS(fallocate),
                 SCMP_SYS(chroot), SCMP_SYS(pivot_root), SCMP_SYS(umount2), SCMP_SYS(swapon),
                 SCMP_SYS(reboot), SCMP_SYS(setuid), SCMP_SYS(setgid)})
    deny(nr);
  // fchmodat2 (Linux 6.6) is newer than the libseccomp that knows names: by number.
  constexpr int fchmodat2_nr = 452;
  seccomp_rule_add(ctx, kill, fchmodat2_nr, 0);  // refused where the kernel headers predate it
  // Threads only: a clone without CLONE_THREAD would be a new process.
  check(seccomp_rule_add(ctx, kill, SCMP_SYS(clone), 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)), "clone");
  // clone3 passes its flags in memory the filter cannot read: make glibc fall back to clone.
  check(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0), "clone3");
  check(seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(openat2), 0), "openat2");
  // Opening for writing or creating files.
  for (int flag : {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND}) {
    const auto bits = static_cast<scmp_datum_t>(flag);
    check(seccomp_rule_add(ctx, kill, SCMP_SYS(open), 1, SCMP_A1(SCMP_CMP_MASKED_EQ, bits, bits)), "open");
    check(seccomp_rule_add(ctx, kill, SCMP_SYS(openat), 1, SCMP_A2(SCMP_CMP_MASKED_EQ, bits, bits)), "openat");
  }
  // Signals only to this process; raising limits never.
  const auto self = static_cast<scmp_datum_t>(getpid());
  check(seccomp_rule_add(ctx, kill, SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_NE, self)), "kill");
  check(seccomp_rule_add(ctx, kill, SCMP_SYS(tgkill), 1, SCMP_A0(SCMP_CMP_NE, self)), "tgkill");
  check(seccomp_rule_add(ctx, kill, SCMP_SYS(prlimit64), 1, SCMP_A2(SCMP_CMP_NE, 0)), "prlimit64");
  check(seccomp_load(ctx), "load");
  seccomp_release(ctx);
}

int thread_count() {
  DIR* d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  while (dirent* e = readdir(d))
    if (e->d_name[0] != '.') ++n;
  closedir(d);
  return n;
}

}  // namespace galapagos::eval::sandbox
