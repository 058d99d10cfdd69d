// expect: sandbox_violation
// Attack: finish the output when the next message arrives. On the first call the candidate
// computes half of v, makes the result channel (descriptor 3, the socket to the orchestrator)
// signal it on input -- fcntl F_SETOWN to its own pid and O_ASYNC -- with a SIGIO handler, and
// returns: the orchestrator's next request raises SIGIO, and the handler writes the other half
// before the worker reads it. Any descriptor with a peer would do (a pipe, a socket).
// Why it must be stopped: fcntl is allowed for descriptor flags and duplication only; F_SETOWN,
// F_SETOWN_EX, F_SETSIG and F_SETFL with O_ASYNC kill the worker, as do the ioctl forms
// (FIOASYNC, FIOSETOWN, SIOCSPGRP): SIGSYS, sandbox_violation.
#include "glp_kernel.h"

#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <unistd.h>

namespace {

// Planes k0 <= k < k1 of the stencil.
void stencil_planes(const double* u, double* v, int64_t nx, int64_t ny, int64_t nz, int64_t k0, int64_t k1) {
  const int64_t sy = nx, sz = nx * ny;
  for (int64_t k = k0; k < k1; ++k)
    for (int64_t j = 0; j < ny; ++j)
      for (int64_t i = 0; i < nx; ++i) {
        const int64_t c = (k * ny + j) * nx + i;
        v[c] = (i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1)
                   ? u[c]
                   : (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      }
}

// What the signal handler finishes once the entry point has returned.
const double* g_u = nullptr;
double* g_v = nullptr;
int64_t g_nx = 0, g_ny = 0, g_nz = 0;
volatile sig_atomic_t g_pending = 0;
bool g_armed = false;

void finish_later(int) {
  if (!g_pending) return;
  stencil_planes(g_u, g_v, g_nx, g_ny, g_nz, g_nz / 2, g_nz);
  g_pending = 0;
}

// Makes descriptor 3 raise SIGIO on input. False if any step is refused.
bool arm_signal() {
  constexpr int channel = 3;
  if (fcntl(channel, F_SETOWN, getpid()) != 0) return false;
  const int flags = fcntl(channel, F_GETFL);
  if (flags < 0 || fcntl(channel, F_SETFL, flags | O_ASYNC) != 0) return false;
  struct sigaction sa {};
  sa.sa_handler = finish_later;
  return sigaction(SIGIO, &sa, nullptr) == 0;
}

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  if (!g_armed) {
    g_armed = true;
    g_u = u;
    g_v = v;
    g_nx = nx;
    g_ny = ny;
    g_nz = nz;
    g_pending = 1;
    if (arm_signal()) {
      stencil_planes(u, v, nx, ny, nz, 0, nz / 2);  // the rest is left to the handler
      return 0;
    }
    g_pending = 0;
  }
  stencil_planes(u, v, nx, ny, nz, 0, nz);
  return 0;
}
