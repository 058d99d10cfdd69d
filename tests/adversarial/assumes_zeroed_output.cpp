// expect: wrong_result
// Bug/attack: accumulates into the output instead of assigning it. The kernel is written as
// a "scatter" of seven streaming passes (centre term, then one pass per neighbour direction),
// each doing v[c] += w * u[...]; the boundary pass does v[c] += u[c]. It is exactly right
// if v arrives zero-filled (calloc'd outputs, or a harness that memsets outputs "for safety"),
// and every element is touched, so a "was every element written" check based on comparing
// against zero would also pass.
// Why it must be stopped: output buffers have unspecified contents on entry. The parent
// pre-fills v with NaN poison, never zeros, so v[c] += ... yields NaN: wrong_result.
#include "glp_kernel.h"

#include <stdint.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const double* __restrict u = static_cast<const double*>(args[0].data);
  double* __restrict v = static_cast<double*>(args[1].data);
  const int64_t sz = nx * ny;
  const int64_t offs[6] = {-1, 1, -nx, nx, -sz, sz};

  // Boundary: v += u.
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 0; k < nz; ++k)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t i = 0; i < nx; ++i)
        if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
          const int64_t c = (k * ny + j) * nx + i;
          v[c] += u[c];
        }
  // Interior: centre pass, then one pass per neighbour.
  for (int pass = -1; pass < 6; ++pass) {
    const int64_t o = pass < 0 ? 0 : offs[pass];
    const double w = pass < 0 ? 1.0 / 3.0 : 1.0 / 9.0;
#pragma omp parallel for collapse(2) schedule(static)
    for (int64_t k = 1; k < nz - 1; ++k)
      for (int64_t j = 1; j < ny - 1; ++j) {
        const int64_t r = (k * ny + j) * nx;
#pragma omp simd
        for (int64_t i = 1; i < nx - 1; ++i) v[r + i] += w * u[r + i + o];
      }
  }
  return 0;
}
