// stencil3d7 baseline, GPU kernel shared by cuda/baseline_plain.cu and hip/baseline_plain.hip: the
// plain kernel a user would write. One thread per point on a 3-D grid of 32x8 blocks (one plane
// per block row in z), the interior formula or the copy, every neighbour from global memory. No
// tiling, no shared memory, no unrolling, no special case for thin grids.
#ifndef GLP_STENCIL3D7_BASELINE_PLAIN_HPP
#define GLP_STENCIL3D7_BASELINE_PLAIN_HPP

#include <stdint.h>

#include "glp_kernel.h"

namespace glp_stencil3d7_plain {

constexpr int BX = 32, BY = 8;

__global__ void __launch_bounds__(BX * BY) sweep(const double* __restrict__ u, double* __restrict__ v, int64_t nx, int64_t ny,
                                                 int64_t nz) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * BX + threadIdx.x;
  const int64_t j = static_cast<int64_t>(blockIdx.y) * BY + threadIdx.y;
  if (i >= nx || j >= ny) return;
  const int64_t sy = nx, sz = nx * ny;
  for (int64_t k = blockIdx.z; k < nz; k += gridDim.z) {  // gridDim.z <= 65535
    const int64_t c = (k * ny + j) * nx + i;
    if (i >= 1 && i <= nx - 2 && j >= 1 && j <= ny - 2 && k >= 1 && k <= nz - 2)
      v[c] = (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
    else
      v[c] = u[c];
  }
}

// Returns 0 (launch with grid/block) or the ABI error code; n = 0 means nothing to do.
inline int make_launch(const glp_arg* args, int nargs, const int64_t* sizes, int64_t& n, dim3& grid, dim3& block) {
  if (args == nullptr || sizes == nullptr || nargs != 2) return 1;
  if (args[0].dtype != GLP_FLOAT64 || args[1].dtype != GLP_FLOAT64) return 2;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx < 0 || ny < 0 || nz < 0) return 3;
  n = nx * ny * nz;
  if (args[0].count != n || args[1].count != n) return 4;
  if (n == 0) return 0;
  if (args[0].data == nullptr || args[1].data == nullptr) return 5;
  if ((ny + BY - 1) / BY > 65535) return 3;  // beyond what this plain launch covers
  grid = dim3(static_cast<unsigned>((nx + BX - 1) / BX), static_cast<unsigned>((ny + BY - 1) / BY),
              static_cast<unsigned>(nz < 65535 ? nz : 65535));
  block = dim3(BX, BY, 1);
  return 0;
}

}  // namespace glp_stencil3d7_plain

#endif  // GLP_STENCIL3D7_BASELINE_PLAIN_HPP
