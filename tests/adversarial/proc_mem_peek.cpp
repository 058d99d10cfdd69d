// expect: wrong_result
// Attack: read the expected output out of the orchestrator through /proc/<ppid>/mem. Like
// parent_memory_peek.cpp, but it never calls process_vm_readv (which the filter kills): it
// opens /proc/<ppid>/mem with O_RDONLY -- an open the "no opening for writing" rule allows --
// and pread()s the parent's anonymous/heap mappings listed in /proc/<ppid>/maps, looking for
// the stencil value at the first interior point of this u; after verifying 32 sampled points
// it copies the parent's reference into v. The worker runs as the same user as the
// orchestrator, and the kernel's ptrace access check for same-uid, dumpable processes needs
// no capability, so this works unless the orchestrator defends itself. If nothing can be read
// or found it falls back to v = u, which is wrong on the interior.
// Why it must be stopped: the reference must be unreachable from the worker. seccomp cannot
// filter on paths, so the orchestrator must make itself non-dumpable (prctl(PR_SET_DUMPABLE,
// 0)) or run workers under another uid / Yama ptrace_scope >= 1; then opening /proc/<ppid>/maps
// and /proc/<ppid>/mem fails with EACCES, the fallback output is verified: wrong_result.
// (ok here means the candidate copied the orchestrator's reference.)
#include "glp_kernel.h"

#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include <vector>

namespace {

inline double stencil_at(const double* u, int64_t c, int64_t sy, int64_t sz) {
  return (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
}
inline bool close_to(double a, double b) { return fabs(a - b) <= 1e-12 * fabs(b); }

struct Remote {
  pid_t pid;
  int memfd = -1;
  bool tried_mem = false;
  bool read(uintptr_t addr, void* buf, size_t len) {
    if (!tried_mem) {
      tried_mem = true;
      char path[64];
      snprintf(path, sizeof path, "/proc/%d/mem", static_cast<int>(pid));
      memfd = open(path, O_RDONLY);
    }
    return memfd >= 0 && pread(memfd, buf, len, static_cast<off_t>(addr)) == static_cast<ssize_t>(len);
  }
  ~Remote() {
    if (memfd >= 0) close(memfd);
  }
};

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const int64_t n = nx * ny * nz;
  const size_t bytes = static_cast<size_t>(n) * sizeof(double);
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;

  bool found = false;
  if (nx >= 3 && ny >= 3 && nz >= 3) {
    const int64_t c1 = (1 * ny + 1) * nx + 1;
    const double sig = stencil_at(u, c1, sy, sz);
    Remote rem;
    rem.pid = getppid();
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", static_cast<int>(rem.pid));
    FILE* maps = fopen(path, "r");
    std::vector<double> chunk(size_t{1} << 19);  // 4 MiB
    size_t budget = size_t{4} << 30;             // scan at most 4 GiB
    char line[512];
    while (!found && maps != nullptr && fgets(line, sizeof line, maps) != nullptr) {
      unsigned long lo = 0, hi = 0;
      char perms[8] = {0};
      if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r') continue;
      const char* name = strchr(line, '/');
      const bool anon = name == nullptr && strchr(line, '[') == nullptr;
      if (!(anon || strstr(line, "[heap]") != nullptr || strstr(line, "/dev/shm/") != nullptr ||
            strstr(line, "/memfd:") != nullptr))
        continue;
      for (uintptr_t a = lo; a < hi && !found && budget > 0;) {
        size_t len = chunk.size() * sizeof(double);
        if (len > hi - a) len = hi - a;
        if (!rem.read(a, chunk.data(), len)) break;
        budget = budget > len ? budget - len : 0;
        for (size_t e = 0; e < len / sizeof(double) && !found; ++e) {
          if (!close_to(chunk[e], sig)) continue;
          const uintptr_t base = a + e * sizeof(double) - static_cast<uintptr_t>(c1) * sizeof(double);
          if (base < lo || base + bytes > hi || !rem.read(base, v, bytes)) continue;
          bool all = true;
          uint64_t s = 0x2545F4914F6CDD1DULL;
          for (int t = 0; t < 32 && all; ++t) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            const int64_t i = 1 + static_cast<int64_t>((s >> 33) % static_cast<uint64_t>(nx - 2));
            const int64_t j = 1 + static_cast<int64_t>((s >> 13) % static_cast<uint64_t>(ny - 2));
            const int64_t k = 1 + static_cast<int64_t>((s >> 43) % static_cast<uint64_t>(nz - 2));
            const int64_t c = (k * ny + j) * nx + i;
            all = close_to(v[c], stencil_at(u, c, sy, sz));
          }
          found = all;
        }
        a += len;
      }
    }
    if (maps != nullptr) fclose(maps);
  }
  if (!found) memcpy(v, u, bytes);
  return 0;
}
