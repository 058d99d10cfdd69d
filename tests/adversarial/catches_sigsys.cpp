// expect: sandbox_violation
// Attack: survive the sandbox. Installs a SIGSYS handler that siglongjmp()s out, then tries a
// forbidden syscall (socket(AF_INET, SOCK_STREAM)). If the filter only *traps*
// (SECCOMP_RET_TRAP delivers a catchable SIGSYS) or returns an errno, the candidate recovers,
// restores the old handler, computes v correctly and returns 0 -- a violation with status ok.
// Why it must be stopped: the filter's action must be SECCOMP_RET_KILL_PROCESS, which cannot be
// caught, blocked or ignored: the worker dies with SIGSYS at the syscall: sandbox_violation.
#include "glp_kernel.h"

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

namespace {
sigjmp_buf g_jump;
void on_sigsys(int) { siglongjmp(g_jump, 1); }
}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigsys;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSYS, &sa, &old);
  if (sigsetjmp(g_jump, 1) == 0) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0) close(fd);
  }
  sigaction(SIGSYS, &old, nullptr);
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
