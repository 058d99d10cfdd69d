// expect: wrong_result
// Attack: memoisation across calls. The first call for a given shape computes honestly and
// keeps a private copy of v; every later call with the same (nx, ny, nz) copies the remembered
// v back instead of computing. It also records the buffer addresses, but does not insist on
// them, so a harness that allocates fresh buffers still "hits".
// Why it must be stopped: a benchmark may never reward remembering an answer. The second
// acceptance seed of a shape (or any perturbed timing input) has a different u, so the copy is
// stale; the parent verifies every run against its own reference on that run's input and
// reports wrong_result. Copying costs as much memory traffic as the stencil, so the
// physical-floor check does not fire first.
#include "glp_kernel.h"

#include <stdint.h>
#include <string.h>

#include <vector>

namespace {

struct Entry {
  int64_t nx, ny, nz;
  const void* u;  // informational only
  void* v;
  std::vector<double> out;
};
std::vector<Entry> g_cache;

void compute(const double* __restrict u, double* __restrict v, int64_t nx, int64_t ny, int64_t nz) {
  const int64_t sy = nx, sz = nx * ny;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t k = 0; k < nz; ++k) {
    for (int64_t j = 0; j < ny; ++j) {
      const int64_t row = (k * ny + j) * nx;
      const bool edge = (k == 0 || k == nz - 1 || j == 0 || j == ny - 1);
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = row + i;
        v[c] = (edge || i == 0 || i == nx - 1)
                   ? u[c]
                   : (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
    }
  }
}

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const int64_t n = nx * ny * nz;
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);

  for (Entry& e : g_cache) {
    if (e.nx == nx && e.ny == ny && e.nz == nz) {
      memcpy(v, e.out.data(), static_cast<size_t>(n) * sizeof(double));
      e.u = u;
      e.v = v;
      return 0;
    }
  }
  compute(u, v, nx, ny, nz);
  g_cache.push_back(Entry{nx, ny, nz, u, v, std::vector<double>(v, v + n)});
  return 0;
}
