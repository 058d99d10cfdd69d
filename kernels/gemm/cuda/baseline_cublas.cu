// gemm / gemm_f32 baseline (CUDA): the vendor library call a user would make, cuBLAS's
// cublasDgemm or cublasSgemm (GLP_REAL picks which), launched on `stream`. Link with -lcublas.
//
// Row-major through the transposition trick: a row-major m x n C is the column-major n x m C^T,
// and C^T = B^T * A^T, so the column-major call is gemm(N, N, n, m, k, B, ldb = n, A, lda = k,
// C, ldc = n) on the very same arrays. alpha and beta stay in device memory
// (CUBLAS_POINTER_MODE_DEVICE). CUBLAS_DEFAULT_MATH: no TF32 for float (and cuBLAS honours
// beta == 0 by not reading C).
//
// The handle is created on the first call and kept for the life of the process (creating one per
// call costs milliseconds); stream, pointer mode and math mode are set on every call. Nothing
// computed is kept between calls.
//
// Extra parameter points that tools/check-gpu-templates.sh compiles (besides the defaults):
// glp-check-point: -DGLP_REAL=float
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <stdint.h>

#include <climits>
#include <type_traits>

#include "glp_kernel.h"

#ifndef GLP_REAL
#define GLP_REAL double
#endif

namespace {

using real = GLP_REAL;
constexpr int32_t kDtype = std::is_same<real, double>::value ? GLP_FLOAT64 : GLP_FLOAT32;

cublasHandle_t g_handle = nullptr;

template <class T>
cublasStatus_t gemm(cublasHandle_t h, int m, int n, int k, const T* alpha, const T* A, int lda, const T* B, int ldb,
                    const T* beta, T* C, int ldc) {
  if constexpr (std::is_same<T, double>::value)
    return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  else
    return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  for (int i = 0; i < 5; ++i)
    if (args[i].dtype != kDtype) return 2;
  const int64_t m = sizes[0], n = sizes[1], k = sizes[2];
  if (m < 0 || n < 0 || k < 0 || m > INT_MAX || n > INT_MAX || k > INT_MAX) return 3;
  if (args[0].count != m * k || args[1].count != k * n || args[2].count != 1 || args[3].count != 1 || args[4].count != m * n)
    return 4;
  if (m == 0 || n == 0) return 0;
  for (int i = 0; i < 5; ++i)
    if (args[i].data == nullptr && args[i].count > 0) return 5;
  if (g_handle == nullptr && cublasCreate(&g_handle) != CUBLAS_STATUS_SUCCESS) {
    g_handle = nullptr;
    return 7;
  }
  if (cublasSetStream(g_handle, static_cast<cudaStream_t>(stream)) != CUBLAS_STATUS_SUCCESS ||
      cublasSetPointerMode(g_handle, CUBLAS_POINTER_MODE_DEVICE) != CUBLAS_STATUS_SUCCESS ||
      cublasSetMathMode(g_handle, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS)
    return 7;
  const int M = static_cast<int>(m), N = static_cast<int>(n), K = static_cast<int>(k);
  const cublasStatus_t st =
      gemm(g_handle, N, M, K, static_cast<const real*>(args[2].data), static_cast<const real*>(args[1].data), N > 1 ? N : 1,
           static_cast<const real*>(args[0].data), K > 1 ? K : 1, static_cast<const real*>(args[3].data),
           static_cast<real*>(args[4].data), N > 1 ? N : 1);
  if (st != CUBLAS_STATUS_SUCCESS) return 8;
  return cudaGetLastError() == cudaSuccess ? 0 : 6;
}
