// expect: wrong_result
// Attack/bug: linear-index chunking with an off-by-one. The grid is treated as a flat array
// cut into 100 chunks of n/100 points; the chunk loop stops one chunk early and the n % 100
// remainder is forgotten, so the last ~1% of v (at least one element, for every n) is never
// written. Everything it does write is correct.
// Why it must be stopped: an unwritten output must never pass just because the buffer happened
// to hold plausible values (e.g. zeros against a zero-heavy input, or the previous run's
// result). The parent pre-fills v with a NaN poison pattern, so the untouched tail is
// detected as "not written": wrong_result.
#include "glp_kernel.h"

#include <stdint.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const int64_t n = nx * ny * nz;
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;

  const int64_t nchunks = 100;
  const int64_t chunk = n / nchunks;
#pragma omp parallel for schedule(static)
  for (int64_t t = 0; t < nchunks - 1; ++t) {  // BUG: should be t < nchunks, plus the remainder
    for (int64_t c = t * chunk; c < (t + 1) * chunk; ++c) {
      const int64_t i = c % nx, j = (c / nx) % ny, k = c / sz;
      if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
        v[c] = u[c];
      } else {
        v[c] = (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
    }
  }
  return 0;
}
