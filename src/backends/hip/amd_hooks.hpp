// What an AMD GPU's device needs beyond the shared code (backends/cuda_hip/gpu_device.hpp): a
// flush large enough for the last-level cache, rocBLAS as the arithmetic's probe where it is
// installed, else the peak the device's own properties give.
#pragma once

#include <dlfcn.h>
#include <hip/hip_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "backends/device.hpp"

namespace galapagos::backends {
namespace {

struct amd_hooks {
  static constexpr const char* runtime = "HIP";

  // hipDeviceProp_t gives the L2 only; MI300's Infinity Cache (256 MiB) sits behind it. Half a
  // GiB covers both on every AMD data-centre GPU, at a fraction of a millisecond per flush.
  static std::size_t flush_bytes(const hipDeviceProp_t& prop) {
    return std::max<std::size_t>(4 * static_cast<std::size_t>(std::max(prop.l2CacheSize, 1 << 20)), std::size_t{512} << 20);
  }

  // HIP has no persisting-cache carve-out a candidate could leave behind.
  static void before_flush(hipStream_t) {}

  // rocprof captures the whole process: there is no range to open.
  static void profiler_range(bool) {}

  // rocBLAS at n = 8192 where it is installed, in GFLOP/s; else the matrix cores' peak from the
  // device's compute units and clock (an upper bound: the floor it sets never rejects an honest
  // kernel); 0 for an architecture not listed here.
  template <class T, class gpu>
  static double blas_gflops(gpu& dev, void* a, void* b) {
    if (const double r = rocblas_gflops<T>(dev, a, b); r > 0) return r;
    hipDeviceProp_t prop{};
    int index = 0;
    if (hipGetDevice(&index) != hipSuccess || hipGetDeviceProperties(&prop, index) != hipSuccess) return 0;
    return properties_gflops(prop.gcnArchName, sizeof(T) == 8, prop.multiProcessorCount, prop.clockRate);
  }

  // FLOP per clock per compute unit on the matrix cores (AMD's published peaks divided by CUs
  // and clock): MI100 (gfx908), MI200 (gfx90a), MI300 (gfx94x), MI350 (gfx950).
  static double properties_gflops(const char* arch, bool f64, int compute_units, int clock_khz) {
    struct row {
      const char* prefix;
      double f64, f32;
    };
    static constexpr row table[] = {{"gfx908", 64, 256}, {"gfx90a", 256, 256}, {"gfx94", 256, 256}, {"gfx950", 128, 256}};
    for (const row& r : table)
      if (std::strncmp(arch, r.prefix, std::strlen(r.prefix)) == 0)
        return (f64 ? r.f64 : r.f32) * compute_units * (clock_khz * 1e3) / 1e9;
    return 0;
  }

  template <class T, class gpu>
  static double rocblas_gflops(gpu& dev, void* a, void* b) {
    void* lib = nullptr;
    for (const char* soname : {"librocblas.so.4", "librocblas.so.3", "librocblas.so.0"})
      if ((lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL))) break;
    if (!lib) return 0;
    // rocblas.h, declared here so that building needs no rocBLAS: handles are pointers, statuses
    // and operations enums (success 0, no transpose 111), rocblas_int 32 bits.
    using handle = void*;
    using gemm_fn = int (*)(handle, int, int, int, int, int, const T*, const T*, int, const T*, int, const T*, T*, int);
    const auto create = reinterpret_cast<int (*)(handle*)>(dlsym(lib, "rocblas_create_handle"));
    const auto destroy = reinterpret_cast<int (*)(handle)>(dlsym(lib, "rocblas_destroy_handle"));
    const auto set_stream = reinterpret_cast<int (*)(handle, hipStream_t)>(dlsym(lib, "rocblas_set_stream"));
    const auto gemm = reinterpret_cast<gemm_fn>(dlsym(lib, sizeof(T) == 8 ? "rocblas_dgemm" : "rocblas_sgemm"));
    handle h = nullptr;
    if (!create || !destroy || !set_stream || !gemm || create(&h) != 0) return 0;
    set_stream(h, dev.stream());
    const int n = 8192, none = 111;
    T* c = nullptr;
    if (hipMalloc(reinterpret_cast<void**>(&c), sizeof(T) * static_cast<std::size_t>(n) * n) != hipSuccess) {
      destroy(h);
      return 0;
    }
    const T alpha = 1, beta = 0;
    double best = 0;
    for (int rep = 0; rep < 4; ++rep) {
      int status = 0;
      const double s = dev.time([&] {
        status = gemm(h, none, none, n, n, n, &alpha, static_cast<const T*>(a), n, static_cast<const T*>(b), n, &beta, c, n);
      });
      if (status != 0) break;
      if (rep > 0) best = std::max(best, 2.0 * n * static_cast<double>(n) * n / s / 1e9);
    }
    destroy(h);
    (void)hipFree(c);
    return best;
  }
};

}  // namespace
}  // namespace galapagos::backends
