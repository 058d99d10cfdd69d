// expect: sandbox_violation
// Attack: do the forbidden thing on a side thread. A std::thread tries to open a UDP socket and
// send a datagram to 127.0.0.1:9 while the calling thread computes v correctly; the side
// thread is joined before returning, so nothing is leaked.
// Why it must be stopped: libseccomp's SCMP_ACT_KILL is SECCOMP_RET_KILL_THREAD: it kills only
// the offending thread. The dead thread still wakes join() (the kernel clears its tid on exit),
// the kernel returns a correct v and the violation would go unnoticed (ok). The filter must
// use SCMP_ACT_KILL_PROCESS so that the whole worker dies with SIGSYS: sandbox_violation.
#include "glp_kernel.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <system_error>
#include <thread>

namespace {

void beacon() {
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return;
  sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_port = htons(9);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const char msg[] = "galapagos worker beacon\n";
  if (sendto(fd, msg, sizeof msg - 1, 0, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) < 0) { /* ignore */
  }
  close(fd);
}

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  std::thread side;
  try {
    side = std::thread(beacon);
  } catch (const std::system_error&) {
    beacon();
  }
  struct Joiner {
    std::thread& t;
    ~Joiner() {
      if (t.joinable()) t.join();
    }
  } joiner{side};
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
