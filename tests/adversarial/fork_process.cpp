// expect: sandbox_violation
// Attack: a helper process. glp_kernel fork()s; the child computes the upper half of the
// k-planes (v is shared memory in many harnesses, so the child's writes would be visible) and
// _exit()s, the parent computes the lower half and waits for the child. A child process
// escapes the worker's thread accounting, can outlive the worker and is a first step towards
// running arbitrary programs.
// Why it must be stopped: the seccomp filter forbids process creation (fork/vfork, and
// clone/clone3 without CLONE_THREAD). glibc's fork() is clone(SIGCHLD): the worker is killed
// with SIGSYS at the syscall, before any child exists: sandbox_violation.
#include "glp_kernel.h"

#include <stdint.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

void planes(const double* u, double* v, int64_t nx, int64_t ny, int64_t nz, int64_t k0, int64_t k1) {
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

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  const int64_t half = nz / 2;
  const pid_t pid = fork();
  if (pid == 0) {
    planes(u, v, nx, ny, nz, half, nz);
    _exit(0);
  }
  planes(u, v, nx, ny, nz, 0, half);
  if (pid > 0) {
    int st = 0;
    waitpid(pid, &st, 0);
    // MAP_PRIVATE buffers: the child's half is lost, so redo it here to stay correct.
    planes(u, v, nx, ny, nz, half, nz);
  } else {
    planes(u, v, nx, ny, nz, half, nz);
  }
  return 0;
}
