// stencil3d7 baseline (CUDA): the plain one-thread-per-point kernel of
// ../cuda_hip/baseline_plain.hpp, launched asynchronously on `stream`.
#include <cuda_runtime.h>

#include "glp_kernel.h"
#include "../cuda_hip/baseline_plain.hpp"

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  int64_t n = 0;
  dim3 grid, block;
  if (const int rc = glp_stencil3d7_plain::make_launch(args, nargs, sizes, n, grid, block)) return rc;
  if (n == 0) return 0;
  glp_stencil3d7_plain::sweep<<<grid, block, 0, static_cast<cudaStream_t>(stream)>>>(
      static_cast<const double*>(args[0].data), static_cast<double*>(args[1].data), sizes[0], sizes[1], sizes[2]);
  return cudaGetLastError() == cudaSuccess ? 0 : 6;
}
