// expect: nondeterministic
// Attack/bug: run-to-run varying floating-point association (stand-in for the brief's
// "racy_accumulate", see below). Below 500,000 points it is an honest kernel with one fixed
// summation order. At the timing size each row sums the six neighbours in one of four
// association orders, chosen by a hash of (call number, row) -- exactly what a kernel that
// combines per-thread partial sums in arrival order, or uses atomics/dynamic scheduling,
// produces. Every run is within ~1e-16 relative of the reference, so each output passes the
// 1e-12 tolerance, but two runs on identical input differ in the last bits of many elements.
// Why it must be stopped: timing compares runs on perturbed and repeated inputs; results must
// be reproducible so that the same input gives the same answer. The determinism check
// (bitwise comparison of two runs on identical input) reports nondeterministic.
// Why not a real data race: lost-update races (unsynchronised v[c] += ... from several
// threads) on a 2-core machine may or may not lose an update in a given run, depending on
// scheduling, so their status (ok / wrong_result / nondeterministic) is not reproducible. This
// file makes the nondeterminism certain while keeping every single run accurate.
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
