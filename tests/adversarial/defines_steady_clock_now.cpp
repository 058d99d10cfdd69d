// expect: forbidden_symbol
// Attack: interpose the C++ clock instead of the C one. A symbol check that only denylists C
// timer names (clock_gettime, gettimeofday, omp_get_wtime, ...) misses
// std::chrono::steady_clock::now() (_ZNSt6chrono3_V212steady_clock3nowEv), which a C++20
// worker most likely times with. This candidate defines it (it inherits default visibility from
// libstdc++'s namespace std, despite -fvisibility=hidden) with a clock that advances 1 ns per
// call, and computes v correctly.
// Why it must be stopped: the exported-symbol check must be an allowlist (glp_kernel plus
// compiler-added symbols), so any other definition, including C++ standard-library ones, is
// forbidden_symbol.
#include "glp_kernel.h"

#include <stdint.h>

#include <chrono>

namespace std {
namespace chrono {
inline namespace _V2 {
steady_clock::time_point steady_clock::now() noexcept {
  static long long fake_ns = 0;
  return time_point(duration(++fake_ns));
}
}  // namespace _V2
}  // namespace chrono
}  // namespace std

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;
  for (int64_t k = 0; k < nz; ++k)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = (k * ny + j) * nx + i;
        v[c] = (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1)
                   ? u[c]
                   : (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
  return 0;
}
