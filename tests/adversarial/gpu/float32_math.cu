// expect: wrong_result
// Computes in float to halve the arithmetic cost: beyond the family's float64 tolerance.
#include "glp_kernel.h"

__global__ void sweep(const double* u, double* v, long nx, long ny, long nz) {
  const long n = nx * ny * nz;
  for (long c = blockIdx.x * (long)blockDim.x + threadIdx.x; c < n; c += (long)gridDim.x * blockDim.x) {
    const long i = c % nx, j = (c / nx) % ny, k = c / (nx * ny);
    if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1 && k > 0 && k < nz - 1)
      v[c] = (1.0f / 3.0f) * (float)u[c] + (1.0f / 9.0f) * ((float)u[c - 1] + (float)u[c + 1] + (float)u[c - nx] +
                                                             (float)u[c + nx] + (float)u[c - nx * ny] + (float)u[c + nx * ny]);
    else
      v[c] = u[c];
  }
}

GLP_EXPORT int glp_kernel(const glp_arg* args, int, const int64_t* s, void* stream) {
  sweep<<<1024, 256, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<const double*>(args[0].data),
                                                               static_cast<double*>(args[1].data), s[0], s[1], s[2]);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
