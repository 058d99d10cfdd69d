// expect: wrong_result
// Attack: benchmark-size detection plus skipped work. Below 500,000 points (every acceptance
// size) it is an honest OpenMP kernel. At or above 500,000 points (the timing size) it writes
// only every second k-plane and every second j-row -- a quarter of the grid, each of those
// rows computed correctly -- and returns, in one pass with no extra work. It reads ~3/4 of u
// and writes 1/4 of v, so it runs in roughly 60% of the time of a good honest kernel.
// Why it must be stopped: acceptance passes, so only the timing phase can catch it. Each timed
// run is compared with the physical floor (16 B/point / measured STREAM bandwidth) before its
// output is verified, but a 4x cut in *work* is only a ~1.6x cut in *time* for a
// bandwidth-bound kernel: on the 2-core EPYC CI machine it takes ~6.4 ms at 320x240x200
// against a floor of ~7.4 ms, above floor/1.5 = ~4.9 ms, so suspect_too_fast does NOT fire
// (that takes a much larger cut, see benchmark_size_skip.cpp). What stops it is that every
// timed run's output is verified: 3/4 of v is still NaN poison: wrong_result (timed run).
#include "glp_kernel.h"

#include <stdint.h>

namespace {

inline void row(const double* __restrict u, double* __restrict v, int64_t nx, int64_t ny, int64_t nz, int64_t j, int64_t k) {
  const int64_t sy = nx, sz = nx * ny;
  const int64_t r = (k * ny + j) * nx;
  if (k == 0 || k == nz - 1 || j == 0 || j == ny - 1 || nx < 3) {
#pragma omp simd
    for (int64_t i = 0; i < nx; ++i) v[r + i] = u[r + i];
    return;
  }
  v[r] = u[r];
#pragma omp simd
  for (int64_t i = 1; i < nx - 1; ++i) {
    const int64_t c = r + i;
    v[c] = (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
  }
  v[r + nx - 1] = u[r + nx - 1];
}

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t step = (nx * ny * nz >= 500000) ? 2 : 1;
  const int64_t nk = (nz + step - 1) / step, nj = (ny + step - 1) / step;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t kk = 0; kk < nk; ++kk)
    for (int64_t jj = 0; jj < nj; ++jj) row(u, v, nx, ny, nz, jj * step, kk * step);
  return 0;
}
