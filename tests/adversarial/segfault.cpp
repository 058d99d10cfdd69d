// expect: crash
// Bug: a lazily allocated halo workspace that is only allocated for "huge" grids, but written
// for every grid. The pointer is volatile so the store really goes to address 0 (SIGSEGV)
// instead of being turned into a trap instruction by the optimiser.
// Why it must be stopped: a candidate that dies on a signal must be reported as crash, without
// taking the orchestrator with it (the kernel runs in a separate worker process).
#include "glp_kernel.h"

#include <stdint.h>
#include <stdlib.h>

namespace {
double* volatile g_halo = nullptr;
}

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  const int64_t n = nx * ny * nz;
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  if (n > (int64_t{1} << 32)) g_halo = static_cast<double*>(malloc(static_cast<size_t>(nx * ny) * sizeof(double)));
  for (int64_t c = 0; c < n; ++c) v[c] = u[c];
  double* halo = g_halo;
  for (int64_t p = 0; p < nx * ny; ++p) halo[p] = u[p];  // NULL dereference
  return 0;
}
