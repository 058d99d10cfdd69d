// expect: wrong_result
// Bug: computes the interior into a freshly new'd scratch array (new double[n], not
// initialised), never fills the scratch boundary cells, then memcpy's the whole scratch into v.
// The boundary of v thus receives whatever the allocator returned: zeros from a fresh mmap,
// or stale heap contents from an earlier allocation.
// Why it must be stopped: reading uninitialised memory can look right by accident (fresh pages
// are zero, and a zero-filled input would hide it). Inputs are random and signed, so neither
// zeros nor stale data match v = u on the boundary: wrong_result.
#include "glp_kernel.h"

#include <stdint.h>
#include <string.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const int64_t n = nx * ny * nz;
  const double* __restrict u = static_cast<const double*>(args[0].data);
  double* __restrict v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;

  double* scratch = new double[static_cast<size_t>(n)];  // uninitialised
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 1; k < nz - 1; ++k) {
    for (int64_t j = 1; j < ny - 1; ++j) {
      const int64_t row = (k * ny + j) * nx;
#pragma omp simd
      for (int64_t i = 1; i < nx - 1; ++i) {
        const int64_t c = row + i;
        scratch[c] = (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
    }
  }
  memcpy(v, scratch, static_cast<size_t>(n) * sizeof(double));  // includes the never-written boundary
  delete[] scratch;
  return 0;
}
