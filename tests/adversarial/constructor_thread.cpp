// expect: leaked_thread
// Attack: a thread that exists before the first count. A __attribute__((constructor)) starts a
// background std::thread while the .so is being loaded, before glp_kernel is ever called; the
// kernel itself is honest. The thread parks on a condition variable forever. It is the vehicle
// for compute-ahead cheats: it can watch the shared input buffer and start computing v as soon
// as the parent stages a new input, before the timed call begins, or keep working after it.
// Why it must be stopped: the worker reports any thread the candidate left running when the
// entry point returns. If the worker records its baseline thread count *after* dlopen(), the
// constructor's thread is counted as part of the baseline and never reported (ok). The
// baseline must be taken before the candidate is loaded (after the worker's own OpenMP pool
// is started); then this thread is extra after the first call: leaked_thread.
#include "glp_kernel.h"

#include <stdint.h>

#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>

namespace {

std::mutex g_mutex;
std::condition_variable g_wake;
bool g_stop = false;

void background() {
  std::unique_lock<std::mutex> lock(g_mutex);
  g_wake.wait(lock, [] { return g_stop; });
}

__attribute__((constructor)) void start_background() {
  try {
    std::thread(background).detach();
  } catch (const std::system_error&) {
  }
}

}  // namespace

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
