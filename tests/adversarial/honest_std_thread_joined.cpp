// expect: ok
// Honest variant 4: hand-rolled threading with std::thread instead of OpenMP. The k range is
// split into contiguous slabs, one per hardware thread (at most 8); every worker thread is
// joined before glp_kernel returns, so no thread outlives the call. If a thread cannot be
// created (std::system_error, e.g. under a tight process limit) the calling thread computes
// the remaining slabs itself. Under a seccomp filter glibc 2.34+ creates threads with clone3
// first: the sandbox must answer clone3 with ENOSYS (glibc then falls back to clone with
// CLONE_THREAD), not kill it, or this honest kernel dies. Right after join() a thread may still
// be listed in /proc/self/task for a moment; a leaked-thread check must allow for that.
// Expected: ok.
#include "glp_kernel.h"

#include <stdint.h>

#include <system_error>
#include <thread>
#include <vector>

namespace {

void slab(const double* __restrict u, double* __restrict v, int64_t nx, int64_t ny, int64_t nz, int64_t k0, int64_t k1) {
  const int64_t sy = nx, sz = nx * ny;
  for (int64_t k = k0; k < k1; ++k) {
    for (int64_t j = 0; j < ny; ++j) {
      const int64_t row = (k * ny + j) * nx;
      const bool edge = (k == 0 || k == nz - 1 || j == 0 || j == ny - 1);
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = row + i;
        if (edge || i == 0 || i == nx - 1) {
          v[c] = u[c];
        } else {
          v[c] = (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
        }
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
  if (args[0].count < n || args[1].count < n) return 2;
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);

  unsigned hw = std::thread::hardware_concurrency();
  if (hw == 0) hw = 1;
  if (hw > 8) hw = 8;
  int64_t nthreads = static_cast<int64_t>(hw);
  if (nthreads > nz) nthreads = nz;
  if (n < 32768) nthreads = 1;  // not worth a thread

  const int64_t per = nz / nthreads, extra = nz % nthreads;
  auto bounds = [&](int64_t t, int64_t& k0, int64_t& k1) {
    k0 = t * per + (t < extra ? t : extra);
    k1 = k0 + per + (t < extra ? 1 : 0);
  };

  std::vector<std::thread> pool;
  int64_t started = 0;
  for (int64_t t = 1; t < nthreads; ++t) {
    int64_t k0, k1;
    bounds(t, k0, k1);
    try {
      pool.emplace_back(slab, u, v, nx, ny, nz, k0, k1);
    } catch (const std::system_error&) {
      break;
    }
    started = t;
  }
  int64_t k0, k1;
  bounds(0, k0, k1);
  slab(u, v, nx, ny, nz, k0, k1);
  for (int64_t t = started + 1; t < nthreads; ++t) {  // slabs whose thread could not start
    bounds(t, k0, k1);
    slab(u, v, nx, ny, nz, k0, k1);
  }
  for (std::thread& th : pool) th.join();
  return 0;
}
