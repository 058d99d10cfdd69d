// expect: ok
// Honest variant 2: OpenMP over (k, j) rows with collapse(2) and a static schedule, the inner
// i loop vectorised with `#pragma omp simd`. Each point is computed by exactly one thread with
// the same expression, so results are bitwise reproducible run to run. The libgomp thread pool
// stays parked after the parallel region returns: the evaluator's leaked-thread check must not
// count an idle OpenMP pool as a leak. Handles dims < 3 (pure copy). Expected: ok.
#include "glp_kernel.h"

#include <stdint.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const int64_t n = nx * ny * nz;
  if (args[0].count < n || args[1].count < n) return 2;
  const double* __restrict u = static_cast<const double*>(args[0].data);
  double* __restrict v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;
  const double c0 = 1.0 / 3.0, c1 = 1.0 / 9.0;

  if (nx < 3 || ny < 3 || nz < 3) {
#pragma omp parallel for simd schedule(static)
    for (int64_t c = 0; c < n; ++c) v[c] = u[c];
    return 0;
  }

#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 0; k < nz; ++k) {
    for (int64_t j = 0; j < ny; ++j) {
      const int64_t row = (k * ny + j) * nx;
      if (k == 0 || k == nz - 1 || j == 0 || j == ny - 1) {
#pragma omp simd
        for (int64_t i = 0; i < nx; ++i) v[row + i] = u[row + i];
        continue;
      }
      v[row] = u[row];
#pragma omp simd
      for (int64_t i = 1; i < nx - 1; ++i) {
        const int64_t c = row + i;
        v[c] = c0 * u[c] + c1 * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
      v[row + nx - 1] = u[row + nx - 1];
    }
  }
  return 0;
}
