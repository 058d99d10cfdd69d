// expect: ok
// Honest variant 3: cache blocking in y and z. The interior is cut into BJ x BK tiles of full
// x-rows so that the three k-planes of a tile stay in L2 while it is swept; tiles are handed
// out dynamically to OpenMP threads. Boundary planes/rows/columns are written by a separate
// copy pass. Every point is still written exactly once by one thread with one expression, so
// the result is deterministic even with schedule(dynamic). Handles dims < 3. Expected: ok.
#include "glp_kernel.h"

#include <stdint.h>
#include <string.h>

namespace {
constexpr int64_t BJ = 16;
constexpr int64_t BK = 8;
}  // namespace

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

  if (nx < 3 || ny < 3 || nz < 3) {
    memcpy(v, u, static_cast<size_t>(n) * sizeof(double));
    return 0;
  }

  // Boundary pass: bottom and top k-planes, then the j = 0 / j = ny-1 rows and the i = 0 /
  // i = nx-1 columns of every interior plane.
  memcpy(v, u, static_cast<size_t>(sz) * sizeof(double));
  memcpy(v + (nz - 1) * sz, u + (nz - 1) * sz, static_cast<size_t>(sz) * sizeof(double));
#pragma omp parallel for schedule(static)
  for (int64_t k = 1; k < nz - 1; ++k) {
    const int64_t plane = k * sz;
    memcpy(v + plane, u + plane, static_cast<size_t>(nx) * sizeof(double));
    memcpy(v + plane + (ny - 1) * nx, u + plane + (ny - 1) * nx, static_cast<size_t>(nx) * sizeof(double));
    for (int64_t j = 1; j < ny - 1; ++j) {
      const int64_t row = plane + j * nx;
      v[row] = u[row];
      v[row + nx - 1] = u[row + nx - 1];
    }
  }

  // Interior pass, tiled in (j, k).
  const int64_t tj = (ny - 2 + BJ - 1) / BJ;
  const int64_t tk = (nz - 2 + BK - 1) / BK;
#pragma omp parallel for collapse(2) schedule(dynamic, 1)
  for (int64_t bk = 0; bk < tk; ++bk) {
    for (int64_t bj = 0; bj < tj; ++bj) {
      const int64_t k0 = 1 + bk * BK, k1 = (k0 + BK < nz - 1) ? k0 + BK : nz - 1;
      const int64_t j0 = 1 + bj * BJ, j1 = (j0 + BJ < ny - 1) ? j0 + BJ : ny - 1;
      for (int64_t k = k0; k < k1; ++k) {
        for (int64_t j = j0; j < j1; ++j) {
          const int64_t row = (k * ny + j) * nx;
#pragma omp simd
          for (int64_t i = 1; i < nx - 1; ++i) {
            const int64_t c = row + i;
            v[c] = (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
          }
        }
      }
    }
  }
  return 0;
}
