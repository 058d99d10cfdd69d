// stencil3d7 baseline (HIP): the plain one-thread-per-point kernel of
// ../cuda_hip/baseline_plain.hpp, launched asynchronously on `stream`.
#ifndef GLP_HIP_ON_CUDA
#include <hip/hip_runtime.h>
#endif

#include "glp_kernel.h"
#include "../cuda_hip/baseline_plain.hpp"

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  int64_t n = 0;
  dim3 grid, block;
  if (const int rc = glp_stencil3d7_plain::make_launch(args, nargs, sizes, n, grid, block)) return rc;
  if (n == 0) return 0;
  hipLaunchKernelGGL(glp_stencil3d7_plain::sweep, grid, block, 0, static_cast<hipStream_t>(stream),
                     static_cast<const double*>(args[0].data), static_cast<double*>(args[1].data), sizes[0], sizes[1], sizes[2]);
  return hipGetLastError() == hipSuccess ? 0 : 6;
}
