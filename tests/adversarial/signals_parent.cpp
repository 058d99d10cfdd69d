// expect: sandbox_violation
// Attack (harmless probe of a dangerous hole): signals other processes. The worker runs as the
// same user as the orchestrator and as the workers of other islands, so kill() can reach them:
// SIGKILL the orchestrator, or SIGSTOP a competing candidate's worker mid-measurement to make
// it look slow. This probe sends SIGCONT -- a no-op for a running process -- to its parent
// (the orchestrator) and then computes v correctly, so if the signal is allowed the status
// is ok and nothing is harmed.
// Why it must be stopped: the filter must restrict kill/tkill/tgkill/rt_sigqueueinfo/
// rt_tgsigqueueinfo/pidfd_send_signal (and pidfd_open) to the worker's own pid (abort() and
// raise() signal the calling process itself), killing the worker with SIGSYS for any other
// target: sandbox_violation.
#include "glp_kernel.h"

#include <signal.h>
#include <stdint.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  const pid_t parent = getppid();
  if (parent > 1) kill(parent, SIGCONT);
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
