// spmv, tuned HIP template: y = A*x, A in CSR (float64 values, int64 row_ptr, int32 col_idx).
// A thin launcher: the kernels, the parameters (GLP_FORMAT, GLP_THREADS_PER_ROW, GLP_C, GLP_SIGMA,
// GLP_BLOCK, GLP_UNROLL) and the host-side layout code are in ../cuda_hip/spmv_kernels.hpp, the
// SELL copy's device memory and runtime calls in ../cuda_hip/spmv_sell.hpp, both shared
// with the CUDA template cuda/spmv.cu. Builds with hipcc (AMD) or
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
#include "../cuda_hip/spmv_sell.hpp"
// galapagos:evolve-begin (the LLM proposer may rewrite what follows; docs/llm.md)

#if GLP_FORMAT == 1
GLP_EXPORT int glp_setup(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  glp_spmv::problem P;
  if (const int rc = glp_spmv::check_args(args, nargs, sizes, P)) {
    glp_spmv::release();  // what an earlier setup built belongs to another matrix
    return rc;
  }
  return glp_spmv::build_sell(P, static_cast<glp_spmv::stream_t>(stream));
}
#endif

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  glp_spmv::problem P;
  if (const int rc = glp_spmv::check_args(args, nargs, sizes, P)) return rc;
  if (P.nrows == 0) return 0;
  const auto s = static_cast<glp_spmv::stream_t>(stream);
#if GLP_FORMAT == 1
  if (const glp_spmv::sell_state* S = glp_spmv::sell_copy_of(P)) {
    const unsigned grid = std::min(glp_spmv::grid_for(S->nslices * glp_spmv::C * glp_spmv::TPR), glp_spmv::sell_grid_cap());
    glp_spmv::sell_kernel<<<grid, glp_spmv::BLOCK, 0, s>>>(P.nrows, P.nnz, S->nslices, S->sptr, S->len, S->perm, S->col, S->val,
                                                           S->fp, S->done, P.rp, P.ci, P.va, P.x, P.y);
    return glp_spmv::launch_failed() ? 9 : 0;
  }
#endif
  glp_spmv::csr_kernel<<<glp_spmv::grid_for(P.nrows * glp_spmv::TPR), glp_spmv::BLOCK, 0, s>>>(P.nrows, P.rp, P.ci, P.va, P.x,
                                                                                               P.y);
  return glp_spmv::launch_failed() ? 9 : 0;
}
// galapagos:evolve-end
