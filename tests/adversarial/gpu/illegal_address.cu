// expect: crash
// A kernel that writes through a wild device pointer: the context is lost (illegal address).
// The worker must report it as a status and end, never hang or serve another candidate.
#include "glp_kernel.h"

__global__ void scribble(double* p) { p[threadIdx.x + (1ll << 40)] = 1.0; }

GLP_EXPORT int glp_kernel(const glp_arg* args, int, const int64_t*, void* stream) {
  scribble<<<1, 32, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<double*>(args[1].data));
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
