// expect: ok
// Honest variant 5: computes each k-plane into a temporary scratch plane and then copies the
// finished plane into v. The scratch buffer is a std::vector (value-initialised, so every cell
// holds a defined value before it is used), every cell that is copied out has been written
// from u in this call, and the buffer is freed when the call returns. Contrast with
// uninitialised_read.cpp, which copies scratch cells it never wrote. Expected: ok.
#include "glp_kernel.h"

#include <stdint.h>
#include <string.h>

#include <vector>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const int64_t n = nx * ny * nz;
  if (args[0].count < n || args[1].count < n) return 2;
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;
  const size_t plane_bytes = static_cast<size_t>(sz) * sizeof(double);

  std::vector<double> scratch(static_cast<size_t>(sz), 0.0);
  for (int64_t k = 0; k < nz; ++k) {
    const double* up = u + k * sz;
    double* sp = scratch.data();
    // Start from a copy of the input plane: boundary cells are then already right.
    memcpy(sp, up, plane_bytes);
    if (k > 0 && k < nz - 1 && nx >= 3 && ny >= 3) {
      for (int64_t j = 1; j < ny - 1; ++j) {
        for (int64_t i = 1; i < nx - 1; ++i) {
          const int64_t p = j * nx + i;
          sp[p] = (1.0 / 3.0) * up[p] + (1.0 / 9.0) * (up[p - 1] + up[p + 1] + up[p - sy] + up[p + sy] + up[p - sz] + up[p + sz]);
        }
      }
    }
    memcpy(v + k * sz, sp, plane_bytes);
  }
  return 0;
}
