// expect: input_modified
// Attack: uses the input as scratch. To save one multiply per point it pre-scales u in place by
// 1/9 (after first copying u into v so the boundary is right), then computes the interior as
// 3*u' + sum of the six scaled neighbours. v is correct to a couple of ulps, but u is left
// scaled and is never restored.
// Why it must be stopped: inputs are read-only by contract. A kernel that clobbers its input
// can corrupt a caller that reuses it, and can also game a harness that re-runs on "the same"
// buffer (e.g. the determinism re-run). The parent compares u bitwise with its pristine copy
// after the call: input_modified.
#include "glp_kernel.h"

#include <stdint.h>
#include <string.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const int64_t n = nx * ny * nz;
  double* us = static_cast<double*>(args[0].data);  // declared const in spirit only
  double* __restrict v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;

  memcpy(v, us, static_cast<size_t>(n) * sizeof(double));  // boundary (and interior, overwritten below)
  if (nx < 3 || ny < 3 || nz < 3) return 0;

#pragma omp parallel for simd schedule(static)
  for (int64_t c = 0; c < n; ++c) us[c] *= (1.0 / 9.0);

#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 1; k < nz - 1; ++k) {
    for (int64_t j = 1; j < ny - 1; ++j) {
      const int64_t row = (k * ny + j) * nx;
#pragma omp simd
      for (int64_t i = 1; i < nx - 1; ++i) {
        const int64_t c = row + i;
        v[c] = 3.0 * us[c] + (us[c - 1] + us[c + 1] + us[c - sy] + us[c + sy] + us[c - sz] + us[c + sz]);
      }
    }
  }
  return 0;
}
