// expect: sandbox_violation
// Attack (harmless probe): code that no build produced. memfd_create gives an anonymous file
// the candidate can write; mapped back with PROT_EXEC it is a file-backed executable mapping,
// the form the dynamic loader needs and the filter allows for mmap. The candidate can then run
// machine code it generated or received at run time, which the symbol check never saw. This
// probe writes a single `ret` and calls it, then computes v correctly: status ok if allowed.
// Why it must be stopped: memfd_create is not on the allow-list: SIGSYS, sandbox_violation.
// (Anonymous executable memory is refused separately: anon_exec_mapping.)
#include "glp_kernel.h"

#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  const long fd = syscall(SYS_memfd_create, "galapagos-probe", 0u);
  if (fd >= 0) {
    const unsigned char ret = 0xc3;
    if (write(static_cast<int>(fd), &ret, 1) == 1) {
      void* code = mmap(nullptr, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, static_cast<int>(fd), 0);
      if (code != MAP_FAILED) {
        reinterpret_cast<void (*)()>(code)();
        munmap(code, 4096);
      }
    }
    close(static_cast<int>(fd));
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
