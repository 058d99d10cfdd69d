// gemm / gemm_f32 baseline, GPU kernel shared by cuda/baseline_plain.cu and hip/baseline_plain.hip:
// the plain kernel a user would write. One thread per element of C (32x8 blocks, x along the
// columns so B and C are read and written coalesced), the dot product over k straight from global
// memory, accumulation in GLP_REAL. No shared memory, no register tiling.
#ifndef GLP_GEMM_BASELINE_PLAIN_HPP
#define GLP_GEMM_BASELINE_PLAIN_HPP

#include <stdint.h>

#include <type_traits>

#include "glp_kernel.h"

#ifndef GLP_REAL
#define GLP_REAL double
#endif

namespace glp_gemm_plain {

using real = GLP_REAL;
constexpr int32_t kDtype = std::is_same<real, double>::value ? GLP_FLOAT64 : GLP_FLOAT32;
constexpr int BX = 32, BY = 8;

__global__ void __launch_bounds__(BX * BY) gemm(const real* __restrict__ A, const real* __restrict__ B,
                                                const real* __restrict__ alpha_p, const real* __restrict__ beta_p,
                                                real* __restrict__ C, int64_t m, int64_t n, int64_t k) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * BX + threadIdx.x;
  const real alpha = *alpha_p, beta = *beta_p;
  for (int64_t i = static_cast<int64_t>(blockIdx.y) * BY + threadIdx.y; i < m; i += static_cast<int64_t>(gridDim.y) * BY) {
    if (j >= n) return;
    real sum = 0;
    for (int64_t p = 0; p < k; ++p) sum += A[i * k + p] * B[p * n + j];
    real& c = C[i * n + j];
    c = beta == real(0) ? alpha * sum : alpha * sum + beta * c;
  }
}

// 0 (launch with grid/block unless empty) or the ABI error code.
inline int make_launch(const glp_arg* args, int nargs, const int64_t* sizes, bool& empty, dim3& grid, dim3& block) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  for (int i = 0; i < 5; ++i)
    if (args[i].dtype != kDtype) return 2;
  const int64_t m = sizes[0], n = sizes[1], k = sizes[2];
  if (m < 0 || n < 0 || k < 0) return 3;
  if (args[0].count != m * k || args[1].count != k * n || args[2].count != 1 || args[3].count != 1 || args[4].count != m * n)
    return 4;
  empty = m == 0 || n == 0;
  if (empty) return 0;
  for (int i = 0; i < 5; ++i)
    if (args[i].data == nullptr && args[i].count > 0) return 5;
  const int64_t gx = (n + BX - 1) / BX, gy = (m + BY - 1) / BY;
  if (gx > 2147483647) return 3;
  grid = dim3(static_cast<unsigned>(gx), static_cast<unsigned>(gy < 65535 ? gy : 65535), 1);
  block = dim3(BX, BY, 1);
  return 0;
}

}  // namespace glp_gemm_plain

#endif  // GLP_GEMM_BASELINE_PLAIN_HPP
