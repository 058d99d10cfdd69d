// stencil3d7, tuned CUDA template: one weighted-Jacobi sweep of the 7-point Laplacian (float64).
// A thin launcher: the kernels, the parameters (GLP_BLOCK_X, GLP_BLOCK_Y, GLP_UNROLL, GLP_Z_MARCH,
// GLP_Z_CHUNK, GLP_SHARED, GLP_STREAM) and the argument checks are in
// ../cuda_hip/stencil3d7_kernels.hpp, shared with the HIP template hip/stencil3d7.hip.
// args: u (in), v (out), device pointers; sizes: nx, ny, nz. Launches asynchronously on `stream`.
//
// Extra parameter points that tools/check-gpu-templates.sh compiles (besides the defaults):
// glp-check-point: -DGLP_Z_MARCH=0 -DGLP_SHARED=0 -DGLP_BLOCK_X=32 -DGLP_BLOCK_Y=1 -DGLP_UNROLL=1 -DGLP_Z_CHUNK=0 -DGLP_STREAM=0
// glp-check-point: -DGLP_Z_MARCH=0 -DGLP_SHARED=1 -DGLP_BLOCK_X=256 -DGLP_BLOCK_Y=1 -DGLP_UNROLL=4 -DGLP_Z_CHUNK=0 -DGLP_STREAM=1
// glp-check-point: -DGLP_Z_MARCH=1 -DGLP_SHARED=1 -DGLP_BLOCK_X=32 -DGLP_BLOCK_Y=16 -DGLP_UNROLL=1 -DGLP_Z_CHUNK=4 -DGLP_STREAM=0
// glp-check-point: -DGLP_Z_MARCH=1 -DGLP_SHARED=0 -DGLP_BLOCK_X=256 -DGLP_BLOCK_Y=4 -DGLP_UNROLL=4 -DGLP_Z_CHUNK=0 -DGLP_STREAM=1
// glp-check-point: -DGLP_Z_MARCH=1 -DGLP_SHARED=1 -DGLP_BLOCK_X=32 -DGLP_BLOCK_Y=4 -DGLP_UNROLL=2 -DGLP_Z_CHUNK=8 -DGLP_STREAM=0 -DGLP_STENCIL3D7_GRID_LIMIT=3
#include <cuda_runtime.h>

#include "glp_kernel.h"
#include "../cuda_hip/stencil3d7_kernels.hpp"
// galapagos:evolve-begin (the LLM proposer may rewrite what follows; docs/llm.md)

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  glp_stencil3d7::plan p;
  if (const int rc = glp_stencil3d7::make_plan(args, nargs, sizes, p)) return rc;
  if (p.n == 0) return 0;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (p.copy_only)  // a dimension < 3: every point is boundary
    return cudaMemcpyAsync(p.v, p.u, static_cast<size_t>(p.n) * sizeof(double), cudaMemcpyDeviceToDevice, s) == cudaSuccess ? 0 : 6;
  if (p.strided)
    glp_stencil3d7::sweep_strided<<<p.grid, p.block, 0, s>>>(p.u, p.v, p.g);
  else
    glp_stencil3d7::sweep<<<p.grid, p.block, 0, s>>>(p.u, p.v, p.g);
  return cudaGetLastError() == cudaSuccess ? 0 : 6;
}
// galapagos:evolve-end
