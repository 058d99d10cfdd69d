// expect: sandbox_violation
// Attack (harmless probe): System V shared memory outlives the process that made it. A segment
// created with shmget(IPC_PRIVATE) and never removed stays in the kernel after the worker dies:
// a place to keep results between candidates (a later candidate finds it with shmctl(SHM_STAT)
// and replays outputs), and memory that no limit of the worker accounts for. This probe creates
// a one-page segment, attaches it, writes to it, then removes it at once (harmless if allowed)
// and computes v correctly: status ok if the calls are allowed.
// Why it must be stopped: shmget, shmat, shmctl, semget, msgget (all of System V IPC) are not
// on the allow-list: SIGSYS, sandbox_violation. The worker also lives in an IPC namespace of
// its own where the kernel permits, so a segment could not reach the machine's anyway.
#include "glp_kernel.h"

#include <stdint.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  const int id = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
  if (id >= 0) {
    void* p = shmat(id, nullptr, 0);
    if (p != reinterpret_cast<void*>(-1)) {
      memset(p, 0x5a, 64);
      shmdt(p);
    }
    shmctl(id, IPC_RMID, nullptr);
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
