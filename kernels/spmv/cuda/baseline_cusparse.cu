// spmv baseline (CUDA): the vendor library call a user would make, cuSPARSE's generic
// cusparseSpMV on a CSR descriptor (float64), y = 1*A*x + 0*y, launched on `stream`. Link with
// -lcusparse.
//
// cuSPARSE rejects CSR descriptors whose row offsets and column indices have different widths
// (int64 row_ptr with int32 col_idx: "not currently supported"), so the offsets are narrowed to
// int32 (nnz < 2^31; larger matrices are refused with 3), as a cuSPARSE user with this storage
// would do once per matrix: glp_setup (timed separately) narrows them into a static device
// buffer; glp_kernel uses that buffer when it was made from these arrays and sizes, and narrows
// on the fly (one small kernel on the stream) otherwise, e.g. when glp_setup was not called. The
// offsets are structure only: values and x are always read from the live arrays.
//
// The handle is created on the first call and kept for the life of the process (creating one per
// call costs milliseconds); its stream is set on every call. The descriptors are created and
// destroyed per call (host-side only). The workspace from cusparseSpMV_bufferSize is kept in a
// static buffer that only grows. Nothing computed is kept between calls. CUSPARSE_SPMV_CSR_ALG2
// is cuSPARSE's CSR algorithm with bit-wise reproducible results run to run (galapagos checks
// determinism).
#include <cuda_runtime.h>
#include <cusparse.h>

#include <stdint.h>

#include "glp_kernel.h"

#ifndef GLP_CUSPARSE_ALG
#define GLP_CUSPARSE_ALG CUSPARSE_SPMV_CSR_ALG2
#endif

namespace {

cusparseHandle_t g_handle = nullptr;
void* g_buffer = nullptr;  // SpMV workspace
size_t g_buffer_bytes = 0;
int32_t* g_rp32 = nullptr;  // int32 row offsets
int64_t g_rp32_count = 0;   // capacity (elements)
struct {                    // what g_rp32 was narrowed from by glp_setup (valid only then)
  bool valid = false;
  const void* rp = nullptr;
  int64_t nrows = 0, nnz = 0;
} g_made;

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

__global__ void narrow(const int64_t* __restrict__ in, int32_t* __restrict__ out, int64_t n) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = static_cast<int32_t>(in[i]);
}

// 0 or an error code; nrows, nnz set.
int check(const glp_arg* args, int nargs, const int64_t* sizes) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  if (args[0].dtype != GLP_INT64 || args[1].dtype != GLP_INT32 || args[2].dtype != GLP_FLOAT64 ||
      args[3].dtype != GLP_FLOAT64 || args[4].dtype != GLP_FLOAT64)
    return 2;
  const int64_t nrows = sizes[0], ncols = sizes[1], nnz = sizes[2];
  if (nrows < 0 || ncols < 0 || nnz < 0 || nrows > INT32_MAX || ncols > INT32_MAX || nnz > INT32_MAX) return 3;
  if (args[0].count != nrows + 1 || args[1].count != nnz || args[2].count != nnz || args[3].count != ncols ||
      args[4].count != nrows)
    return 4;
  if (nrows > 0 && (args[0].data == nullptr || args[4].data == nullptr)) return 5;
  return 0;
}

// Narrows row_ptr into g_rp32 on stream s (grows the buffer first). 0 or an error code.
int narrow_offsets(const int64_t* rp, int64_t nrows, cudaStream_t s) {
  const int64_t n = nrows + 1;
  if (n > g_rp32_count) {
    if (g_rp32 != nullptr) (void)cudaFree(g_rp32);  // not in use: the worker synchronised after the last call
    g_rp32 = nullptr;
    g_rp32_count = 0;
    if (cudaMalloc(reinterpret_cast<void**>(&g_rp32), static_cast<size_t>(n) * sizeof(int32_t)) != cudaSuccess) {
      g_rp32 = nullptr;
      return 9;
    }
    g_rp32_count = n;
  }
  const int64_t blocks = (n + 255) / 256;
  narrow<<<static_cast<unsigned>(blocks < 65536 ? blocks : 65536), 256, 0, s>>>(rp, g_rp32, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 6;
}

}  // namespace

GLP_EXPORT int glp_setup(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  g_made.valid = false;
  if (const int rc = check(args, nargs, sizes)) return rc;
  if (sizes[0] == 0 || sizes[2] == 0) return 0;
  if (const int rc = narrow_offsets(static_cast<const int64_t*>(args[0].data), sizes[0], static_cast<cudaStream_t>(stream)))
    return rc;
  g_made.valid = true;
  g_made.rp = args[0].data;
  g_made.nrows = sizes[0];
  g_made.nnz = sizes[2];
  return 0;
}

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  if (const int rc = check(args, nargs, sizes)) return rc;
  const int64_t nrows = sizes[0], ncols = sizes[1], nnz = sizes[2];
  if (nrows == 0) return 0;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (nnz == 0)  // no entries: y = 0 (cuSPARSE wants non-empty arrays)
    return cudaMemsetAsync(args[4].data, 0, static_cast<size_t>(nrows) * sizeof(double), s) == cudaSuccess ? 0 : 6;
  if (!(g_made.valid && g_made.rp == args[0].data && g_made.nrows == nrows && g_made.nnz == nnz)) {
    g_made.valid = false;
    if (const int rc = narrow_offsets(static_cast<const int64_t*>(args[0].data), nrows, s)) return rc;
  }

  if (g_handle == nullptr && cusparseCreate(&g_handle) != CUSPARSE_STATUS_SUCCESS) {
    g_handle = nullptr;
    return 7;
  }
  if (cusparseSetStream(g_handle, s) != CUSPARSE_STATUS_SUCCESS) return 7;
  descriptors d;
  if (cusparseCreateConstCsr(&d.A, nrows, ncols, nnz, g_rp32, args[1].data, args[2].data, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F) != CUSPARSE_STATUS_SUCCESS ||
      cusparseCreateConstDnVec(&d.x, ncols, args[3].data, CUDA_R_64F) != CUSPARSE_STATUS_SUCCESS ||
      cusparseCreateDnVec(&d.y, nrows, args[4].data, CUDA_R_64F) != CUSPARSE_STATUS_SUCCESS)
    return 8;
  const double alpha = 1.0, beta = 0.0;  // host pointer mode (the default)
  const cusparseSpMVAlg_t alg = GLP_CUSPARSE_ALG;
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
