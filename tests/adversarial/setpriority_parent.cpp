// expect: sandbox_violation
// Attack (harmless probe of a dangerous hole): re-nice another process. The worker runs as the
// same user as the orchestrator, and an unprivileged user may lower the priority of any of its
// own processes: setpriority(PRIO_PROCESS, getppid(), 19) makes the orchestrator, and every
// worker it starts afterwards, run at the lowest priority (PRIO_USER with who 0 reaches every
// process of the user at once). This probe sets the parent's priority to the value it already
// has (a no-op if allowed) and computes v correctly: status ok if the call is allowed.
// Why it must be stopped: the allow-list admits setpriority only as (PRIO_PROCESS, 0), the
// calling thread itself; any other target kills the worker: SIGSYS, sandbox_violation.
#include "glp_kernel.h"

#include <errno.h>
#include <stdint.h>
#include <sys/resource.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  const pid_t parent = getppid();
  if (parent > 1) {
    errno = 0;
    const int nice_now = getpriority(PRIO_PROCESS, static_cast<id_t>(parent));
    if (errno == 0) setpriority(PRIO_PROCESS, static_cast<id_t>(parent), nice_now);
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
