// stencil3d7 baseline: the plain OpenMP loop a user would write. One parallel loop over the rows
// (k, j), an inner i loop with the interior formula, boundary points copied. No tiling, no
// intrinsics, no streaming stores: whatever -O3 -march=native makes of it.
#include <cstdint>

#include "glp_kernel.h"

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  if (args == nullptr || sizes == nullptr || nargs != 2) return 1;
  if (args[0].dtype != GLP_FLOAT64 || args[1].dtype != GLP_FLOAT64) return 2;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx < 0 || ny < 0 || nz < 0) return 3;
  if (args[0].count != nx * ny * nz || args[1].count != nx * ny * nz) return 4;
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;

#pragma omp parallel for collapse(2)
  for (int64_t k = 0; k < nz; ++k) {
    for (int64_t j = 0; j < ny; ++j) {
      const int64_t row = (k * ny + j) * nx;
      if (k == 0 || k == nz - 1 || j == 0 || j == ny - 1 || nx < 3) {
        for (int64_t i = 0; i < nx; ++i) v[row + i] = u[row + i];
      } else {
        v[row] = u[row];
        for (int64_t i = 1; i < nx - 1; ++i) {
          const int64_t c = row + i;
          v[c] = (1.0 / 3.0) * u[c] +
                 (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
        }
        v[row + nx - 1] = u[row + nx - 1];
      }
    }
  }
  return 0;
}
