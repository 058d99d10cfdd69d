// spmv baseline (HIP on AMD GPUs): the vendor library call a user would make, hipSPARSE's generic
// hipsparseSpMV on a CSR descriptor (float64), y = 1*A*x + 0*y, launched on `stream`. Link with
// -lhipsparse (Debian: libhipsparse-dev, on rocSPARSE). Optional in family.toml: where hipSPARSE
// is not installed, or on NVIDIA GPUs (where the cuda backend's cusparse baseline is the vendor
// library), it does not build and the run reports it unavailable.
//
// rocSPARSE takes the int64 row offsets with int32 column indices as they are, so nothing is
// narrowed or kept between calls except the handle (created on the first call: creating one per
// call costs milliseconds; its stream is set on every call) and the SpMV workspace, a static
// buffer that only grows. The descriptors are created and destroyed per call (host-side only).
// HIPSPARSE_SPMV_CSR_ALG2 is rocSPARSE's CSR stream algorithm, without the atomics of its adaptive
// one: bit-wise the same result run to run (galapagos checks determinism).
// glp-check: amd-only
#ifdef GLP_HIP_ON_CUDA
#error "the hipsparse baseline runs on AMD GPUs only: on NVIDIA, the cuda backend's cusparse baseline is the vendor library"
#endif
#include <hip/hip_runtime.h>
#include <hipsparse/hipsparse.h>

#include <stdint.h>

#include "glp_kernel.h"

namespace {

hipsparseHandle_t g_handle = nullptr;
void* g_buffer = nullptr;
size_t g_buffer_bytes = 0;

struct descriptors {  // destroyed on every return path
  hipsparseSpMatDescr_t A = nullptr;
  hipsparseDnVecDescr_t x = nullptr, y = nullptr;
  ~descriptors() {
    if (A) hipsparseDestroySpMat(A);
    if (x) hipsparseDestroyDnVec(x);
    if (y) hipsparseDestroyDnVec(y);
  }
};

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  if (args[0].dtype != GLP_INT64 || args[1].dtype != GLP_INT32 || args[2].dtype != GLP_FLOAT64 ||
      args[3].dtype != GLP_FLOAT64 || args[4].dtype != GLP_FLOAT64)
    return 2;
  const int64_t nrows = sizes[0], ncols = sizes[1], nnz = sizes[2];
  if (nrows < 0 || ncols < 0 || nnz < 0 || ncols > INT32_MAX) return 3;
  if (args[0].count != nrows + 1 || args[1].count != nnz || args[2].count != nnz || args[3].count != ncols ||
      args[4].count != nrows)
    return 4;
  if (nrows == 0) return 0;
  const hipStream_t s = static_cast<hipStream_t>(stream);
  if (nnz == 0)  // no entries: y = 0
    return hipMemsetAsync(args[4].data, 0, static_cast<size_t>(nrows) * sizeof(double), s) == hipSuccess ? 0 : 6;

  if (g_handle == nullptr && hipsparseCreate(&g_handle) != HIPSPARSE_STATUS_SUCCESS) {
    g_handle = nullptr;
    return 7;
  }
  if (hipsparseSetStream(g_handle, s) != HIPSPARSE_STATUS_SUCCESS) return 7;
  descriptors d;
  if (hipsparseCreateCsr(&d.A, nrows, ncols, nnz, args[0].data, args[1].data, args[2].data, HIPSPARSE_INDEX_64I,
                         HIPSPARSE_INDEX_32I, HIPSPARSE_INDEX_BASE_ZERO, HIP_R_64F) != HIPSPARSE_STATUS_SUCCESS ||
      hipsparseCreateDnVec(&d.x, ncols, args[3].data, HIP_R_64F) != HIPSPARSE_STATUS_SUCCESS ||
      hipsparseCreateDnVec(&d.y, nrows, args[4].data, HIP_R_64F) != HIPSPARSE_STATUS_SUCCESS)
    return 8;
  const double alpha = 1.0, beta = 0.0;  // host pointer mode (the default)
  size_t bytes = 0;
  if (hipsparseSpMV_bufferSize(g_handle, HIPSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d.A, d.x, &beta, d.y, HIP_R_64F,
                               HIPSPARSE_SPMV_CSR_ALG2, &bytes) != HIPSPARSE_STATUS_SUCCESS)
    return 8;
  if (bytes > g_buffer_bytes) {
    if (g_buffer != nullptr) (void)hipFree(g_buffer);  // not in use: the worker synchronised after the last call
    g_buffer = nullptr;
    g_buffer_bytes = 0;
    if (hipMalloc(&g_buffer, bytes) != hipSuccess) {
      g_buffer = nullptr;
      return 9;
    }
    g_buffer_bytes = bytes;
  }
  if (hipsparseSpMV(g_handle, HIPSPARSE_OPERATION_NON_TRANSPOSE, &alpha, d.A, d.x, &beta, d.y, HIP_R_64F,
                    HIPSPARSE_SPMV_CSR_ALG2, g_buffer) != HIPSPARSE_STATUS_SUCCESS)
    return 10;
  return hipGetLastError() == hipSuccess ? 0 : 6;
}
