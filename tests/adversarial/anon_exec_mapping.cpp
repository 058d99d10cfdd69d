// expect: sandbox_violation
// Attack (harmless probe): make anonymous memory executable. The candidate writes machine code
// into a fresh private mapping, then flips it from writable to executable with mprotect (never
// both at once, so a rule that only looks for PROT_WRITE|PROT_EXEC misses it) and calls it:
// code the build and the symbol check never saw, generated at run time. The same mprotect is
// how the vDSO's clock is patched (vdso_clock_patch). This probe writes a single `ret`, calls
// it and computes v correctly: status ok if allowed.
// Why it must be stopped: on the CPU path mprotect may not add PROT_EXEC, and mmap may map
// PROT_EXEC only from a file and never writable: SIGSYS, sandbox_violation.
#include "glp_kernel.h"

#include <stdint.h>
#include <sys/mman.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page != MAP_FAILED) {
    *static_cast<unsigned char*>(page) = 0xc3;  // ret
    if (mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0) reinterpret_cast<void (*)()>(page)();
    munmap(page, 4096);
  }
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;
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
