// expect: leaked_thread
// Attack: "asynchronous launch". Like a GPU kernel launch, glp_kernel starts std::thread
// workers for slabs of k-planes, detaches them and returns 0 at once. Each worker sleeps
// ~200 ms (standing in for queueing delay) and then computes its slab correctly, so anyone who
// waited long enough would find a correct v.
// Why it must be stopped: the measured time would cover only the launch, and the threads keep
// running (and writing v) after the call, overlapping the next run, the output check or the
// timer. After the kernel returns the worker counts its threads: any thread the candidate
// started that is still alive (these are certainly still asleep) => leaked_thread. The parked
// OpenMP pool of an honest kernel must not trigger this.
#include "glp_kernel.h"

#include <stdint.h>

#include <chrono>
#include <system_error>
#include <thread>

namespace {

void slab(const double* u, double* v, int64_t nx, int64_t ny, int64_t nz, int64_t k0, int64_t k1) {
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const int64_t sy = nx, sz = nx * ny;
  for (int64_t k = k0; k < k1; ++k) {
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
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);

  int64_t nthreads = 2;
  if (nthreads > nz) nthreads = nz;
  const int64_t per = (nz + nthreads - 1) / nthreads;
  for (int64_t t = 0; t < nthreads; ++t) {
    const int64_t k0 = t * per, k1 = (k0 + per < nz) ? k0 + per : nz;
    if (k0 >= k1) break;
    try {
      std::thread(slab, u, v, nx, ny, nz, k0, k1).detach();
    } catch (const std::system_error&) {
      slab(u, v, nx, ny, nz, k0, k1);  // could not launch: do it inline
    }
  }
  return 0;
}
