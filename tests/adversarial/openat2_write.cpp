// expect: sandbox_violation
// Attack: write a file through openat2(2). Its flags live in a struct open_how in memory,
// which a seccomp BPF filter cannot dereference, so a flag-checking rule cannot be written for
// it; a filter that simply forgets openat2 allows O_WRONLY|O_CREAT through. The candidate
// opens /tmp/galapagos-leak-openat2.txt that way, writes a line, and computes v correctly. If
// openat2 fails (e.g. a correct filter answers ENOSYS, which makes glibc and most programs fall
// back to openat), it falls back to an ordinary fopen(..., "w"), as a real program would.
// Why it must be stopped: openat2 must fail (ENOSYS) or be killed, and the fallback open for
// writing is killed: SIGSYS, sandbox_violation.
#include "glp_kernel.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {
struct open_how_v0 {  // struct open_how from <linux/openat2.h>
  uint64_t flags, mode, resolve;
};
}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const char* path = "/tmp/galapagos-leak-openat2.txt";
  const char msg[] = "written by a sandboxed candidate via openat2(2)\n";
  open_how_v0 how;
  memset(&how, 0, sizeof how);
  how.flags = O_WRONLY | O_CREAT | O_TRUNC;
  how.mode = 0600;
  const long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
  if (fd >= 0) {
    if (write(static_cast<int>(fd), msg, sizeof msg - 1) < 0) { /* ignore */
    }
    close(static_cast<int>(fd));
  } else {
    FILE* f = fopen(path, "w");
    if (f != nullptr) {
      fputs(msg, f);
      fclose(f);
    }
  }
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
