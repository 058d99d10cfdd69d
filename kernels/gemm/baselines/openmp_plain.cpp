// gemm / gemm_f32 baseline: the plain OpenMP loop a user would write. Rows of C in parallel, the
// i-k-j order so the innermost loop runs along rows of B and C (unit stride, vectorised by -O3
// -march=native), accumulation in GLP_REAL. No blocking, no packing, no intrinsics.
#include <cstdint>
#include <type_traits>

#include "glp_kernel.h"

#ifndef GLP_REAL
#define GLP_REAL double
#endif

namespace {
using real = GLP_REAL;
constexpr int32_t kDtype = std::is_same<real, double>::value ? GLP_FLOAT64 : GLP_FLOAT32;
}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  for (int i = 0; i < 5; ++i)
    if (args[i].dtype != kDtype) return 2;
  const int64_t m = sizes[0], n = sizes[1], k = sizes[2];
  if (m < 0 || n < 0 || k < 0) return 3;
  if (args[0].count != m * k || args[1].count != k * n || args[2].count != 1 || args[3].count != 1 ||
      args[4].count != m * n)
    return 4;
  const real* A = static_cast<const real*>(args[0].data);
  const real* B = static_cast<const real*>(args[1].data);
  const real alpha = *static_cast<const real*>(args[2].data);
  const real beta = *static_cast<const real*>(args[3].data);
  real* C = static_cast<real*>(args[4].data);

#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; ++i) {
    real* c = C + i * n;
    for (int64_t j = 0; j < n; ++j) c[j] = beta == real(0) ? real(0) : beta * c[j];
    for (int64_t p = 0; p < k; ++p) {
      const real a = alpha * A[i * k + p];
      const real* b = B + p * n;
      for (int64_t j = 0; j < n; ++j) c[j] += a * b[j];
    }
  }
  return 0;
}
