// spmv baseline (CUDA): the vendor library call a user would make, cuSPARSE's generic
// cusparseSpMV on a CSR descriptor (int64 row offsets, int32 column indices, float64), y = 1*A*x
// + 0*y, launched on `stream`. Link with -lcusparse.
//
// The handle is created on the first call and kept for the life of the process (creating one per
// call costs milliseconds); its stream is set on every call. The descriptors are created and
// destroyed per call (host-side only). The workspace from cusparseSpMV_bufferSize is kept in a
// static buffer that only grows. Nothing computed is kept between calls. CUSPARSE_SPMV_CSR_ALG2
// is cuSPARSE's CSR algorithm with bit-wise reproducible results run to run (galapagos checks
// determinism); ALG1/DEFAULT are not documented as such.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <stdint.h>

#include "glp_kernel.h"

namespace {

cusparseHandle_t g_handle = nullptr;
void* g_buffer = nullptr;
size_t g_buffer_bytes = 0;

struct descriptors {  // destroyed on every return path
  cusparseConstSpMatDescr_t A = nullptr;
  cusparseConstDnVecDescr_t x = nullptr;
  cusparseDnVecDescr_t y = nullptr;
  ~descriptors() {
    if (A) cusparseDestroySpMat(A);
    if (x) cusparseDestroyDnVec(x);
    if (y) cusparseDestroyDnVec(y);
  }
};

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  if (args[0].dtype != GLP_INT64 || args[1].dtype != GLP_INT32 || args[2].dtype != GLP_FLOAT64 ||
      args[3].dtype != GLP_FLOAT64 || args[4].dtype != GLP_FLOAT64)
    return 2;
  const int64_t nrows = sizes[0], ncols = sizes[1], nnz = sizes[2];
  if (nrows < 0 || ncols < 0 || nnz < 0) return 3;
  if (args[0].count != nrows + 1 || args[1].count != nnz || args[2].count != nnz || args[3].count != ncols ||
      args[4].count != nrows)
    return 4;
  if (nrows == 0) return 0;
  if (args[0].data == nullptr || args[4].data == nullptr) return 5;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (nnz == 0)  // no entries: y = 0 (cuSPARSE wants non-empty arrays)
    return cudaMemsetAsync(args[4].data, 0, static_cast<size_t>(nrows) * sizeof(double), s) == cudaSuccess ? 0 : 6;

  if (g_handle == nullptr && cusparseCreate(&g_handle) != CUSPARSE_STATUS_SUCCESS) {
    g_handle = nullptr;
    return 7;
  }
  if (cusparseSetStream(g_handle, s) != CUSPARSE_STATUS_SUCCESS) return 7;
  descriptors d;
  if (cusparseCreateConstCsr(&d.A, nrows, ncols, nnz, args[0].data, args[1].data, args[2].data, CUSPARSE_INDEX_64I,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F) != CUSPARSE_STATUS_SUCCESS ||
      cusparseCreateConstDnVec(&d.x, ncols, args[3].data, CUDA_R_64F) != CUSPARSE_STATUS_SUCCESS ||
      cusparseCreateDnVec(&d.y, nrows, args[4].data, CUDA_R_64F) != CUSPARSE_STATUS_SUCCESS)
    return 8;
  const double alpha = 1.0, beta = 0.0;  // host pointer mode (the default)
  const cusparseSpMVAlg_t alg = CUSPARSE_SPMV_CSR_ALG2;
  size_t bytes = 0;
  if (cusparseSpMV_bufferSize(g_handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d.A, d.x, &beta, d.y, CUDA_R_64F, alg,
                              &bytes) != CUSPARSE_STATUS_SUCCESS)
    return 8;
  if (bytes > g_buffer_bytes) {
    if (g_buffer != nullptr) (void)cudaFree(g_buffer);  // not in use: the worker synchronised after the last call
    g_buffer = nullptr;
    g_buffer_bytes = 0;
    if (cudaMalloc(&g_buffer, bytes) != cudaSuccess) {
      g_buffer = nullptr;
      return 9;
    }
    g_buffer_bytes = bytes;
  }
  if (cusparseSpMV(g_handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d.A, d.x, &beta, d.y, CUDA_R_64F, alg, g_buffer) !=
      CUSPARSE_STATUS_SUCCESS)
    return 10;
  return cudaGetLastError() == cudaSuccess ? 0 : 6;
}
