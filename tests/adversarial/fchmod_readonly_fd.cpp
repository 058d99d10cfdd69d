// expect: sandbox_violation
// Attack (harmless probe): change file metadata through a descriptor. fchmod() needs no write
// access to the file, only ownership: a worker running as the same user as the orchestrator
// (root, on CI) can open any file it owns read-only -- which the open rule allows -- and
// fchmod it to 000, locking the orchestrator out of its results store, its cache of built
// candidates or system files. This probe re-applies the *current* mode of its own stdout (the
// worker log) with fchmod, a no-op, then computes v correctly (status ok if allowed).
// Why it must be stopped: the filter must kill fchmod (and fchown, fsetxattr/setxattr family,
// utimensat, futimesat, fchmodat2, mknod/mknodat) just like chmod/fchmodat: SIGSYS,
// sandbox_violation. Running workers as an unprivileged user removes most of the damage.
#include "glp_kernel.h"

#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  struct stat st;
  if (fstat(STDOUT_FILENO, &st) == 0 && fchmod(STDOUT_FILENO, st.st_mode & 07777) != 0) { /* ignore */
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
