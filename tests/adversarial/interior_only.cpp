// expect: wrong_result
// Attack/bug: computes the 7-point stencil on interior points only and never touches the
// boundary, betting that the output buffer already holds the right values there (a copy of u,
// or zeros that match a zero-padded input). For dims < 3 it writes nothing at all.
// Why it must be stopped: boundary points are part of the specified output (v = u there). The
// parent pre-fills v with NaN poison and checks every element was written: wrong_result.
#include "glp_kernel.h"

#include <stdint.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  const double* __restrict u = static_cast<const double*>(args[0].data);
  double* __restrict v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 1; k < nz - 1; ++k) {
    for (int64_t j = 1; j < ny - 1; ++j) {
      const int64_t row = (k * ny + j) * nx;
#pragma omp simd
      for (int64_t i = 1; i < nx - 1; ++i) {
        const int64_t c = row + i;
        v[c] = (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
    }
  }
  return 0;
}
