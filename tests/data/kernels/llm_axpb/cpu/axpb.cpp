// llm_axpb template: out[i] = 2*in[i] + 1, computed the slow way on purpose (16 divisions per
// element) so that the tests' scripted rewrite is known to win.
#include <cstdint>

#include "glp_kernel.h"

#ifndef GLP_UNROLL
#define GLP_UNROLL 1
#endif
#ifndef GLP_SCHEDULE
#define GLP_SCHEDULE 0
#endif
#ifndef GLP_CHUNK
#define GLP_CHUNK 4
#endif

#define GLP_PRAGMA(x) _Pragma(#x)
#define GLP_UNROLLED(n) GLP_PRAGMA(GCC unroll n)

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  if (args == nullptr || sizes == nullptr || nargs != 2) return 1;
  const int64_t n = sizes[0];
  if (args[0].count != n || args[1].count != n) return 2;
  const double* in = static_cast<const double*>(args[0].data);
  double* out = static_cast<double*>(args[1].data);
  // galapagos:evolve-begin
#if GLP_SCHEDULE == 1
#pragma omp parallel for schedule(dynamic, 1024 * GLP_CHUNK)
#else
#pragma omp parallel for schedule(static)
#endif
  for (int64_t i = 0; i < n; ++i) {
    double x = in[i];
    GLP_UNROLLED(GLP_UNROLL)
    for (int k = 0; k < 16; ++k) x = x * 3.0 / 3.0;
    out[i] = 2.0 * x + 1.0;
  }
  // galapagos:evolve-end
  return 0;
}
