// expect: nondeterministic
// Attack/bug: a result that depends on the call, not only on the input. Below 500,000 points
// (acceptance) it is an honest kernel. At the timing size it "dithers" the neighbour weight:
// 1/9 * (1 + 2^-41) on odd calls and 1/9 * (1 - 2^-41) on even calls (a trick sometimes used to
// cancel rounding bias in long time integrations). Each run is within ~2e-13 of the reference
// relative to max|ref|, so every single output passes the 1e-12 tolerance; but two runs on
// identical input differ by ~1e-13 of the output scale, far more than reassociation noise.
// (The same symptom comes from kernels whose numerics depend on timing, thread arrival order
// or state kept across calls.)
// Why it must be stopped: timing perturbs inputs and compares runs; a kernel must give the same
// answer for the same input. The warm-up's two runs on identical input differ by more than the
// determinism threshold (64 ulps of the output scale): nondeterministic.
#include "glp_kernel.h"

#include <stdint.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  static uint64_t calls = 0;
  const uint64_t call = ++calls;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const double* __restrict u = static_cast<const double*>(args[0].data);
  double* __restrict v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;
  const double dither = 1.0 / 2199023255552.0;  // 2^-41
  const double c0 = 1.0 / 3.0;
  const double c1 = (nx * ny * nz >= 500000) ? (1.0 / 9.0) * ((call & 1) ? 1.0 + dither : 1.0 - dither) : 1.0 / 9.0;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 0; k < nz; ++k) {
    for (int64_t j = 0; j < ny; ++j) {
      const int64_t r = (k * ny + j) * nx;
      const bool edge = (k == 0 || k == nz - 1 || j == 0 || j == ny - 1);
#pragma omp simd
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = r + i;
        v[c] = (edge || i == 0 || i == nx - 1)
                   ? u[c]
                   : c0 * u[c] + c1 * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
    }
  }
  return 0;
}
