// generator_faults' reference (tests/integration/reference_failures.sh): right, and no checker.
#include <cstdint>

#include "glp_kernel.h"

GLP_EXPORT int glp_reference(const glp_arg* args, int nargs, const int64_t* sizes) {
  if (args == nullptr || sizes == nullptr || nargs != 2) return 1;
  const double* in = static_cast<const double*>(args[0].data);
  double* out = static_cast<double*>(args[1].data);
  for (int64_t i = 0; i < sizes[0]; ++i) out[i] = 2.0 * in[i] + 1.0;
  return 0;
}
