// expect: wrong_result
// Computes honestly for the first calls (the acceptance checks), then sweeps only the lower half
// of the grid: fast enough to stay above the physical floor, but the timed runs' outputs still
// hold the poison pattern in the upper half, and they are verified.
#include "glp_kernel.h"

__global__ void sweep(const double* u, double* v, long nx, long ny, long nz) {
  const long n = nx * ny * nz;
  for (long c = blockIdx.x * (long)blockDim.x + threadIdx.x; c < n; c += (long)gridDim.x * blockDim.x) {
    const long i = c % nx, j = (c / nx) % ny, k = c / (nx * ny);
    if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1 && k > 0 && k < nz - 1)
      v[c] = (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] + u[c - nx * ny] + u[c + nx * ny]);
    else
      v[c] = u[c];
  }
}

GLP_EXPORT int glp_kernel(const glp_arg* args, int, const int64_t* s, void* stream) {
  static int calls = 0;
  const long nz = ++calls > 20 ? s[2] / 2 : s[2];  // the acceptance checks make 20 calls here
  sweep<<<1024, 256, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const double*>(args[0].data),
                                                               static_cast<double*>(args[1].data), s[0], s[1], nz);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
