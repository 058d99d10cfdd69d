// expect: sandbox_violation
// Attack: the network through a family the filter forgot. A socket rule written as "kill
// socket(AF_INET, ...)" misses AF_INET6 (and AF_NETLINK, AF_PACKET, ...). This candidate opens
// an AF_INET6 datagram socket and sends the problem shape to [::1]:9, then computes v
// correctly (status ok if the socket is allowed).
// Why it must be stopped: the socket rule must be an allowlist (at most AF_UNIX, if anything),
// not a denylist of families: socket(AF_INET6) kills the worker with SIGSYS:
// sandbox_violation.
#include "glp_kernel.h"

#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int fd = socket(AF_INET6, SOCK_DGRAM, 0);
  if (fd >= 0) {
    sockaddr_in6 addr;
    memset(&addr, 0, sizeof addr);
    addr.sin6_family = AF_INET6;
    addr.sin6_port = htons(9);
    addr.sin6_addr = in6addr_loopback;
    char msg[96];
    const int len = snprintf(msg, sizeof msg, "shape %lld %lld %lld\n", static_cast<long long>(sizes[0]),
                             static_cast<long long>(sizes[1]), static_cast<long long>(sizes[2]));
    if (len > 0) sendto(fd, msg, static_cast<size_t>(len), 0, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
    close(fd);
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
