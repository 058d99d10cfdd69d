// gemm / gemm_f32, tuned CUDA template: C = alpha*A*B + beta*C, row-major, element type GLP_REAL
// (double for gemm, float for gemm_f32: the family's flags set it). A thin launcher: the kernel,
// the parameters (GLP_BM, GLP_BN, GLP_BK, GLP_WM, GLP_WN, GLP_TM, GLP_TN, GLP_DOUBLE_BUFFER,
// GLP_VEC) and the argument checks are in ../cuda_hip/gemm_kernels.hpp, shared with the HIP
// template hip/gemm.hip.
// args: A, B, alpha, beta (in; alpha and beta one element each, read on the device), C (inout),
// device pointers; sizes: m, n, k. Launches asynchronously on `stream`.
#include <cuda_runtime.h>

#include "glp_kernel.h"
#include "../cuda_hip/gemm_kernels.hpp"

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  glp_gemm::plan p;
  if (const int rc = glp_gemm::make_plan(args, nargs, sizes, p)) return rc;
  if (p.empty) return 0;
  glp_gemm::gemm_kernel<<<p.grid, p.block, 0, static_cast<cudaStream_t>(stream)>>>(p.A, p.B, p.alpha, p.beta, p.C, p.P);
  return cudaGetLastError() == cudaSuccess ? 0 : 6;
}
