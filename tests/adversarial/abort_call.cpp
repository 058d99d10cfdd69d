// expect: crash
// Bug: a hard assertion that the caller passes a third "workspace" argument. The stencil3d7
// family passes two arguments, so after printing a diagnostic the kernel calls abort()
// (SIGABRT) on every call.
// Why it must be stopped: SIGABRT is a crash like any other signal; the worker isolates it and
// the parent reports crash.
#include "glp_kernel.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 3 || args[2].count < sizes[0] * sizes[1]) {
    fprintf(stderr, "stencil3d7: workspace argument missing (nargs=%d)\n", nargs);
    abort();
  }
  return 0;
}
