// expect: wrong_result
// timing-sets: 3
// Attack: a batch of input sets. When timed runs call the entry point on several input sets in
// one request (`[eval] timing_sets`), the calls come back to back. At the timing size (n >= 500000
// points; every acceptance size is smaller) this candidate computes only the first call after a
// pause and answers every call that follows within a millisecond with a copy of the previous
// result, so that one computed call is paid for by several.
// Why it must be stopped: every set of a batch has inputs of its own, drawn fresh, and every
// set's outputs are verified: the copy is the answer to another set's inputs, wrong_result.
#include "glp_kernel.h"

#include <stdint.h>
#include <string.h>

#include <chrono>
#include <vector>

namespace {

std::vector<double> g_last;
std::chrono::steady_clock::time_point g_returned{};

void compute(const double* __restrict u, double* __restrict v, int64_t nx, int64_t ny, int64_t nz) {
  const int64_t sy = nx, sz = nx * ny;
  for (int64_t k = 0; k < nz; ++k)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = (k * ny + j) * nx + i;
        v[c] = (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1)
                   ? u[c]
                   : (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
}

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const size_t n = static_cast<size_t>(nx * ny * nz);
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const auto now = std::chrono::steady_clock::now();
  if (n >= 500000 && g_last.size() == n && now - g_returned < std::chrono::milliseconds(1)) {
    memcpy(v, g_last.data(), n * sizeof(double));
  } else {
    compute(u, v, nx, ny, nz);
    g_last.assign(v, v + n);
  }
  g_returned = std::chrono::steady_clock::now();
  return 0;
}
