// gemm / gemm_f32, tuned HIP template: C = alpha*A*B + beta*C, row-major, element type GLP_REAL
// (double for gemm, float for gemm_f32: the family's flags set it). A thin launcher: the kernel,
// the parameters (GLP_BM, GLP_BN, GLP_BK, GLP_WM, GLP_WN, GLP_TM, GLP_TN, GLP_DOUBLE_BUFFER,
// GLP_VEC) and the argument checks are in ../cuda_hip/gemm_kernels.hpp, shared with the CUDA
// template cuda/gemm.cu.
// args: A, B, alpha, beta (in; alpha and beta one element each, read on the device), C (inout),
// device pointers; sizes: m, n, k. Launches asynchronously on `stream`.
// Builds with hipcc (AMD) or with nvcc -x cu -include glp_hip_on_cuda.h (NVIDIA).
//
// Extra parameter points that tools/check-gpu-templates.sh compiles (besides the defaults):
// glp-check-point: -DGLP_REAL=double -DGLP_BM=32 -DGLP_BN=32 -DGLP_BK=32 -DGLP_WM=16 -DGLP_WN=16 -DGLP_TM=2 -DGLP_TN=4 -DGLP_DOUBLE_BUFFER=0 -DGLP_VEC=1
// glp-check-point: -DGLP_REAL=double -DGLP_BM=128 -DGLP_BN=128 -DGLP_BK=8 -DGLP_WM=64 -DGLP_WN=32 -DGLP_TM=8 -DGLP_TN=8 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=4
// glp-check-point: -DGLP_REAL=float -DGLP_BM=256 -DGLP_BN=128 -DGLP_BK=8 -DGLP_WM=64 -DGLP_WN=32 -DGLP_TM=8 -DGLP_TN=8 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=4
// glp-check-point: -DGLP_REAL=float -DGLP_BM=64 -DGLP_BN=32 -DGLP_BK=32 -DGLP_WM=64 -DGLP_WN=16 -DGLP_TM=8 -DGLP_TN=1 -DGLP_DOUBLE_BUFFER=0 -DGLP_VEC=2
// glp-check-point: -DGLP_REAL=double -DGLP_SPLITK=2 -DGLP_BM=64 -DGLP_BN=64 -DGLP_BK=16 -DGLP_WM=32 -DGLP_WN=16 -DGLP_TM=4 -DGLP_TN=4 -DGLP_DOUBLE_BUFFER=0 -DGLP_VEC=2
// glp-check-point: -DGLP_REAL=float -DGLP_STREAMK=1 -DGLP_BM=128 -DGLP_BN=128 -DGLP_BK=8 -DGLP_WM=64 -DGLP_WN=32 -DGLP_TM=8 -DGLP_TN=8 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=4
#ifndef GLP_HIP_ON_CUDA
#include <hip/hip_runtime.h>
#endif

#include "glp_kernel.h"
#include "../cuda_hip/gemm_kernels.hpp"
// galapagos:evolve-begin (the LLM proposer may rewrite what follows; docs/llm.md)

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  glp_gemm::plan p;
  if (const int rc = glp_gemm::make_plan(args, nargs, sizes, p)) return rc;
  if (p.empty) return 0;
  if (glp_gemm::ADDS)  // the blocks add into C: scale it by beta first, in stream order
    hipLaunchKernelGGL(glp_gemm::scale_c, dim3(glp_gemm::scale_blocks(p.P)), dim3(256), 0, static_cast<hipStream_t>(stream),
                       p.C, p.beta, p.P);
  hipLaunchKernelGGL(glp_gemm::gemm_kernel, p.grid, p.block, 0, static_cast<hipStream_t>(stream), p.A, p.B, p.alpha, p.beta,
                     p.C, p.P);
  return hipGetLastError() == hipSuccess ? 0 : 6;
}
// galapagos:evolve-end
