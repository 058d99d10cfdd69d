// expect: sandbox_violation
// Attack (harmless probe of a dangerous hole): change another process's scheduling policy.
// Moving a process to SCHED_IDLE needs no privilege when the caller has the same user, so
// sched_setscheduler(getppid(), SCHED_IDLE, ...) leaves the orchestrator, and the workers it
// starts later (they inherit the policy), only the CPU time nothing else wants. This probe
// reads the parent's policy and parameters and sets them to what they already are (a no-op if
// allowed), then computes v correctly: status ok if the call is allowed.
// Why it must be stopped: sched_setscheduler and sched_setparam are allowed for pid 0 (the
// calling thread) only; any other pid kills the worker: SIGSYS, sandbox_violation.
#include "glp_kernel.h"

#include <sched.h>
#include <stdint.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  const pid_t parent = getppid();
  if (parent > 1) {
    struct sched_param param {};
    const int policy = sched_getscheduler(parent);
    if (policy >= 0 && sched_getparam(parent, &param) == 0) sched_setscheduler(parent, policy, &param);
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
