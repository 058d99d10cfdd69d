// spmv baseline: the plain OpenMP CSR loop a user would write. One `parallel for` over the rows
// (default schedule), an inner loop over the row's entries. No setup phase, no other format, no
// intrinsics: whatever -O3 -march=native makes of it.
#include <cstdint>

#include "glp_kernel.h"

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  if (args[0].dtype != GLP_INT64 || args[1].dtype != GLP_INT32 || args[2].dtype != GLP_FLOAT64 ||
      args[3].dtype != GLP_FLOAT64 || args[4].dtype != GLP_FLOAT64)
    return 2;
  const int64_t nrows = sizes[0], ncols = sizes[1], nnz = sizes[2];
  if (nrows < 0 || ncols < 0 || nnz < 0) return 3;
  if (args[0].count != nrows + 1 || args[1].count != nnz || args[2].count != nnz || args[3].count != ncols ||
      args[4].count != nrows)
    return 4;
  const int64_t* row_ptr = static_cast<const int64_t*>(args[0].data);
  const int32_t* col_idx = static_cast<const int32_t*>(args[1].data);
  const double* values = static_cast<const double*>(args[2].data);
  const double* x = static_cast<const double*>(args[3].data);
  double* y = static_cast<double*>(args[4].data);

#pragma omp parallel for
  for (int64_t i = 0; i < nrows; ++i) {
    double sum = 0.0;
    for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) sum += values[k] * x[col_idx[k]];
    y[i] = sum;
  }
  return 0;
}
