// expect: compile_error
// Attack: the assembler reads files too. .incbin copies /etc/passwd into the shared object, and
// .include would make the assembler quote its lines in errors. Neither appears in the
// compiler's dependency list, so the scan refuses both directives before compiling.
#include "glp_kernel.h"

#include <stdint.h>

__asm__(".section .rodata\n.globl glp_secret\nglp_secret:\n.incbin \"/etc/passwd\"\n.byte 0\n.text\n");

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t n = sizes[0] * sizes[1] * sizes[2];
  const double* u = static_cast<const double*>(args[0].data);
  double* v = static_cast<double*>(args[1].data);
  for (int64_t c = 0; c < n; ++c) v[c] = u[c];
  return 0;
}
