// expect: forbidden_symbol
// Attack: allocator interposition. Exports malloc/free/calloc/realloc (forwarding to glibc's
// __libc_* entry points and counting calls). Loaded globally or preloaded, this hooks every
// allocation in the worker: it could hand the harness a poisoned or pre-filled buffer, record
// where the harness keeps its reference copies, or hide its own memory use. v is computed
// correctly.
// Why it must be stopped: libc symbols in the candidate's dynamic symbol table are rejected
// before loading: forbidden_symbol.
#include "glp_kernel.h"

#include <stddef.h>
#include <stdint.h>

extern "C" {
void* __libc_malloc(size_t);
void __libc_free(void*);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
}

namespace {
unsigned long g_allocs = 0;
}

extern "C" __attribute__((visibility("default"))) void* malloc(size_t n) {
  ++g_allocs;
  return __libc_malloc(n);
}
extern "C" __attribute__((visibility("default"))) void free(void* p) { __libc_free(p); }
extern "C" __attribute__((visibility("default"))) void* calloc(size_t a, size_t b) {
  ++g_allocs;
  return __libc_calloc(a, b);
}
extern "C" __attribute__((visibility("default"))) void* realloc(void* p, size_t n) {
  ++g_allocs;
  return __libc_realloc(p, n);
}

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
