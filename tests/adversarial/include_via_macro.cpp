// expect: compile_error
// Attack: an include the text does not spell out. The header name comes from a macro, so a scan
// for quoted or angled names finds nothing to check. A computed include is refused before
// compiling; were it compiled, the dependency list would name /etc/passwd and the build would be
// refused, and the log keeps only diagnostics located in the candidate's own file.
#define GLP_SECRET </etc/passwd>
#include GLP_SECRET
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
