// expect: sandbox_violation
// Attack (harmless probe): a POSIX message queue persists until it is unlinked, after the
// worker is gone: a mailbox between candidates (or between a candidate and a later run of
// itself) that no file-system rule sees, since mq_open is a system call of its own. This
// probe creates a queue through the raw system call (glibc's mq_open is in librt) and unlinks
// it at once (harmless if allowed), then computes v correctly: status ok if allowed.
// Why it must be stopped: mq_open, mq_unlink, mq_timedsend/receive, mq_notify and mq_getsetattr
// are not on the allow-list: SIGSYS, sandbox_violation. (RLIMIT_MSGQUEUE is also 0.)
#include "glp_kernel.h"

#include <fcntl.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  const long q = syscall(SYS_mq_open, "galapagos-probe", O_CREAT | O_RDWR, 0600, nullptr);
  if (q >= 0) {
    close(static_cast<int>(q));
    syscall(SYS_mq_unlink, "galapagos-probe");
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
