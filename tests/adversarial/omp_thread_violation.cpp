// expect: sandbox_violation
// Attack (harmless probe): do the forbidden thing on a thread that existed before the filter.
// The worker starts its OpenMP pool before it installs the system-call filter (so that no
// candidate pays for it), and a seccomp filter applies to the thread that installs it and to
// threads created after: unless it is synchronised to every thread, the pool's threads run
// candidate code (any parallel region) with no filter at all. This probe signals its parent
// with SIGCONT (a no-op) from every thread of a parallel region except the first, then
// computes v correctly: status ok if the call is allowed.
// Why it must be stopped: the filter is installed with SECCOMP_FILTER_FLAG_TSYNC, on every
// thread of the worker: SIGSYS, sandbox_violation.
#include "glp_kernel.h"

#include <omp.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  const pid_t parent = getppid();
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() != 0 && parent > 1) kill(parent, SIGCONT);
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
