// spmv baseline, GPU kernel shared by cuda/baseline_plain.cu and hip/baseline_plain.hip: the plain
// CSR kernel a user would write. One thread per row, 256-thread blocks, the row's entries summed
// in stored order. No setup phase, no other format, no vector lanes.
#ifndef GLP_SPMV_BASELINE_PLAIN_HPP
#define GLP_SPMV_BASELINE_PLAIN_HPP

#include <stdint.h>

#include "glp_kernel.h"

namespace glp_spmv_plain {

constexpr int BLOCK = 256;

__global__ void __launch_bounds__(BLOCK) spmv(int64_t nrows, const int64_t* __restrict__ row_ptr,
                                              const int32_t* __restrict__ col_idx, const double* __restrict__ values,
                                              const double* __restrict__ x, double* __restrict__ y) {
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * BLOCK + threadIdx.x; i < nrows;
       i += static_cast<int64_t>(gridDim.x) * BLOCK) {
    double sum = 0.0;
    for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) sum += values[k] * x[col_idx[k]];
    y[i] = sum;
  }
}

// The ABI checks that need no device access. 0 or an error code; blocks = 0: nothing to do.
inline int make_launch(const glp_arg* args, int nargs, const int64_t* sizes, unsigned& blocks) {
  blocks = 0;
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  if (args[0].dtype != GLP_INT64 || args[1].dtype != GLP_INT32 || args[2].dtype != GLP_FLOAT64 ||
      args[3].dtype != GLP_FLOAT64 || args[4].dtype != GLP_FLOAT64)
    return 2;
  const int64_t nrows = sizes[0], ncols = sizes[1], nnz = sizes[2];
  if (nrows < 0 || ncols < 0 || nnz < 0) return 3;
  if (args[0].count != nrows + 1 || args[1].count != nnz || args[2].count != nnz || args[3].count != ncols ||
      args[4].count != nrows)
    return 4;
  if (nrows == 0) return 0;
  if (args[0].data == nullptr || args[4].data == nullptr) return 5;
  const int64_t b = (nrows + BLOCK - 1) / BLOCK;
  blocks = static_cast<unsigned>(b < 2147483647 ? b : 2147483647);
  return 0;
}

}  // namespace glp_spmv_plain

#endif  // GLP_SPMV_BASELINE_PLAIN_HPP
