// gemm / gemm_f32 baseline: the vendor library call a user would make, cblas_dgemm or cblas_sgemm
// (GLP_REAL picks which), row-major, no transposes. Which BLAS answers is the baseline's flags'
// choice in family.toml: OpenBLAS (Debian's default libopenblas0-pthread, its own pthread pool
// sized from OMP_NUM_THREADS, started when the library is loaded) or BLIS (libblis-openmp, on
// the worker's OpenMP threads), each measured in the same run. beta == 0: C is not read
// (BLAS convention, the same as the family's definition).
#include <cblas.h>

#include <climits>
#include <cstdint>
#include <type_traits>

#include "glp_kernel.h"

#ifndef GLP_REAL
#define GLP_REAL double
#endif

namespace {
using real = GLP_REAL;
constexpr int32_t kDtype = std::is_same<real, double>::value ? GLP_FLOAT64 : GLP_FLOAT32;

inline void gemm(int m, int n, int k, double alpha, const double* A, const double* B, double beta, double* C) {
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, A, k, B, n, beta, C, n);
}
inline void gemm(int m, int n, int k, float alpha, const float* A, const float* B, float beta, float* C) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, A, k, B, n, beta, C, n);
}
}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  for (int i = 0; i < 5; ++i)
    if (args[i].dtype != kDtype) return 2;
  const int64_t m = sizes[0], n = sizes[1], k = sizes[2];
  if (m < 1 || n < 1 || k < 1 || m > INT_MAX || n > INT_MAX || k > INT_MAX) return 3;
  if (args[0].count != m * k || args[1].count != k * n || args[2].count != 1 || args[3].count != 1 ||
      args[4].count != m * n)
    return 4;
  gemm(static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), *static_cast<const real*>(args[2].data),
       static_cast<const real*>(args[0].data), static_cast<const real*>(args[1].data),
       *static_cast<const real*>(args[3].data), static_cast<real*>(args[4].data));
  return 0;
}
