// expect: sandbox_violation
// Attack: dodge the wall-clock kill. The parent kills the worker's *process group* when its
// time is up. This candidate computes v, ignores SIGTERM/SIGINT/SIGHUP/SIGXCPU/..., then
// tries to leave that group: setsid() (fails if the worker is a group leader) and otherwise
// setpgid(0, <parent's group>) -- joining the orchestrator's own group, so that
// kill(-worker_pgid, SIGKILL) finds no one and the worker spins forever.
// Why it must be stopped: a worker must not be able to leave the process group the parent
// kills (worker_process.cpp kills the group only). The seccomp filter kills setsid and
// setpgid, so the worker dies with SIGSYS at setsid(): sandbox_violation. (Without those
// rules the parent would have to SIGKILL the pid as well and the status would be timeout;
// with neither, waitpid() would hang the orchestrator.)
#include "glp_kernel.h"

#include <signal.h>
#include <stdint.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  {
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
  }
  const int ignored[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXCPU, SIGALRM, SIGUSR1, SIGUSR2};
  for (int s : ignored) signal(s, SIG_IGN);
  if (setsid() < 0) {
    const pid_t parent_group = getpgid(getppid());
    if (parent_group > 0) setpgid(0, parent_group);
  }
  for (;;) {
    __asm__ __volatile__("" ::: "memory");
  }
}
