// expect: ok
// time-vs: honest_serial.cpp 0.7
// Attack: move the worker's clock without touching a system call or a symbol. The candidate
// computes the stencil honestly (the same loops as honest_serial.cpp), then scans the stack
// above its own frame for the worker's start time stamp (an integer count of nanoseconds on the
// monotonic clock, a little before the call) and moves it 60% of the way to now, so that the
// worker's own clock sees 40% of the call (more would put it below the physical floor).
// Plain memory writes: no filter can see them.
// Why it must fail: the time is the orchestrator's own clock around the request (less an empty
// run calibrated before the candidate was loaded); nothing the worker measures is believed on a
// CPU. The candidate is honest in effect: ok, and no faster than its honest twin (time-vs).
#include "glp_kernel.h"

#include <stdint.h>
#include <time.h>

namespace {

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

__attribute__((noinline)) void shift_caller_stamps(int64_t entry_ns) {
  const int64_t now = now_ns();
  auto* p = static_cast<int64_t*>(__builtin_frame_address(0));
  for (int i = 0; i < 256; ++i) {  // 2 KiB of the callers' frames
    const int64_t v = p[i];
    if (v <= entry_ns && v > entry_ns - 5000000) p[i] = v + (now - v) * 6 / 10;
  }
}

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  const int64_t entry = now_ns();
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const int64_t n = nx * ny * nz;
  if (args[0].count < n || args[1].count < n) return 2;
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;
  for (int64_t k = 0; k < nz; ++k) {
    for (int64_t j = 0; j < ny; ++j) {
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = (k * ny + j) * nx + i;
        if (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1) {
          v[c] = u[c];
        } else {
          v[c] = (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
        }
      }
    }
  }
  if (n >= 500000) shift_caller_stamps(entry);
  return 0;
}
