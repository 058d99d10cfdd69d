// What an NVIDIA GPU's device needs beyond the shared code (backends/cuda_hip/gpu_device.hpp):
// the persisting-L2 reset before a flush, the L2's size, cuBLAS as the arithmetic's probe, and
// the profiler's range. Used by the CUDA backend and by the HIP backend on NVIDIA GPUs: candidates
// are built with nvcc either way and may pin L2 lines through the CUDA runtime.
#pragma once

#include <cublas_v2.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <string>

#include "backends/device.hpp"

namespace galapagos::backends {
namespace {

void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw device_fault(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

struct nvidia_hooks {
  static std::size_t flush_bytes(const cudaDeviceProp& prop) {
    return 4 * static_cast<std::size_t>(std::max(prop.l2CacheSize, 1 << 20));
  }

  // A candidate may have pinned data in a persisting-L2 carve-out: undo it before the sweep.
  static void before_flush(cudaStream_t stream) {
    cuda_check(cudaCtxResetPersistingL2Cache(), "cudaCtxResetPersistingL2Cache");
    cudaStreamAttrValue none{};
    none.accessPolicyWindow.num_bytes = 0;
    cuda_check(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &none), "reset access policy");
  }

  static void profiler_range(bool open) { cuda_check(open ? cudaProfilerStart() : cudaProfilerStop(), "profiler range"); }

  // cuBLAS at n = 8192 (float32 without TF32): the practical peak of the arithmetic, in GFLOP/s;
  // 0 without cuBLAS. Loaded only here, so that starting a worker does not pay for mapping it.
  template <class T, class gpu>
  static double blas_gflops(gpu& dev, void* scratch_a, void* scratch_b) {
    const std::string soname = "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
    void* lib = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) return 0;
    auto sym = [&](const char* name) {
      void* f = dlsym(lib, name);
      if (!f) throw device_fault(std::string("cuBLAS lacks ") + name);
      return f;
    };
    using gemm_fn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const T*, const T*,
                                       int, const T*, int, const T*, T*, int);
    const auto create = reinterpret_cast<decltype(&cublasCreate_v2)>(sym("cublasCreate_v2"));
    const auto destroy = reinterpret_cast<decltype(&cublasDestroy_v2)>(sym("cublasDestroy_v2"));
    const auto set_stream = reinterpret_cast<decltype(&cublasSetStream_v2)>(sym("cublasSetStream_v2"));
    const auto set_math = reinterpret_cast<decltype(&cublasSetMathMode)>(sym("cublasSetMathMode"));
    const auto gemm = reinterpret_cast<gemm_fn>(sym(sizeof(T) == 8 ? "cublasDgemm_v2" : "cublasSgemm_v2"));
    const int n = 8192;
    const std::size_t bytes = sizeof(T) * static_cast<std::size_t>(n) * n;
    T* c = nullptr;
    cuda_check(cudaMalloc(reinterpret_cast<void**>(&c), bytes), "cudaMalloc (probe)");
    cublasHandle_t h;
    if (create(&h) != CUBLAS_STATUS_SUCCESS) throw device_fault("cublasCreate failed");
    set_stream(h, dev.stream());
    set_math(h, CUBLAS_PEDANTIC_MATH);
    const T alpha = 1, beta = 0;
    double best = 0;
    for (int rep = 0; rep < 4; ++rep) {
      const double s = dev.time([&] {
        gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, static_cast<const T*>(scratch_a), n, static_cast<const T*>(scratch_b),
             n, &beta, c, n);
      });
      if (rep > 0) best = std::max(best, 2.0 * n * static_cast<double>(n) * n / s / 1e9);
    }
    destroy(h);
    cudaFree(c);
    return best;
  }
};

}  // namespace
}  // namespace galapagos::backends
