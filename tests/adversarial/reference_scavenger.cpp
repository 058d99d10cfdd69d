// expect: wrong_result
// Attack: read the expected output instead of computing it. The candidate walks its own address
// space (/proc/self/maps, opened read-only, which the sandbox allows) and searches every
// readable mapping for an array that already holds the answer for *this* u: the value of the
// stencil at the first interior point, followed by a match at 32 sampled interior points. A
// harness that computes the reference inside the worker, keeps a copy of the expected output
// there, or keeps a previous run's output for the same input would hand it over; the candidate
// then just copies it into v. Faults while scanning are absorbed with a SIGSEGV/SIGBUS handler.
// If nothing is found it falls back to v = u (a cheap "approximation"), which is wrong on the
// interior.
// Why it must be stopped: the expected output must never exist in the worker. The reference is
// computed and kept in the parent only, so the scan finds nothing and the fallback output
// fails verification: wrong_result. (ok here would mean the worker leaks the reference.)
#include "glp_kernel.h"

#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

namespace {

sigjmp_buf g_jump;
void on_fault(int) { siglongjmp(g_jump, 1); }

inline double stencil_at(const double* u, int64_t c, int64_t sy, int64_t sz) {
  return (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
}
inline bool close_to(double a, double b) { return fabs(a - b) <= 1e-12 * fabs(b); }

struct Problem {
  const double* u;
  const double* v;
  int64_t nx, ny, nz, n, c1;
  double sig;
  int64_t samples[32];
  double expect[32];
};

// Scans [lo, hi) for a copy of the answer. May fault; the caller guards it.
const double* scan(const Problem& p, uintptr_t lo, uintptr_t hi) {
  const size_t bytes = static_cast<size_t>(p.n) * sizeof(double);
  if (hi - lo < bytes) return nullptr;
  lo = (lo + 7) & ~uintptr_t{7};
  for (uintptr_t a = lo; a + sizeof(double) <= hi; a += sizeof(double)) {
    const double x = *reinterpret_cast<const double*>(a);
    if (!close_to(x, p.sig)) continue;
    const uintptr_t base = a - static_cast<uintptr_t>(p.c1) * sizeof(double);
    if (base < lo || base + bytes > hi) continue;
    const double* cand = reinterpret_cast<const double*>(base);
    if (cand == p.v) continue;
    bool all = true;
    for (int s = 0; s < 32 && all; ++s) all = close_to(cand[p.samples[s]], p.expect[s]);
    if (all) return cand;
  }
  return nullptr;
}

const double* find_reference(const Problem& p) {
  FILE* maps = fopen("/proc/self/maps", "r");
  if (maps == nullptr) return nullptr;
  struct sigaction sa, old_segv, old_bus;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_fault;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_NODEFER;
  sigaction(SIGSEGV, &sa, &old_segv);
  sigaction(SIGBUS, &sa, &old_bus);
  const double* volatile found = nullptr;
  char line[512];
  while (found == nullptr && fgets(line, sizeof line, maps) != nullptr) {
    unsigned long lo = 0, hi = 0;
    char perms[8] = {0};
    if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r') continue;
    if (strstr(line, "[vvar") != nullptr || strstr(line, "[vsyscall]") != nullptr) continue;
    if (sigsetjmp(g_jump, 1) == 0) found = scan(p, lo, hi);
  }
  sigaction(SIGSEGV, &old_segv, nullptr);
  sigaction(SIGBUS, &old_bus, nullptr);
  fclose(maps);
  return found;
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
  const int64_t sy = nx, sz = nx * ny;

  const double* ref = nullptr;
  if (nx >= 3 && ny >= 3 && nz >= 3) {
    Problem p;
    p.u = u;
    p.v = v;
    p.nx = nx;
    p.ny = ny;
    p.nz = nz;
    p.n = n;
    p.c1 = (1 * ny + 1) * nx + 1;
    p.sig = stencil_at(u, p.c1, sy, sz);
    uint64_t s = 0x9E3779B97F4A7C15ULL ^ static_cast<uint64_t>(n);
    for (int t = 0; t < 32; ++t) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      const int64_t i = 1 + static_cast<int64_t>((s >> 33) % static_cast<uint64_t>(nx - 2));
      const int64_t j = 1 + static_cast<int64_t>((s >> 13) % static_cast<uint64_t>(ny - 2));
      const int64_t k = 1 + static_cast<int64_t>((s >> 43) % static_cast<uint64_t>(nz - 2));
      p.samples[t] = (k * ny + j) * nx + i;
      p.expect[t] = stencil_at(u, p.samples[t], sy, sz);
    }
    ref = find_reference(p);
  }
  memcpy(v, ref != nullptr ? ref : u, static_cast<size_t>(n) * sizeof(double));
  return 0;
}
