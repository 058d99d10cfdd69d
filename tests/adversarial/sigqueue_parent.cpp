// expect: sandbox_violation
// Attack (harmless probe): signal another process through a syscall other than kill().
// sigqueue() is rt_sigqueueinfo(pid, sig, info) with si_code = SI_QUEUE, which may target any
// process of the same user, exactly like kill(). A filter that restricts kill and tgkill to
// the worker's own pid but forgets rt_sigqueueinfo (and rt_tgsigqueueinfo, tkill,
// pidfd_send_signal) lets a candidate SIGKILL the orchestrator or SIGSTOP a competing worker.
// This probe queues SIGCONT (a no-op for a running process) to its parent and then computes v
// correctly (status ok if the call is allowed).
// Why it must be stopped: every signal-sending syscall must be confined to the worker itself:
// SIGSYS, sandbox_violation.
#include "glp_kernel.h"

#include <signal.h>
#include <stdint.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  const pid_t parent = getppid();
  if (parent > 1) {
    union sigval val;
    val.sival_int = 0;
    sigqueue(parent, SIGCONT, val);
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
