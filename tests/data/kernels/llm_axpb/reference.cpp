// llm_axpb reference (trusted): out[i] = 2*in[i] + 1, with Kokkos.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "glp_kernel.h"

GLP_EXPORT int glp_reference(const glp_arg* args, int nargs, const int64_t* sizes) {
  if (args == nullptr || sizes == nullptr || nargs != 2) return 1;
  if (args[0].dtype != GLP_FLOAT64 || args[1].dtype != GLP_FLOAT64) return 2;
  const int64_t n = sizes[0];
  if (n < 0 || args[0].count != n || args[1].count != n) return 3;
  if (n == 0) return 0;
  if (!Kokkos::is_initialized()) return 4;
  const double* in = static_cast<const double*>(args[0].data);
  double* out = static_cast<double*>(args[1].data);
  Kokkos::parallel_for(
      "glp_reference_axpb", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
      KOKKOS_LAMBDA(const int64_t i) { out[i] = 2.0 * in[i] + 1.0; });
  Kokkos::fence();
  return 0;
}
