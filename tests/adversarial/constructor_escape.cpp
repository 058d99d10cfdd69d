// expect: sandbox_violation
// Attack: code that runs at load time. A __attribute__((constructor)) function (a C++ static
// initialiser would do the same) runs inside dlopen(), before glp_kernel is ever called. It
// writes the environment to /tmp/galapagos-ctor-leak.txt with fopen(..., "w"). The kernel
// itself is honest and correct.
// Why it must be stopped: if the worker dlopen()s the candidate before it installs seccomp and
// the rlimits, the constructor runs unsandboxed and nothing later can notice (the symbol check
// is static and cannot tell a malicious constructor from a compiler-generated one). The worker
// must apply the whole sandbox first and load the .so afterwards; then the constructor's open
// for writing kills the worker with SIGSYS during loading: sandbox_violation (not load_error,
// and certainly not ok).
#include "glp_kernel.h"

#include <stdint.h>
#include <stdio.h>

extern char** environ;

__attribute__((constructor)) static void glp_at_load() {
  FILE* f = fopen("/tmp/galapagos-ctor-leak.txt", "w");
  if (f == nullptr) return;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) fprintf(f, "%s\n", *e);
  fclose(f);
}

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
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
