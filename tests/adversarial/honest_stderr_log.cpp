// expect: ok
// Honest variant 7: a correct kernel that is chatty. It prints a progress line to stderr and a
// summary line to stdout on every call (std::fprintf and std::cout). Writing to the already
// open stdout/stderr descriptors is allowed (they are captured into a log file and never
// parsed), so neither the sandbox nor the result channel may treat this as a violation or as
// a forged message, even though the stdout line looks like JSON. Expected: ok.
#include "glp_kernel.h"

#include <stdint.h>
#include <stdio.h>

#include <iostream>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  static long calls = 0;
  ++calls;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const int64_t n = nx * ny * nz;
  if (args[0].count < n || args[1].count < n) return 2;
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  fprintf(stderr, "[stencil3d7] call %ld: %lld x %lld x %lld\n", calls, static_cast<long long>(nx), static_cast<long long>(ny),
          static_cast<long long>(nz));

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
  std::cout << "{\"status\":\"ok\",\"note\":\"stencil3d7 call " << calls << " done\"}" << std::endl;
  return 0;
}
