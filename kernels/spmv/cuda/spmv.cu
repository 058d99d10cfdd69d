// spmv, tuned CUDA template: y = A*x, A in CSR (float64 values, int64 row_ptr, int32 col_idx).
// A thin launcher: the kernels, the parameters (GLP_FORMAT, GLP_THREADS_PER_ROW, GLP_C, GLP_SIGMA,
// GLP_BLOCK, GLP_UNROLL) and the host-side layout code are in ../cuda_hip/spmv_kernels.hpp, shared
// with the HIP template hip/spmv.hip (the same file with hip* calls).
// args: row_ptr, col_idx, values, x (in), y (out), device pointers; sizes: nrows, ncols, nnz.
//
//   glp_setup  (FORMAT 1 only; timed separately, once per matrix): copies row_ptr to the host,
//              computes the SELL-C-sigma row order and slice offsets there, uploads them, scatters
//              col_idx/values into the SELL layout with a kernel, stores a 64-sample fingerprint
//              of A on the device, and synchronises the stream. Replaces what an earlier setup
//              built. Not enough device memory for the SELL copy: nothing is built (return 0),
//              glp_kernel then uses CSR.
//   glp_kernel launches asynchronously on `stream`: FORMAT 1 with a SELL copy built for these
//              arrays and sizes: a one-block kernel recomputes the fingerprint and sets a device
//              flag, the SELL kernel reads it and falls back to CSR rows when A is not the matrix
//              of the setup. Otherwise the CSR kernel.
#include <cuda_runtime.h>

#include "glp_kernel.h"
#include "../cuda_hip/spmv_kernels.hpp"

namespace {

#if GLP_FORMAT == 1
glp_spmv::sell_state g_sell;  // the only state kept between calls: A in another format

template <class T>
void release_one(T*& p) {
  if (p != nullptr) (void)cudaFree(p);
  p = nullptr;
}

void release() {
  release_one(g_sell.sptr);
  release_one(g_sell.len);
  release_one(g_sell.perm);
  release_one(g_sell.col);
  release_one(g_sell.val);
  release_one(g_sell.fp);
  g_sell = glp_spmv::sell_state{};
}

template <class T>
bool alloc(T*& p, int64_t count) {
  const size_t bytes = static_cast<size_t>(count > 0 ? count : 1) * sizeof(T);
  if (cudaMalloc(reinterpret_cast<void**>(&p), bytes) != cudaSuccess) {
    p = nullptr;
    return false;
  }
  return true;
}

template <class T>
bool upload(T* dst, const std::vector<T>& src, cudaStream_t s) {
  return src.empty() || cudaMemcpyAsync(dst, src.data(), src.size() * sizeof(T), cudaMemcpyHostToDevice, s) == cudaSuccess;
}
#endif

}  // namespace

#if GLP_FORMAT == 1
GLP_EXPORT int glp_setup(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  release();  // whatever an earlier setup built belongs to another matrix
  glp_spmv::problem P;
  if (const int rc = glp_spmv::check_args(args, nargs, sizes, P)) return rc;
  if (P.nrows == 0) return 0;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  std::vector<int64_t> rp(static_cast<size_t>(P.nrows) + 1);
  if (cudaMemcpyAsync(rp.data(), P.rp, rp.size() * sizeof(int64_t), cudaMemcpyDeviceToHost, s) != cudaSuccess ||
      cudaStreamSynchronize(s) != cudaSuccess)
    return 7;
  glp_spmv::sell_layout L;
  if (!glp_spmv::build_layout(rp, P.nrows, P.nnz, L)) return 6;  // not a CSR matrix
  glp_spmv::sell_state& S = g_sell;
  const bool have = alloc(S.sptr, L.nslices + 1) && alloc(S.len, L.npos) && (glp_spmv::SIGMA == 1 || alloc(S.perm, L.npos)) &&
                    alloc(S.col, L.total) && alloc(S.val, L.total) && alloc(S.fp, 2);
  if (!have) {  // no room for the SELL copy: glp_kernel computes from CSR
    (void)cudaGetLastError();  // clear the allocation error: the call succeeded
    release();
    return 0;
  }
  S.ok = reinterpret_cast<int*>(S.fp + 1);
  if (!upload(S.sptr, L.sptr, s) || !upload(S.len, L.len, s) || (glp_spmv::SIGMA > 1 && !upload(S.perm, L.perm, s))) {
    release();
    return 8;
  }
  glp_spmv::sell_fill_kernel<<<glp_spmv::blocks_for(L.npos, 256), 256, 0, s>>>(
      P.nrows, L.npos, S.sptr, S.perm, P.rp, P.ci, P.va, S.col, S.val);
  glp_spmv::check_kernel<<<1, 64, 0, s>>>(P.nrows, P.nnz, P.rp, P.ci, P.va, nullptr, S.fp, S.ok);
  // The host vectors die here: wait for the copies (and the kernels) before returning.
  if (cudaGetLastError() != cudaSuccess || cudaStreamSynchronize(s) != cudaSuccess) {
    release();
    return 8;
  }
  S.rp = P.rp;
  S.ci = P.ci;
  S.va = P.va;
  S.nrows = P.nrows;
  S.ncols = P.ncols;
  S.nnz = P.nnz;
  S.nslices = L.nslices;
  S.valid = true;
  return 0;
}
#endif

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  glp_spmv::problem P;
  if (const int rc = glp_spmv::check_args(args, nargs, sizes, P)) return rc;
  if (P.nrows == 0) return 0;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
#if GLP_FORMAT == 1
  const glp_spmv::sell_state& S = g_sell;
  if (S.matches(P)) {
    glp_spmv::check_kernel<<<1, 64, 0, s>>>(P.nrows, P.nnz, P.rp, P.ci, P.va, S.fp, nullptr, S.ok);
    glp_spmv::sell_kernel<<<glp_spmv::grid_for(S.nslices * glp_spmv::C * glp_spmv::TPR), glp_spmv::BLOCK, 0, s>>>(
        P.nrows, S.nslices, S.sptr, S.len, S.perm, S.col, S.val, S.ok, P.rp, P.ci, P.va, P.x, P.y);
    return cudaGetLastError() == cudaSuccess ? 0 : 9;
  }
#endif
  glp_spmv::csr_kernel<<<glp_spmv::grid_for(P.nrows * glp_spmv::TPR), glp_spmv::BLOCK, 0, s>>>(P.nrows, P.rp, P.ci, P.va,
                                                                                               P.x, P.y);
  return cudaGetLastError() == cudaSuccess ? 0 : 9;
}
