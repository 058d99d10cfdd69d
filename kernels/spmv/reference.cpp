// spmv reference (trusted): y = A*x in double, A in CSR (row_ptr int64, col_idx int32, values
// float64), written with Kokkos for clarity rather than speed: one RangePolicy iteration per
// row, summing the row's entries in stored order. Loaded into a process that has already called
// Kokkos::initialize; it never initialises or finalises Kokkos itself.
//
//   y[i] = sum_{k = row_ptr[i]}^{row_ptr[i+1]-1} values[k] * x[col_idx[k]]    (0 for an empty row)
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "glp_kernel.h"
#include "glp_parallel.hpp"

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
  if (args[0].dtype != GLP_INT64 || args[1].dtype != GLP_INT32 || args[2].dtype != GLP_FLOAT64 || args[3].dtype != GLP_FLOAT64 ||
      args[4].dtype != GLP_FLOAT64)
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

// The checker for timed runs (glp_check, docs/writing-a-family.md): each row's sum as the
// reference forms it, compared on the spot with the candidate's y, on every core (shares of rows
// holding about equal numbers of entries). It judges exactly what the reference comparison judges
// (max|y - ref| / max|ref| over every row) without writing the reference's output and reading it
// back, and it needs no seed.
GLP_EXPORT int glp_check(const glp_arg* inputs, const glp_arg* outputs, int nargs, const int64_t* sizes, uint64_t,
                         double* rel_error) {
  if (inputs == nullptr || outputs == nullptr || sizes == nullptr || rel_error == nullptr || nargs != 5) return 1;
  if (inputs[0].dtype != GLP_INT64 || inputs[1].dtype != GLP_INT32 || inputs[2].dtype != GLP_FLOAT64 ||
      inputs[3].dtype != GLP_FLOAT64 || outputs[4].dtype != GLP_FLOAT64)
    return 2;
  const int64_t nrows = sizes[0], ncols = sizes[1], nnz = sizes[2];
  if (nrows < 0 || ncols < 0 || nnz < 0) return 3;
  if (inputs[0].count != nrows + 1 || inputs[1].count != nnz || inputs[2].count != nnz || inputs[3].count != ncols ||
      outputs[4].count != nrows)
    return 4;
  const auto* row_ptr = static_cast<const int64_t*>(inputs[0].data);
  const auto* col_idx = static_cast<const int32_t*>(inputs[1].data);
  const auto* values = static_cast<const double*>(inputs[2].data);
  const auto* x = static_cast<const double*>(inputs[3].data);
  const auto* y = static_cast<const double*>(outputs[4].data);
  if (row_ptr == nullptr || x == nullptr || y == nullptr || ((col_idx == nullptr || values == nullptr) && nnz > 0)) return 5;
  if (row_ptr[0] != 0 || row_ptr[nrows] != nnz) return 7;
  for (int64_t i = 0; i < nrows; ++i)
    if (row_ptr[i + 1] < row_ptr[i]) return 7;
  *rel_error = 0;
  if (nrows == 0) return 0;
  // Shares of entries; each share takes the rows that start in it.
  const int parts = glp::parts_for(nnz + nrows, 1 << 16);
  std::vector<double> err(static_cast<size_t>(parts), 0.0), scale(static_cast<size_t>(parts), 0.0);
  std::vector<int> malformed(static_cast<size_t>(parts), 0);
  glp::parallel_parts(parts, nnz + nrows, [&](int part, int64_t begin, int64_t end) {
    // Rows i with i + row_ptr[i] in [begin, end): row_ptr is non-decreasing, so every row falls
    // in exactly one share.
    auto first_row = [&](int64_t at) {
      int64_t lo = 0, hi = nrows;
      while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (mid + row_ptr[mid] < at)
          lo = mid + 1;
        else
          hi = mid;
      }
      return lo;
    };
    const int64_t r0 = first_row(begin), r1 = first_row(end);
    double e = 0, s = 0;
    for (int64_t i = r0; i < r1; ++i) {
      double sum = 0.0;
      for (int64_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        const int32_t c = col_idx[k];
        if (c < 0 || c >= ncols) {
          malformed[static_cast<size_t>(part)] = 1;
          return;
        }
        sum += values[k] * x[c];
      }
      const double d = std::fabs(y[i] - sum);
      if (!(d <= e)) e = d == d ? d : INFINITY;
      s = std::max(s, std::fabs(sum));
    }
    err[static_cast<size_t>(part)] = e;
    scale[static_cast<size_t>(part)] = s;
  });
  double e = 0, s = 0;
  for (int t = 0; t < parts; ++t) {
    if (malformed[static_cast<size_t>(t)]) return 7;
    e = std::max(e, err[static_cast<size_t>(t)]), s = std::max(s, scale[static_cast<size_t>(t)]);
  }
  *rel_error = s > 0 ? e / s : e;
  return 0;
}
