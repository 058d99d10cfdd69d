// expect: compile_error
// Attack: hanging the compiler on its own input or output. /dev/stdin (and /proc/self/fd/1,
// the pipe the orchestrator reads the compiler's output from) would block the compiler until the
// time-out. Refused before compiling; the compiler's stdin is /dev/null and its output a file
// besides, so neither could block.
#include "/dev/stdin"
#include "/proc/self/fd/1"
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
