// A reference that crashes (tests/integration/reference_failures.sh): a write through a null
// pointer, SIGSEGV in the process that calls it.
#include <cstdint>

#include "glp_kernel.h"

GLP_EXPORT int glp_reference(const glp_arg* args, int nargs, const int64_t* sizes) {
  volatile double* nowhere = nullptr;
  *nowhere = nargs > 0 && sizes != nullptr && args != nullptr ? 1.0 : 2.0;
  return 0;
}
