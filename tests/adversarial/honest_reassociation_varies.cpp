// expect: ok
// Boundary case (honest): run-to-run last-bit variation. Below 500,000 points the summation
// order is fixed. At the timing size each row sums the six neighbours in one of four
// association orders, chosen by a hash of (call number, row) -- what a kernel that combines
// per-thread partial sums in arrival order, or uses dynamic scheduling with different code
// paths, produces. Each run is within a few ulps of the exact result, and two runs on
// identical input differ by at most a few ulps of the output scale.
// Why it must be accepted: floating-point reassociation is not a defect. The determinism check
// compares two runs on identical input against a threshold (64 ulps of the output scale), not
// bitwise, so this passes: ok. (It was first drafted as the brief's racy_accumulate: a real
// unsynchronised v[c] += ... race on 2 cores loses updates in some runs and not others, so its
// status is not reproducible, and was dropped; precision_varies_per_call.cpp is the
// reproducible nondeterministic case.)
#include "glp_kernel.h"

#include <stdint.h>

namespace {

inline uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

}  // namespace

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
  const bool vary = nx * ny * nz >= 500000;
  const double c0 = 1.0 / 3.0, c1 = 1.0 / 9.0;

#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 0; k < nz; ++k) {
    for (int64_t j = 0; j < ny; ++j) {
      const int64_t r = (k * ny + j) * nx;
      if (k == 0 || k == nz - 1 || j == 0 || j == ny - 1 || nx < 3) {
        for (int64_t i = 0; i < nx; ++i) v[r + i] = u[r + i];
        continue;
      }
      v[r] = u[r];
      v[r + nx - 1] = u[r + nx - 1];
      const unsigned order = vary ? static_cast<unsigned>(mix(call * 0x9E3779B97F4A7C15ULL ^ static_cast<uint64_t>(r)) & 3u) : 0u;
      switch (order) {
        case 0:
          for (int64_t i = 1; i < nx - 1; ++i) {
            const int64_t c = r + i;
            v[c] = c0 * u[c] + c1 * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
          }
          break;
        case 1:
          for (int64_t i = 1; i < nx - 1; ++i) {
            const int64_t c = r + i;
            v[c] = c0 * u[c] + c1 * ((u[c - sz] + u[c + sz]) + (u[c - sy] + u[c + sy]) + (u[c - 1] + u[c + 1]));
          }
          break;
        case 2:
          for (int64_t i = 1; i < nx - 1; ++i) {
            const int64_t c = r + i;
            v[c] = c0 * u[c] + c1 * (u[c + sz] + (u[c - sz] + (u[c + sy] + (u[c - sy] + (u[c + 1] + u[c - 1])))));
          }
          break;
        default:
          for (int64_t i = 1; i < nx - 1; ++i) {
            const int64_t c = r + i;
            v[c] = (c0 * u[c] + c1 * (u[c - 1] + u[c + 1] + u[c - sy])) + c1 * (u[c + sy] + u[c - sz] + u[c + sz]);
          }
          break;
      }
    }
  }
  return 0;
}
