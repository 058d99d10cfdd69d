// expect: timeout
// Attack: unkillable-by-politeness. Computes v correctly, then sets SIG_IGN for SIGTERM and
// SIGINT (and, to be thorough, SIGHUP, SIGQUIT, SIGALRM, SIGVTALRM, SIGPROF, SIGUSR1/2,
// SIGXCPU) and spins forever. With SIGXCPU ignored, the soft RLIMIT_CPU no longer stops it;
// only the hard CPU limit (SIGKILL) or a SIGKILL from the parent can.
// Why it must be stopped: a worker that ignores a graceful stop request must still be
// reclaimed. The parent must escalate to SIGKILL (on the process group and on the pid) after
// its grace period, and report timeout (not crash) whether the wall clock or RLIMIT_CPU ended
// it.
#include "glp_kernel.h"

#include <signal.h>
#include <stdint.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
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

  const int ignored[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGALRM, SIGVTALRM, SIGPROF, SIGUSR1, SIGUSR2, SIGXCPU};
  for (int s : ignored) signal(s, SIG_IGN);
  for (;;) {
    __asm__ __volatile__("" ::: "memory");
  }
}
