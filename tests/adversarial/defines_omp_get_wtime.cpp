// expect: forbidden_symbol
// Attack: OpenMP timer interposition. Exports extern "C" double omp_get_wtime(void) returning a
// clock that barely moves (1 ns per call). A harness that times with omp_get_wtime, or loads
// candidates with RTLD_GLOBAL ahead of libgomp, would measure the kernel at ~1 ns. It computes
// v correctly with OpenMP.
// Why it must be stopped: defining OpenMP runtime symbols (or any symbol other than
// glp_kernel) in the candidate's dynamic symbol table is rejected before loading:
// forbidden_symbol.
#include "glp_kernel.h"

#include <stdint.h>

extern "C" __attribute__((visibility("default"))) double omp_get_wtime(void) {
  static double fake = 0.0;
  fake += 1e-9;
  return fake;
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
