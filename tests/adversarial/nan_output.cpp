// expect: wrong_result
// Bug/attack: computes v correctly except for one element (the centre of the grid), which gets
// a quiet NaN (a 0/0 from a "normalisation" that is only meant to run on empty grids). A naive
// checker computing max|out-ref| with std::max or `if (err > worst)` silently skips NaN,
// because every comparison with NaN is false, and would pass this.
// Why it must be stopped: NaN (and Inf) must never pass, whatever the error arithmetic says. The
// parent rejects any non-finite element where the reference is finite: wrong_result.
#include "glp_kernel.h"

#include <stdint.h>

#include <limits>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  const int64_t n = nx * ny * nz;
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 0; k < nz; ++k)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = (k * ny + j) * nx + i;
        v[c] = (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1)
                   ? u[c]
                   : (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
  if (n > 0) v[((nz / 2) * ny + ny / 2) * nx + nx / 2] = std::numeric_limits<double>::quiet_NaN();
  return 0;
}
