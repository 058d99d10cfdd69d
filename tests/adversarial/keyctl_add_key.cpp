// expect: sandbox_violation
// Attack (harmless probe): the kernel key store. add_key(..., KEY_SPEC_USER_KEYRING) keeps a
// payload in the user's keyring, shared by every process of the user and alive after the
// worker: a cache of results between candidates, and a place to read the user's own keys
// from (keyctl READ). This probe adds a key to the process keyring (gone with the process,
// harmless if allowed), then computes v correctly: status ok if the call is allowed.
// Why it must be stopped: add_key, keyctl and request_key are not on the allow-list: SIGSYS,
// sandbox_violation.
#include "glp_kernel.h"

#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  constexpr int key_spec_process_keyring = -2;
  syscall(SYS_add_key, "user", "galapagos-probe", "x", 1, key_spec_process_keyring);
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
