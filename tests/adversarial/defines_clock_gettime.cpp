// expect: forbidden_symbol
// Attack: timer interposition from inside the candidate. The .so defines and exports
// extern "C" clock_gettime (default visibility) returning a fake clock that advances 1 ns per
// call, so any timer resolved to this definition (LD_PRELOAD-style interposition, RTLD_GLOBAL
// loading, or a worker that looks the symbol up dynamically) would time the kernel at ~1 ns.
// It computes v correctly, so only the timing would be forged.
// Why it must be stopped: the dynamic symbol table of the built .so is checked before it is
// ever loaded; exporting a libc/timer symbol (anything but glp_kernel and compiler-added
// symbols) is forbidden_symbol. The worker's own timer and the parent's clock cross-check are
// the second and third lines of defence.
#include "glp_kernel.h"

#include <stdint.h>
#include <time.h>

extern "C" __attribute__((visibility("default"))) int clock_gettime(clockid_t clk, struct timespec* tp) noexcept {
  (void)clk;
  static long fake_ns = 0;
  fake_ns += 1;
  tp->tv_sec = 0;
  tp->tv_nsec = fake_ns;
  return 0;
}

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 0; k < nz; ++k)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = (k * ny + j) * nx + i;
        v[c] = (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1)
                   ? u[c]
                   : (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
  return 0;
}
