// A baseline with a syntax error: the run must stop before writing any results.
#include "glp_kernel.h"
GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void*) { return 0 }
