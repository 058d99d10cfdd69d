// expect: sandbox_violation
// Attack: write a file through the legacy open(2) syscall. glibc's open()/fopen() use openat,
// so a filter written against what glibc does may check only openat's flags. This candidate
// issues the raw x86-64 SYS_open with O_WRONLY|O_CREAT|O_TRUNC on
// /tmp/galapagos-leak-open.txt, stores the problem shape there, and computes v correctly
// (status ok if the open is not caught).
// Why it must be stopped: "no opening for writing" must cover every syscall that can open:
// open, openat, creat and openat2 (the last cannot be inspected: it must fail or be killed).
// With the flags checked on SYS_open too, the worker dies with SIGSYS: sandbox_violation.
#include "glp_kernel.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const long fd = syscall(SYS_open, "/tmp/galapagos-leak-open.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd >= 0) {
    char msg[96];
    const int len = snprintf(msg, sizeof msg, "shape %lld %lld %lld\n", static_cast<long long>(sizes[0]),
                             static_cast<long long>(sizes[1]), static_cast<long long>(sizes[2]));
    if (len > 0 && write(static_cast<int>(fd), msg, static_cast<size_t>(len)) < 0) { /* ignore */
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
