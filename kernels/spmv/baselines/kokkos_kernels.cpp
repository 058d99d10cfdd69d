// spmv baseline: Kokkos Kernels' KokkosSparse::spmv on a KokkosSparse::CrsMatrix that wraps the
// CSR arrays in unmanaged views (no copy), y = 1*A*x + 0*y.
//
// SINGLE-THREADED: Debian 12's Trilinos/Kokkos 3.4 is built with the Serial backend only, so this
// baseline runs on one core whatever OMP_NUM_THREADS says. It is what a user of the distribution's
// Kokkos Kernels gets; the openmp_plain baseline is the multi-threaded yardstick.
//
// The worker loads candidates and baselines into a process that has not initialised Kokkos, so
// the first call initialises it (Kokkos::initialize, once, kept for the life of the process; it
// starts no threads with the Serial backend). Nothing else is kept between calls.
#include <Kokkos_Core.hpp>
#include <KokkosSparse_CrsMatrix.hpp>
#include <KokkosSparse_spmv.hpp>
#include <cstdint>

#include "glp_kernel.h"

namespace {
using exec_space = Kokkos::DefaultHostExecutionSpace;
using device = Kokkos::Device<exec_space, Kokkos::HostSpace>;
using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
using matrix = KokkosSparse::CrsMatrix<double, int32_t, device, unmanaged, int64_t>;
using vector_in = Kokkos::View<const double*, Kokkos::LayoutLeft, device, unmanaged>;
using vector_out = Kokkos::View<double*, Kokkos::LayoutLeft, device, unmanaged>;
}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  if (args[0].dtype != GLP_INT64 || args[1].dtype != GLP_INT32 || args[2].dtype != GLP_FLOAT64 ||
      args[3].dtype != GLP_FLOAT64 || args[4].dtype != GLP_FLOAT64)
    return 2;
  const int64_t nrows = sizes[0], ncols = sizes[1], nnz = sizes[2];
  if (nrows < 0 || ncols < 0 || nnz < 0 || nrows > INT32_MAX || ncols > INT32_MAX) return 3;
  if (args[0].count != nrows + 1 || args[1].count != nnz || args[2].count != nnz || args[3].count != ncols ||
      args[4].count != nrows)
    return 4;
  if (!Kokkos::is_initialized()) {
    Kokkos::InitArguments init;
    init.disable_warnings = true;
    Kokkos::initialize(init);
  }
  try {
    // KokkosSparse takes non-const views; the arrays are only read.
    matrix::row_map_type::non_const_type row_map(static_cast<int64_t*>(args[0].data), nrows + 1);
    matrix::index_type entries(static_cast<int32_t*>(args[1].data), nnz);
    matrix::values_type values(static_cast<double*>(args[2].data), nnz);
    const matrix A("A", static_cast<int32_t>(nrows), static_cast<int32_t>(ncols), nnz, values, row_map, entries);
    const vector_in x(static_cast<const double*>(args[3].data), ncols);
    const vector_out y(static_cast<double*>(args[4].data), nrows);
    KokkosSparse::spmv("N", 1.0, A, x, 0.0, y);
    Kokkos::fence();
  } catch (...) {
    return 5;
  }
  return 0;
}
