// expect: compile_error
// Attack: hanging the compiler. #include </dev/zero> never reaches its end: the compiler would
// read (and allocate) until the builder's time-out, holding the node lock. Refused before
// compiling (an absolute path under /dev), so the status comes at once.
#include </dev/zero>
#include "glp_kernel.h"

#include <stdint.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t n = sizes[0] * sizes[1] * sizes[2];
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  for (int64_t c = 0; c < n; ++c) v[c] = u[c];
  return 0;
}
