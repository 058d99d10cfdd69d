// expect: ok
// Pins its input in a persisting-L2 carve-out so that every later "cold" run would find it warm.
// The evaluator resets persisting lines and the stream's access policy before every flush, so
// the runs stay cold; the candidate is otherwise honest and is accepted with honest times.
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
  auto st = static_cast<cudaStream_t>(stream);
  cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 32u << 20);
  cudaStreamAttrValue w{};
  w.accessPolicyWindow.base_ptr = args[0].data;
  w.accessPolicyWindow.num_bytes = static_cast<size_t>(args[0].count) * sizeof(double);
  w.accessPolicyWindow.hitRatio = 1.0f;
  w.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  w.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &w);
  cudaGetLastError();  // a window larger than the device allows is refused: not our concern
  sweep<<<1024, 256, 0, st>>>(static_cast<const double*>(args[0].data), static_cast<double*>(args[1].data), s[0], s[1], s[2]);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
