// expect: sandbox_violation
// Attack (harmless probe): changes the file system without opening anything for writing.
// mkdir, symlink, rename, unlink, link, truncate, chmod and friends never call open, so a rule
// that only polices open flags lets a candidate delete or rename results, swap a competitor's
// or a baseline's .so for a symlink to its own, or truncate the results store. This probe only
// creates /tmp/galapagos-pwned-dir-<pid> and a symlink /tmp/galapagos-pwned-link-<pid> ->
// /etc/hostname, then computes v correctly (status ok if these calls are allowed).
// Why it must be stopped: a kernel has no business mutating the file system. The filter must
// kill mkdir(at), symlink(at), link(at), rename(at/at2), unlink(at), rmdir, truncate,
// chmod/fchmodat, chown family, mknod(at), utimensat...: SIGSYS, sandbox_violation.
// (A read-only bind mount or Landlock ruleset around the worker is an alternative defence.)
#include "glp_kernel.h"

#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  char dir[128], link[128];
  snprintf(dir, sizeof dir, "/tmp/galapagos-pwned-dir-%d", static_cast<int>(getpid()));
  snprintf(link, sizeof link, "/tmp/galapagos-pwned-link-%d", static_cast<int>(getpid()));
  if (mkdir(dir, 0700) != 0) { /* ignore */
  }
  if (symlink("/etc/hostname", link) != 0) { /* ignore */
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
