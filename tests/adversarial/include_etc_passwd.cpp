// expect: compile_error
// Attack: reading a file through the compiler. #include "/etc/passwd" makes the compiler quote
// the file's lines in its errors, which are stored with the results and sent back to a language
// model in repair turns. The builder scans the text before compiling and refuses an absolute
// include; neither the reason nor the log may hold a line of the file (expect_status.sh checks).
#include "/etc/passwd"
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
