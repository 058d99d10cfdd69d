// llm_axpb baseline: the plain OpenMP loop.
#include <cstdint>

#include "glp_kernel.h"

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  if (args == nullptr || sizes == nullptr || nargs != 2) return 1;
  const int64_t n = sizes[0];
  if (args[0].count != n || args[1].count != n) return 2;
  const double* in = static_cast<const double*>(args[0].data);
  double* out = static_cast<double*>(args[1].data);
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) out[i] = 2.0 * in[i] + 1.0;
  return 0;
}
