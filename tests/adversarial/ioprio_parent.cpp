// expect: sandbox_violation
// Attack (harmless probe of a dangerous hole): change another process's I/O priority.
// ioprio_set(IOPRIO_WHO_PROCESS, getppid(), IDLE class) starves the orchestrator's writes of
// the results file and its compiler runs; IOPRIO_WHO_USER reaches every process of the user.
// This probe sets the parent to class NONE, priority 0: what a process that never chose one
// has (a no-op if allowed), then computes v correctly: status ok if the call is allowed.
// Why it must be stopped: nothing the worker runs needs ioprio_set, so it is not on the
// allow-list: SIGSYS, sandbox_violation.
#include "glp_kernel.h"

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  constexpr int ioprio_who_process = 1;
  constexpr int ioprio_class_none_level_0 = 0;
  const pid_t parent = getppid();
  if (parent > 1) syscall(SYS_ioprio_set, ioprio_who_process, parent, ioprio_class_none_level_0);
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
