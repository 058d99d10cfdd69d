// expect: sandbox_violation
// Attack (harmless probe): signal another process with tkill(2). tkill(tid, sig) takes a
// thread id, and a process's main thread id is its pid, so tkill(getppid(), SIGKILL) kills the
// orchestrator. Filters often restrict tgkill (what glibc's raise/abort use) and kill, and
// forget the older tkill. This probe sends SIGCONT (a no-op for a running process) to the
// parent's main thread and computes v correctly (status ok if the call is allowed).
// Why it must be stopped: tkill to any thread outside the worker must kill the worker: SIGSYS,
// sandbox_violation. (glibc never uses tkill itself, so killing it outright is safe.)
#include "glp_kernel.h"

#include <signal.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  const pid_t parent = getppid();
  if (parent > 1) syscall(SYS_tkill, parent, SIGCONT);
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
