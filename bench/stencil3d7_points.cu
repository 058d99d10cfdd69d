// stencil3d7_points: times builds of the stencil3d7 GPU template (shared objects with the
// glp_kernel ABI, made by bench/stencil3d7_points.sh) back to back at 512x512x384 float64, side
// by side in one run with cudaMemcpy device-to-device of the same bytes (1.61 GB: one read of u,
// one write of v). The first object's output is checked against a host reference, every other
// one against the first's on the device.
//
//   stencil3d7_points A.so [B.so ...]
//
// Prints per object: the median of 24 calls (taking turns between two input/output pairs, so
// that no call finds the last one's data in the 50 MB L2) and its share of the memcpy's speed.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "glp_kernel.h"

#define CHECK(x)                                                   \
  do {                                                             \
    const cudaError_t e = (x);                                     \
    if (e != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); \
      return 1;                                                    \
    }                                                              \
  } while (0)

using kernel_fn = int (*)(const glp_arg*, int, const int64_t*, void*);

__global__ void count_differences(const double* a, const double* b, int64_t n, unsigned long long* bad) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x)
    if (!(fabs(a[i] - b[i]) <= 1e-12 * (1 + fabs(b[i])))) atomicAdd(bad, 1ull);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: stencil3d7_points A.so [B.so ...]\n");
    return 2;
  }
  const int64_t nx = 512, ny = 512, nz = 384, n = nx * ny * nz;
  cudaStream_t stream;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  double *u[2], *v[2], *first;
  unsigned long long* bad;
  for (int s = 0; s < 2; ++s) {
    CHECK(cudaMalloc(&u[s], n * 8));
    CHECK(cudaMalloc(&v[s], n * 8));
  }
  CHECK(cudaMalloc(&first, n * 8));
  CHECK(cudaMalloc(&bad, 8));
  std::vector<double> h(n), out(n);
  for (int64_t c = 0; c < n; ++c) h[c] = static_cast<double>((c * 2654435761u) % 1000) / 1000.0 - 0.3;
  for (int s = 0; s < 2; ++s) CHECK(cudaMemcpy(u[s], h.data(), n * 8, cudaMemcpyHostToDevice));
  glp_arg args[2][2];
  for (int s = 0; s < 2; ++s) {
    args[s][0] = glp_arg{u[s], n, GLP_FLOAT64, GLP_IN};
    args[s][1] = glp_arg{v[s], n, GLP_FLOAT64, GLP_OUT};
  }
  const int64_t sizes[3] = {nx, ny, nz};
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  auto median_us = [&](auto call) {
    std::vector<float> t;
    for (int r = 0; r < 24; ++r) {
      cudaEventRecord(e0, stream);
      call(r % 2);
      cudaEventRecord(e1, stream);
      cudaEventSynchronize(e1);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return 1e3 * t[t.size() / 2];
  };
  const double copy_us = median_us([&](int s) { cudaMemcpyAsync(v[s], u[s], n * 8, cudaMemcpyDeviceToDevice, stream); });
  std::printf("%-64s %8.1f us  %5.1f%% of the copy\n", "cudaMemcpy device to device", copy_us, 100.0);
  for (int a = 1; a < argc; ++a) {
    void* lib = dlopen(argv[a], RTLD_NOW | RTLD_LOCAL);
    const auto fn = lib ? reinterpret_cast<kernel_fn>(dlsym(lib, "glp_kernel")) : nullptr;
    if (!fn) {
      std::printf("%-64s not loaded: %s\n", argv[a], dlerror());
      continue;
    }
    CHECK(cudaMemsetAsync(v[0], 0xff, n * 8, stream));
    const int rc = fn(args[0], 2, sizes, stream);
    CHECK(cudaStreamSynchronize(stream));
    if (rc != 0) {
      std::printf("%-64s returned %d\n", argv[a], rc);
      continue;
    }
    unsigned long long wrong = 0;
    if (a == 1) {
      CHECK(cudaMemcpy(out.data(), v[0], n * 8, cudaMemcpyDeviceToHost));
      const int64_t sy = nx, sz = nx * ny;
      for (int64_t k = 0; k < nz; ++k)
        for (int64_t j = 0; j < ny; ++j)
          for (int64_t i = 0; i < nx; ++i) {
            const int64_t c = k * sz + j * sy + i;
            const bool interior = i >= 1 && i <= nx - 2 && j >= 1 && j <= ny - 2 && k >= 1 && k <= nz - 2;
            const double r =
                interior ? h[c] / 3 + (h[c - 1] + h[c + 1] + h[c - sy] + h[c + sy] + h[c - sz] + h[c + sz]) / 9 : h[c];
            if (!(std::fabs(out[c] - r) <= 1e-12 * (1 + std::fabs(r)))) ++wrong;
          }
      CHECK(cudaMemcpy(first, v[0], n * 8, cudaMemcpyDeviceToDevice));
    } else {
      CHECK(cudaMemset(bad, 0, 8));
      count_differences<<<1024, 256>>>(v[0], first, n, bad);
      CHECK(cudaMemcpy(&wrong, bad, 8, cudaMemcpyDeviceToHost));
    }
    if (wrong) {
      std::printf("%-64s WRONG at %llu points\n", argv[a], wrong);
      continue;
    }
    const double us = median_us([&](int s) { fn(args[s], 2, sizes, stream); });
    std::printf("%-64s %8.1f us  %5.1f%% of the copy\n", argv[a], us, 100.0 * copy_us / us);
    std::fflush(stdout);
  }
  return 0;
}
