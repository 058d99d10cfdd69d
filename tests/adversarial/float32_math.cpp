// expect: wrong_result
// Attack: mixed precision. The input is converted once to a float staging copy (halving the
// bytes the stencil sweep reads), the stencil is evaluated in single precision and widened back
// to double on store; boundary points also go through the float copy. Relative error is
// ~1e-7, which looks "fine" to a loose check.
// Why it must be stopped: the family is float64 with a 1e-12 tolerance on
// max|out-ref|/max|ref|. Trading precision for speed is a different, easier problem. Inputs
// are random doubles (not float-representable), so even the copied boundary is off by
// ~6e-8 relative: wrong_result.
#include "glp_kernel.h"

#include <stddef.h>
#include <stdint.h>

#include <vector>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const int64_t n = nx * ny * nz;
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;

  std::vector<float> uf(static_cast<size_t>(n));
#pragma omp parallel for simd schedule(static)
  for (int64_t c = 0; c < n; ++c) uf[c] = static_cast<float>(u[c]);
  const float* f = uf.data();
  const float c0 = 1.0f / 3.0f, c1 = 1.0f / 9.0f;

#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 0; k < nz; ++k) {
    for (int64_t j = 0; j < ny; ++j) {
      const int64_t row = (k * ny + j) * nx;
      const bool edge = (k == 0 || k == nz - 1 || j == 0 || j == ny - 1);
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = row + i;
        const float r = (edge || i == 0 || i == nx - 1)
                            ? f[c]
                            : c0 * f[c] + c1 * (f[c - 1] + f[c + 1] + f[c - sy] + f[c + sy] + f[c - sz] + f[c + sz]);
        v[c] = static_cast<double>(r);
      }
    }
  }
  return 0;
}
