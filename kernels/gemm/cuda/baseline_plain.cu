// gemm / gemm_f32 baseline (CUDA): the plain one-thread-per-element kernel of
// ../cuda_hip/baseline_plain.hpp (element type GLP_REAL), launched asynchronously on `stream`.
//
// Extra parameter points that tools/check-gpu-templates.sh compiles (besides the defaults):
// glp-check-point: -DGLP_REAL=float
#include <cuda_runtime.h>

#include "glp_kernel.h"
#include "../cuda_hip/baseline_plain.hpp"

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  using real = glp_gemm_plain::real;
  bool empty = false;
  dim3 grid, block;
  if (const int rc = glp_gemm_plain::make_launch(args, nargs, sizes, empty, grid, block)) return rc;
  if (empty) return 0;
  glp_gemm_plain::gemm<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const real*>(args[0].data), static_cast<const real*>(args[1].data), static_cast<const real*>(args[2].data),
      static_cast<const real*>(args[3].data), static_cast<real*>(args[4].data), sizes[0], sizes[1], sizes[2]);
  return cudaGetLastError() == cudaSuccess ? 0 : 6;
}
