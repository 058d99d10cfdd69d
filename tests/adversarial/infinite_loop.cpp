// expect: timeout
// Bug/attack: a "sweep until converged" loop whose exit condition can never become true (it
// polls a flag that nothing ever clears), so the kernel keeps recomputing v forever. Each pass
// writes memory through a volatile flag check, so the compiler cannot delete the loop.
// Why it must be stopped: a candidate must not be able to hang the search. The parent's
// wall-clock limit kills the worker's process group (or RLIMIT_CPU delivers SIGXCPU first);
// either way the verdict must be timeout, not crash.
#include "glp_kernel.h"

#include <stdint.h>

namespace {
volatile int g_keep_sweeping = 1;  // "cleared when the residual is small enough" -- never is
}

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;
  while (g_keep_sweeping) {
    for (int64_t k = 0; k < nz; ++k) {
      for (int64_t j = 0; j < ny; ++j) {
        for (int64_t i = 0; i < nx; ++i) {
          const int64_t c = (k * ny + j) * nx + i;
          v[c] = (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1)
                     ? u[c]
                     : (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
        }
      }
    }
  }
  return 0;
}
