// expect: forbidden_symbol
// Attack surface: exports a second default-visibility extern "C" function,
// glp_kernel_helper, next to glp_kernel (it is a perfectly ordinary helper that glp_kernel
// calls). Harmless-looking, but an exported name is how a candidate would interpose on
// anything the harness resolves by name, and the allowlist cannot tell a "helper" from a hook.
// v is computed correctly.
// Why it must be stopped: the exported-symbol check is an allowlist: glp_kernel plus
// compiler-added symbols only. Anything else is forbidden_symbol, regardless of its name.
#include "glp_kernel.h"

#include <stdint.h>

extern "C" __attribute__((visibility("default"))) void glp_kernel_helper(const double* u, double* v, int64_t nx, int64_t ny,
                                                                         int64_t nz, int64_t k) {
  const int64_t sy = nx, sz = nx * ny;
  for (int64_t j = 0; j < ny; ++j)
    for (int64_t i = 0; i < nx; ++i) {
      const int64_t c = (k * ny + j) * nx + i;
      v[c] = (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1)
                 ? u[c]
                 : (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
    }
}

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  for (int64_t k = 0; k < sizes[2]; ++k) glp_kernel_helper(u, v, sizes[0], sizes[1], sizes[2], k);
  return 0;
}
