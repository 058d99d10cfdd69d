// expect: sandbox_violation
// Attack: write a file through creat(2). creat(path, mode) is open(path,
// O_CREAT|O_WRONLY|O_TRUNC, mode) with its own syscall number and no flags argument at all,
// so a filter that inspects the flags of open/openat never sees it. The candidate calls raw
// SYS_creat on /tmp/galapagos-leak-creat.txt, writes a line, and computes v correctly.
// Why it must be stopped: creat always opens for writing, so the filter must kill it outright:
// SIGSYS, sandbox_violation.
#include "glp_kernel.h"

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const long fd = syscall(SYS_creat, "/tmp/galapagos-leak-creat.txt", 0600);
  if (fd >= 0) {
    const char msg[] = "written by a sandboxed candidate via creat(2)\n";
    if (write(static_cast<int>(fd), msg, sizeof msg - 1) < 0) { /* ignore */
    }
    close(static_cast<int>(fd));
  }
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
