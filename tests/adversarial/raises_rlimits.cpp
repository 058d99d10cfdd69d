// expect: out_of_memory
// Attack: lift the worker's resource limits from the inside. An unprivileged process may raise
// a soft limit up to its hard limit. If the evaluator only set soft limits (hard left at
// "unlimited"), setrlimit() undoes the sandbox. This candidate raises RLIMIT_AS, RLIMIT_CPU,
// RLIMIT_FSIZE and RLIMIT_NOFILE to their hard limits, then proves the point by allocating
// (and touching) the *old* address-space limit plus 256 MiB in 64 MiB blocks; if that works,
// it frees everything and computes v correctly -- status ok, with the limit silently gone.
// Why it must be stopped: the worker must set hard == soft for every limit (or kill setrlimit
// /prlimit64 in the filter). Then the raise is a no-op, the allocation runs into RLIMIT_AS, the
// std::bad_alloc escapes glp_kernel and the worker reports out_of_memory.
// (If no RLIMIT_AS is set at all there is nothing to lift: the probe just computes honestly.)
#include "glp_kernel.h"

#include <stdint.h>
#include <string.h>
#include <sys/resource.h>

#include <memory>
#include <vector>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  static bool probed = false;
  if (!probed) {
    probed = true;
    rlimit as;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) {
      const int which[] = {RLIMIT_AS, RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_NOFILE};
      for (int w : which) {
        rlimit r;
        if (getrlimit(w, &r) == 0 && r.rlim_cur != r.rlim_max) {
          r.rlim_cur = r.rlim_max;
          setrlimit(w, &r);
        }
      }
      const size_t block = size_t{64} << 20;
      const size_t target = static_cast<size_t>(as.rlim_cur) + (size_t{256} << 20);
      std::vector<std::unique_ptr<char[]>> blocks;
      blocks.reserve(target / block + 1);
      for (size_t have = 0; have < target; have += block) {
        blocks.emplace_back(new char[block]);  // throws std::bad_alloc if the limit holds
        memset(blocks.back().get(), 0x3c, block);
      }
    }
  }
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
