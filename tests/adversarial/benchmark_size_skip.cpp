// expect: suspect_too_fast
// size: tune
// Attack: benchmark-size detection plus skipped work, the blatant version. Below 500,000
// points (every acceptance size) it is an honest OpenMP kernel. At or above 500,000 points (the
// timing size) it only copies the bottom boundary plane (k = 0, which is v = u there) and
// returns, as if the rest had been done by some faster path.
// Why it must be stopped: acceptance passes, and the output of a timed run is only verified
// after its time has been checked. The run takes a fraction of a millisecond at 320x240x200
// (including the page faults of a worker touching the arena for the first time), far below
// the physical floor (16 B/point / measured bandwidth, ~7 ms on the CI machine) divided by the
// 1.5 margin, so the run is rejected as suspect_too_fast before its (mostly poison) output is
// looked at. Subtler cuts are not fast enough for the floor check and are caught by output
// verification instead (half_points_fast.cpp).
#include "glp_kernel.h"

#include <stdint.h>
#include <string.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const double* __restrict u = static_cast<const double*>(args[0].data);
  double* __restrict v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;
  if (nx * ny * nz >= 500000) {
    memcpy(v, u, static_cast<size_t>(sz) * sizeof(double));  // the k = 0 plane, and nothing else
    return 0;
  }
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 0; k < nz; ++k) {
    for (int64_t j = 0; j < ny; ++j) {
      const int64_t r = (k * ny + j) * nx;
      const bool edge = (k == 0 || k == nz - 1 || j == 0 || j == ny - 1);
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = r + i;
        v[c] = (edge || i == 0 || i == nx - 1)
                   ? u[c]
                   : (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
    }
  }
  return 0;
}
