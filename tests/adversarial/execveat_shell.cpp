// expect: sandbox_violation
// Attack: exec through the other exec syscall. execveat(AT_FDCWD, "/bin/sh", ...) does exactly
// what execve does; a filter that lists only execve lets it through. It runs
// sh -c "echo pwned" (replacing the worker image) after computing v.
// Why it must be stopped: the filter must kill both execve and execveat: the worker dies with
// SIGSYS: sandbox_violation. (Were execveat allowed, the worker would be replaced by a shell
// and the parent would see a worker that exited without a result: crash -- the wrong status,
// and arbitrary code would have run.)
#include "glp_kernel.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char** environ;

namespace {

void compute(const glp_arg* args, const int64_t* sizes) {
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
}

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  compute(args, sizes);
  const char* argv[] = {"sh", "-c", "echo pwned", nullptr};
  syscall(SYS_execveat, AT_FDCWD, "/bin/sh", argv, environ, 0);
  return 0;  // only reached if the exec failed
}
