// A template that does not compile at any point (tests/integration/fail_fast.sh).
#include <cstdint>

#include "glp_kernel.h"

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  return undeclared_name(args, nargs, sizes);
}
