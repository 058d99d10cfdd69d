// expect: wrong_result
// Bug/attack: like nan_output, but the one bad element (the last corner of the grid) is +Inf,
// from an overflowing "scale" applied to the final point. |Inf - ref| is Inf, but a checker
// that normalises by max|out| instead of max|ref| (Inf/Inf = NaN) or that filters non-finite
// values out of the error computation would wave it through.
// Why it must be stopped: non-finite output where the reference is finite never passes:
// wrong_result.
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
  for (int64_t k = 0; k < nz; ++k)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = (k * ny + j) * nx + i;
        v[c] = (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1)
                   ? u[c]
                   : (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
  if (n > 0) v[n - 1] = (v[n - 1] < 0 ? -1.0 : 1.0) * std::numeric_limits<double>::infinity();
  return 0;
}
