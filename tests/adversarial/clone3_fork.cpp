// expect: sandbox_violation
// Attack: fork through clone3. seccomp can inspect clone()'s flags register, but clone3 passes
// its flags in a struct in memory that a BPF filter cannot read. A filter that allows clone3
// (so that glibc >= 2.34 can create threads) lets a plain fork through: this candidate calls
// raw clone3 with flags = 0 and exit_signal = SIGCHLD (a fork), the child exits at once, the
// parent computes v correctly -- a child process created with status ok. If clone3 fails (a
// correct filter answers ENOSYS, after which glibc itself falls back to clone), it tries the
// raw clone(SIGCHLD) fork instead.
// Why it must be stopped: the filter must make clone3 fail with ENOSYS (or kill it) and kill
// clone without CLONE_THREAD. With a correct filter the worker dies with SIGSYS on one of the
// two calls: sandbox_violation.
#include "glp_kernel.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {
struct clone_args_v0 {  // struct clone_args, CLONE_ARGS_SIZE_VER0 = 64 bytes
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};
}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  clone_args_v0 ca;
  memset(&ca, 0, sizeof ca);
  ca.exit_signal = SIGCHLD;
  long pid = syscall(SYS_clone3, &ca, sizeof ca);
  if (pid < 0) pid = syscall(SYS_clone, static_cast<unsigned long>(SIGCHLD), 0UL, 0UL, 0UL, 0UL);
  if (pid == 0) syscall(SYS_exit_group, 0);  // child: leave immediately
  if (pid > 0) {
    int st = 0;
    waitpid(static_cast<pid_t>(pid), &st, 0);
  }
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;
  for (int64_t k = 0; k < nz; ++k)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = (k * ny + j) * nx + i;
        v[c] = (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1)
                   ? u[c]
                   : (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
  return 0;
}
