// A reference that never returns (tests/integration/reference_failures.sh).
#include <cstdint>

#include "glp_kernel.h"

GLP_EXPORT int glp_reference(const glp_arg* args, int nargs, const int64_t* sizes) {
  volatile std::uint64_t spins = 0;
  while (args != nullptr || nargs >= 0 || sizes != nullptr) spins = spins + 1;
  return 0;
}
