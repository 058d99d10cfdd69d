// gemm / gemm_f32 baseline: what a Kokkos user would call, KokkosBlas::gemm("N", "N", ...) on
// unmanaged LayoutRight host views (GLP_REAL picks double or float). beta == 0: C is not read.
//
// What it runs depends on how Kokkos Kernels was built. Debian's Trilinos 13.2 (Kokkos / Kokkos
// Kernels 3.4) has the Serial backend only and KOKKOSKERNELS_ENABLE_TPL_BLAS, with a TPL
// specialisation for LayoutRight double/float gemm on HostSpace: the call is forwarded to the
// Fortran dgemm_/sgemm_ of libblas.so.3, which is OpenBLAS (pthreads) on this system, with A and
// B swapped to express the row-major product. So this is multi-threaded OpenBLAS reached through
// Kokkos Kernels, not Kokkos Kernels' own (single-threaded, Serial) gemm; that native path is only
// taken for types/layouts without a TPL specialisation. Loading libtrilinos_kokkoskernels also
// loads OpenBLAS (and its thread pool).
//
// Kokkos is initialised on first use (Serial backend: no threads) and never finalised.
#include <Kokkos_Core.hpp>
#include <KokkosBlas3_gemm.hpp>
#include <cstdint>
#include <type_traits>

#include "glp_kernel.h"

#ifndef GLP_REAL
#define GLP_REAL double
#endif

namespace {
using real = GLP_REAL;
constexpr int32_t kDtype = std::is_same<real, double>::value ? GLP_FLOAT64 : GLP_FLOAT32;
using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
using in_matrix = Kokkos::View<const real**, Kokkos::LayoutRight, Kokkos::HostSpace, unmanaged>;
using out_matrix = Kokkos::View<real**, Kokkos::LayoutRight, Kokkos::HostSpace, unmanaged>;
}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  for (int i = 0; i < 5; ++i)
    if (args[i].dtype != kDtype) return 2;
  const int64_t m = sizes[0], n = sizes[1], k = sizes[2];
  if (m < 1 || n < 1 || k < 1) return 3;
  if (args[0].count != m * k || args[1].count != k * n || args[2].count != 1 || args[3].count != 1 ||
      args[4].count != m * n)
    return 4;
  if (!Kokkos::is_initialized()) Kokkos::initialize();
  const in_matrix A(static_cast<const real*>(args[0].data), m, k);
  const in_matrix B(static_cast<const real*>(args[1].data), k, n);
  const out_matrix C(static_cast<real*>(args[4].data), m, n);
  KokkosBlas::gemm("N", "N", *static_cast<const real*>(args[2].data), A, B, *static_cast<const real*>(args[3].data), C);
  Kokkos::fence();
  return 0;
}
