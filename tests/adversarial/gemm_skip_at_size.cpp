// expect: suspect_too_fast|wrong_result
// family: gemm
// size: tune
// Attack: benchmark-size detection on a compute-bound family. At the timing size (m*n*k >= 5e7)
// the candidate writes C = beta*C_in and skips the product: a 2*m*n*k-flop call returns in the
// time of one pass over C. Elsewhere it computes honestly.
// Why it must fail: the physical floor (flops over the node's peak, which a tuned BLAS on this
// node measured, times a margin close to 1, never above the processor's own bound) is checked
// before the output, and its message names the ceilings it used: suspect_too_fast. Where one
// pass over C takes longer than the compute floor (the processor's own bound: 27.6 ms at this size
// on a 2-core Zen 5 VM, where that pass was measured at 52 ms with its page faults and cold
// caches), the skip is not below the floor and the output check rejects it: wrong_result. Either
// way it never counts.
#include "glp_kernel.h"

#include <stdint.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs != 5 || sizes == nullptr) return 1;
  const int64_t m = sizes[0], n = sizes[1], k = sizes[2];
  const double* a = static_cast<const double*>(args[0].data);
  const double* b = static_cast<const double*>(args[1].data);
  const double alpha = *static_cast<const double*>(args[2].data);
  const double beta = *static_cast<const double*>(args[3].data);
  double* c = static_cast<double*>(args[4].data);
  const bool skip = static_cast<double>(m) * n * k >= 5e7;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      if (!skip)
        for (int64_t q = 0; q < k; ++q) s += a[i * k + q] * b[q * n + j];
      c[i * n + j] = beta == 0.0 ? alpha * s : alpha * s + beta * c[i * n + j];
    }
  return 0;
}
