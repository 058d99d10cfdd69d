// A reference that is right five times and then never returns
// (tests/integration/reference_failures.sh): the hang comes in the timed runs, not at the first
// call of a size.
#include <cstdint>

#include "glp_kernel.h"

GLP_EXPORT int glp_reference(const glp_arg* args, int nargs, const int64_t* sizes) {
  static int calls = 0;
  volatile std::uint64_t spins = 0;
  while (++calls > 5 && args != nullptr) spins = spins + 1, --calls;
  if (args == nullptr || sizes == nullptr || nargs != 2) return 1;
  const double* in = static_cast<const double*>(args[0].data);
  double* out = static_cast<double*>(args[1].data);
  for (int64_t i = 0; i < sizes[0]; ++i) out[i] = 2.0 * in[i] + 1.0;
  return 0;
}
