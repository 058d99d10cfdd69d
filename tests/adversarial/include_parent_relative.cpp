// expect: compile_error
// Attack: leaving the family's folders with a relative path. "../../../etc/passwd" climbs out
// of the folder the source lies in. A quoted include with ".." must land inside the family's
// folders, the ABI folder or the include folders; this one does not: refused.
#include "../../../../../../../../etc/passwd"
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
