// spmv, tuned HIP template: y = A*x, A in CSR (float64 values, int64 row_ptr, int32 col_idx).
// A thin launcher: the kernels, the parameters (GLP_FORMAT, GLP_THREADS_PER_ROW, GLP_C, GLP_SIGMA,
// GLP_BLOCK, GLP_UNROLL) and the host-side layout code are in ../cuda_hip/spmv_kernels.hpp, shared
// with the CUDA template cuda/spmv.cu (the same file with cuda* calls). Builds with hipcc (AMD) or
// with nvcc -x cu -include glp_hip_on_cuda.h (NVIDIA).
// args: row_ptr, col_idx, values, x (in), y (out), device pointers; sizes: nrows, ncols, nnz.
//
//   glp_setup  (FORMAT 1 only; timed separately, once per matrix): copies row_ptr to the host,
//              computes the SELL-C-sigma row order and slice offsets there, uploads them, scatters
//              col_idx/values into the SELL layout with a kernel, takes a 64-sample fingerprint of
//              A on the device, and synchronises the stream. Replaces what an earlier setup built.
//              Not enough device memory for the SELL copy: nothing is built (return 0, the
//              allocation error is cleared), glp_kernel then uses CSR.
//   glp_kernel launches one kernel, asynchronously on `stream`: FORMAT 1 with a SELL copy built for
//              these arrays and sizes: the SELL kernel, whose last block re-takes the fingerprint
//              and recomputes y from CSR if A is not the matrix of the setup; otherwise the CSR
//              kernel.
//
// Extra parameter points that tools/check-gpu-templates.sh compiles (besides the defaults):
// glp-check-point: -DGLP_FORMAT=0 -DGLP_THREADS_PER_ROW=1 -DGLP_BLOCK=64 -DGLP_UNROLL=1
// glp-check-point: -DGLP_FORMAT=0 -DGLP_THREADS_PER_ROW=32 -DGLP_BLOCK=1024 -DGLP_UNROLL=4
// glp-check-point: -DGLP_FORMAT=1 -DGLP_THREADS_PER_ROW=32 -DGLP_C=64 -DGLP_SIGMA=32768 -DGLP_BLOCK=1024 -DGLP_UNROLL=4
// glp-check-point: -DGLP_FORMAT=1 -DGLP_THREADS_PER_ROW=1 -DGLP_C=8 -DGLP_SIGMA=1 -DGLP_BLOCK=64 -DGLP_UNROLL=1
#ifndef GLP_HIP_ON_CUDA
#include <hip/hip_runtime.h>
#endif

#include "glp_kernel.h"
#include "../cuda_hip/spmv_kernels.hpp"
// galapagos:evolve-begin (the LLM proposer may rewrite what follows; docs/llm.md)

namespace {

#if GLP_FORMAT == 1
glp_spmv::sell_state g_sell;  // the only state kept between calls: A in another format

template <class T>
void release_one(T*& p) {
  if (p != nullptr) (void)hipFree(p);
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
  if (hipMalloc(reinterpret_cast<void**>(&p), bytes) != hipSuccess) {
    p = nullptr;
    return false;
  }
  return true;
}

// Most blocks of the SELL kernel that can be resident at once on this device (queried once):
// the SELL kernel's grid is capped there and loops, so its per-block tail (one fenced atomic for
// the stale-copy guard) is paid once per resident block, not once per slice group.
unsigned sell_grid_cap() {
  static unsigned cap = 0;
  if (cap == 0) {
    int dev = 0, sms = 0, per_sm = 0;
    if (hipGetDevice(&dev) != hipSuccess || hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, dev) != hipSuccess ||
        hipOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, glp_spmv::sell_kernel, glp_spmv::BLOCK, 0) != hipSuccess ||
        sms < 1 || per_sm < 1) {
      (void)hipGetLastError();
      return 65535;  // no answer: a fixed cap, asked again next call
    }
    cap = static_cast<unsigned>(sms) * static_cast<unsigned>(per_sm);
  }
  return cap;
}

template <class T>
bool upload(T* dst, const std::vector<T>& src, hipStream_t s) {
  return src.empty() || hipMemcpyAsync(dst, src.data(), src.size() * sizeof(T), hipMemcpyHostToDevice, s) == hipSuccess;
}
#endif

}  // namespace

#if GLP_FORMAT == 1
GLP_EXPORT int glp_setup(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  release();  // whatever an earlier setup built belongs to another matrix
  glp_spmv::problem P;
  if (const int rc = glp_spmv::check_args(args, nargs, sizes, P)) return rc;
  if (P.nrows == 0) return 0;
  const hipStream_t s = static_cast<hipStream_t>(stream);
  std::vector<int64_t> rp(static_cast<size_t>(P.nrows) + 1);
  if (hipMemcpyAsync(rp.data(), P.rp, rp.size() * sizeof(int64_t), hipMemcpyDeviceToHost, s) != hipSuccess ||
      hipStreamSynchronize(s) != hipSuccess)
    return 7;
  glp_spmv::sell_layout L;
  if (!glp_spmv::build_layout(rp, P.nrows, P.nnz, L)) return 6;  // not a CSR matrix
  glp_spmv::sell_state& S = g_sell;
  const bool have = alloc(S.sptr, L.nslices + 1) && alloc(S.len, L.npos) && (glp_spmv::SIGMA == 1 || alloc(S.perm, L.npos)) &&
                    alloc(S.col, L.total) && alloc(S.val, L.total) && alloc(S.fp, 2);
  if (!have) {  // no room for the SELL copy: glp_kernel computes from CSR
    (void)hipGetLastError();  // clear the allocation error: the call succeeded
    release();
    return 0;
  }
  S.done = reinterpret_cast<unsigned int*>(S.fp + 1);
  if (!upload(S.sptr, L.sptr, s) || !upload(S.len, L.len, s) || (glp_spmv::SIGMA > 1 && !upload(S.perm, L.perm, s))) {
    release();
    return 8;
  }
  hipLaunchKernelGGL(glp_spmv::sell_fill_kernel, dim3(glp_spmv::blocks_for(L.npos, 256)), dim3(256), 0, s, P.nrows, L.npos,
                     S.sptr, S.perm, P.rp, P.ci, P.va, S.col, S.val);
  hipLaunchKernelGGL(glp_spmv::fingerprint_kernel, dim3(1), dim3(64), 0, s, P.nrows, P.nnz, P.rp, P.ci, P.va, S.fp);
  if (hipMemsetAsync(S.fp + 1, 0, sizeof(unsigned long long), s) != hipSuccess) {
    release();
    return 8;
  }
  // The host vectors die here: wait for the copies (and the kernels) before returning.
  if (hipGetLastError() != hipSuccess || hipStreamSynchronize(s) != hipSuccess) {
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
  (void)sell_grid_cap();  // query the device here, outside the timed kernel calls
  return 0;
}
#endif

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  glp_spmv::problem P;
  if (const int rc = glp_spmv::check_args(args, nargs, sizes, P)) return rc;
  if (P.nrows == 0) return 0;
  const hipStream_t s = static_cast<hipStream_t>(stream);
#if GLP_FORMAT == 1
  const glp_spmv::sell_state& S = g_sell;
  if (S.matches(P)) {
    const unsigned grid = std::min(glp_spmv::grid_for(S.nslices * glp_spmv::C * glp_spmv::TPR), sell_grid_cap());
    hipLaunchKernelGGL(glp_spmv::sell_kernel, dim3(grid), dim3(glp_spmv::BLOCK), 0, s, P.nrows, P.nnz, S.nslices, S.sptr, S.len, S.perm, S.col, S.val, S.fp, S.done,
                       P.rp, P.ci, P.va, P.x, P.y);
    return hipGetLastError() == hipSuccess ? 0 : 9;
  }
#endif
  hipLaunchKernelGGL(glp_spmv::csr_kernel, dim3(glp_spmv::grid_for(P.nrows * glp_spmv::TPR)), dim3(glp_spmv::BLOCK), 0, s,
                     P.nrows, P.rp, P.ci, P.va, P.x, P.y);
  return hipGetLastError() == hipSuccess ? 0 : 9;
}
// galapagos:evolve-end
