// spmv reference (trusted): y = A*x in double, A in CSR (row_ptr int64, col_idx int32, values
// float64), written with Kokkos for clarity rather than speed: one RangePolicy iteration per
// row, summing the row's entries in stored order. Loaded into a process that has already called
// Kokkos::initialize; it never initialises or finalises Kokkos itself.
//
//   y[i] = sum_{k = row_ptr[i]}^{row_ptr[i+1]-1} values[k] * x[col_idx[k]]    (0 for an empty row)
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "glp_kernel.h"

namespace {
using host_space = Kokkos::HostSpace;
using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
using offsets_view = Kokkos::View<const int64_t*, host_space, unmanaged>;
using index_view = Kokkos::View<const int32_t*, host_space, unmanaged>;
using in_view = Kokkos::View<const double*, host_space, unmanaged>;
using out_view = Kokkos::View<double*, host_space, unmanaged>;
using exec_space = Kokkos::DefaultHostExecutionSpace;
using policy = Kokkos::RangePolicy<exec_space, Kokkos::IndexType<int64_t>>;
}  // namespace

GLP_EXPORT int glp_reference(const glp_arg* args, int nargs, const int64_t* sizes) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  if (args[0].dtype != GLP_INT64 || args[1].dtype != GLP_INT32 || args[2].dtype != GLP_FLOAT64 ||
      args[3].dtype != GLP_FLOAT64 || args[4].dtype != GLP_FLOAT64)
    return 2;
  const int64_t nrows = sizes[0], ncols = sizes[1], nnz = sizes[2];
  if (nrows < 0 || ncols < 0 || nnz < 0) return 3;
  if (args[0].count != nrows + 1 || args[1].count != nnz || args[2].count != nnz || args[3].count != ncols ||
      args[4].count != nrows)
    return 4;
  if (args[0].data == nullptr || args[3].data == nullptr || args[4].data == nullptr) return 5;
  if ((args[1].data == nullptr || args[2].data == nullptr) && nnz > 0) return 5;
  if (!Kokkos::is_initialized()) return 6;

  const offsets_view row_ptr(static_cast<const int64_t*>(args[0].data), nrows + 1);
  // The structure is trusted only as far as it is checked: a malformed A is an error, not a crash.
  if (row_ptr(0) != 0 || row_ptr(nrows) != nnz) return 7;
  for (int64_t i = 0; i < nrows; ++i)
    if (row_ptr(i + 1) < row_ptr(i)) return 7;
  const index_view col_idx(static_cast<const int32_t*>(args[1].data), nnz);
  for (int64_t k = 0; k < nnz; ++k)
    if (col_idx(k) < 0 || col_idx(k) >= ncols) return 8;
  const in_view values(static_cast<const double*>(args[2].data), nnz);
  const in_view x(static_cast<const double*>(args[3].data), ncols);
  const out_view y(static_cast<double*>(args[4].data), nrows);

  Kokkos::parallel_for(
      "glp_reference_spmv", policy(0, nrows), KOKKOS_LAMBDA(const int64_t i) {
        double sum = 0.0;
        for (int64_t k = row_ptr(i); k < row_ptr(i + 1); ++k) sum += values(k) * x(col_idx(k));
        y(i) = sum;
      });
  Kokkos::fence();
  return 0;
}
