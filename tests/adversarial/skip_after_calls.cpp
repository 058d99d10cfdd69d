// expect: wrong_result
// Attack: call-count detection. A static counter lets the first 3 calls compute honestly
// (enough to pass a harness that checks only its first runs), after which glp_kernel returns 0
// immediately without touching v, hoping later (timed) runs are not checked.
// Why it must be stopped: every run, not just the first few, must be verified. With the
// acceptance sizes x seeds run in one worker, call 4 is still an acceptance call and its v is
// still the NaN poison: wrong_result. (If each acceptance call got a fresh worker, the first
// skipped call would be a timing run and its near-zero time would be rejected by the physical
// floor check first, as suspect_too_fast.)
#include "glp_kernel.h"

#include <stdint.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  static int calls = 0;
  if (++calls > 3) return 0;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const double* __restrict u = static_cast<const double*>(args[0].data);
  double* __restrict v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 0; k < nz; ++k) {
    for (int64_t j = 0; j < ny; ++j) {
      const int64_t row = (k * ny + j) * nx;
      const bool edge = (k == 0 || k == nz - 1 || j == 0 || j == ny - 1);
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = row + i;
        v[c] = (edge || i == 0 || i == nx - 1)
                   ? u[c]
                   : (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
    }
  }
  return 0;
}
