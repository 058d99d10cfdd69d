// expect: crash
// Attack: computes the first half of the k-planes and then calls exit(0), so the worker process
// ends "successfully" (exit status 0, atexit handlers and stdio flushes run) in the middle of a
// run without ever returning from glp_kernel.
// Why it must be stopped: an exit status of 0 is not a result. The worker died before
// completing the run protocol, so the parent must report crash (and must not read the half
// written v, or any partial message, as a success).
#include "glp_kernel.h"

#include <stdint.h>
#include <stdlib.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;
  for (int64_t k = 0; k < (nz + 1) / 2; ++k)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = (k * ny + j) * nx + i;
        v[c] = (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1)
                   ? u[c]
                   : (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
  exit(0);
}
