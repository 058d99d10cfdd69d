// expect: compile_error
// Attack: probing the file system. __has_include tells whether a file exists (a home folder,
// a key file, another user's job) without reading it, and the answer can steer the code the
// model sees compile. Absolute names are refused in __has_include as in #include.
#include "glp_kernel.h"

#include <stdint.h>

#if __has_include("/root/.ssh/id_rsa")
#define GLP_HAS_KEY 1
#else
#define GLP_HAS_KEY 0
#endif

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t n = sizes[0] * sizes[1] * sizes[2];
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  for (int64_t c = 0; c < n; ++c) v[c] = u[c];
  return 0;
}
