// An NVIDIA GPU as a device. Every runtime call goes through one check that tells a lost device
// (illegal address, launch failure: the context is gone, the worker must end) from the rest.
// Timing: an event before the call, a device-wide synchronisation after it (so work the
// candidate put on any stream counts), then the end event. Between timed runs the persisting-L2
// limits are reset and a buffer several times the L2 is written.
#include <cublas_v2.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <string>

#include "backends/device.hpp"

namespace galapagos::backends {

namespace {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  const std::string msg = std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  throw device_fault(msg);
}

class cuda_device final : public device {
 public:
  explicit cuda_device(int index) : index_(index) {
    check(cudaSetDevice(index), "cudaSetDevice");
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
    cudaDeviceProp prop{};
    check(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties");
    flush_bytes_ = 4 * static_cast<std::size_t>(std::max(prop.l2CacheSize, 1 << 20));
    check(cudaMalloc(&flush_buffer_, flush_bytes_), "cudaMalloc (flush buffer)");
    flush();  // the context, its threads and the module loader exist before any candidate
  }

  ~cuda_device() override {
    for (auto& set : sets_)
      for (auto& b : set) cudaFree(b.data);
    cudaFree(flush_buffer_);
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
    cudaStreamDestroy(stream_);
  }

  std::vector<glp_arg> stage(const std::vector<arena_arg>& args, int set) override {
    auto& bufs = sets_[static_cast<std::size_t>(set)];
    bufs.resize(std::max(bufs.size(), args.size()));
    std::vector<glp_arg> out;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::size_t bytes = static_cast<std::size_t>(args[i].count) * dtype_bytes(args[i].dtype);
      if (bytes > bufs[i].capacity) {
        cudaFree(bufs[i].data);
        bufs[i] = {};
        check(cudaMalloc(&bufs[i].data, std::max<std::size_t>(bytes, 256)), "cudaMalloc");
        bufs[i].capacity = bytes;
      }
      // Outputs go up too: they carry the poison pattern every element must overwrite.
      check(cudaMemcpyAsync(bufs[i].data, args[i].host, bytes, cudaMemcpyHostToDevice, stream_), "upload");
      out.push_back(glp_arg{bufs[i].data, args[i].count, args[i].dtype, args[i].intent});
    }
    check(cudaStreamSynchronize(stream_), "upload");
    return out;
  }

  double run(kernel_fn fn, std::span<const std::vector<glp_arg>> sets, const std::vector<std::int64_t>& sizes, int repeat,
             int& rc) override {
    check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    rc = 0;
    for (int i = 0; i < std::max(repeat, 1) && rc == 0; ++i)
      for (std::size_t k = 0; k < sets.size() && rc == 0; ++k)
        rc = fn(sets[k].data(), static_cast<int>(sets[k].size()), sizes.data(), stream_);
    check(cudaDeviceSynchronize(), "kernel");
    check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    check(cudaGetLastError(), "kernel launch");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms * 1e-3;
  }

  void collect(const std::vector<arena_arg>& args, const std::vector<glp_arg>& staged) override {
    for (std::size_t i = 0; i < args.size() && i < staged.size(); ++i)
      check(cudaMemcpyAsync(args[i].host, staged[i].data, static_cast<std::size_t>(args[i].count) * dtype_bytes(args[i].dtype),
                            cudaMemcpyDeviceToHost, stream_),
            "download");
    check(cudaStreamSynchronize(stream_), "download");
  }

  void flush() override {
    // A candidate may have pinned data in a persisting-L2 carve-out: undo it, then sweep.
    check(cudaCtxResetPersistingL2Cache(), "cudaCtxResetPersistingL2Cache");
    cudaStreamAttrValue none{};
    none.accessPolicyWindow.num_bytes = 0;
    check(cudaStreamSetAttribute(stream_, cudaStreamAttributeAccessPolicyWindow, &none), "reset access policy");
    check(cudaMemsetAsync(flush_buffer_, ++flush_value_ & 0xff, flush_bytes_, stream_), "flush");
    check(cudaStreamSynchronize(stream_), "flush");
  }

  double run_calibration_work() override {
    check(cudaEventRecord(start_, stream_), "cudaEventRecord");
    check(cudaMemsetAsync(flush_buffer_, ++flush_value_ & 0xff, flush_bytes_, stream_), "calibration");
    check(cudaDeviceSynchronize(), "calibration");
    check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms * 1e-3;
  }

  void profiler_range(bool open) override { check(open ? cudaProfilerStart() : cudaProfilerStop(), "profiler range"); }

  device_ceilings probe() override {
    device_ceilings c;
    const std::size_t bytes = std::size_t{2} << 30;
    void *a = nullptr, *b = nullptr;
    check(cudaMalloc(&a, bytes), "cudaMalloc (probe)");
    check(cudaMalloc(&b, bytes), "cudaMalloc (probe)");
    check(cudaMemsetAsync(a, 1, bytes, stream_), "probe");
    for (int rep = 0; rep < 6; ++rep) {
      check(cudaEventRecord(start_, stream_), "probe");
      check(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream_), "probe");
      check(cudaEventRecord(stop_, stream_), "probe");
      check(cudaEventSynchronize(stop_), "probe");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start_, stop_), "probe");
      c.bandwidth_gbs = std::max(c.bandwidth_gbs, 2.0 * static_cast<double>(bytes) / (ms * 1e-3) / 1e9);
    }
    c.peak_gflops = gemm_rate<double>(a, b);
    c.peak_gflops_f32 = gemm_rate<float>(a, b);
    cudaFree(a);
    cudaFree(b);
    char bus[32] = {};
    check(cudaDeviceGetPCIBusId(bus, sizeof bus, index_), "cudaDeviceGetPCIBusId");
    c.pci_bus_id = bus;
    return c;
  }

 private:
  int index_;
  // cuBLAS at n = 8192 (float32 without TF32): the practical peak of the arithmetic. cuBLAS is
  // loaded only here, so that starting a worker does not pay for mapping it.
  template <class T>
  double gemm_rate(void* scratch_a, void* scratch_b) {
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
    check(cudaMalloc(reinterpret_cast<void**>(&c), bytes), "cudaMalloc (probe)");
    cublasHandle_t h;
    if (create(&h) != CUBLAS_STATUS_SUCCESS) throw device_fault("cublasCreate failed");
    set_stream(h, stream_);
    set_math(h, CUBLAS_PEDANTIC_MATH);
    const T alpha = 1, beta = 0;
    double best = 0;
    for (int rep = 0; rep < 4; ++rep) {
      check(cudaEventRecord(start_, stream_), "probe");
      gemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, static_cast<const T*>(scratch_a), n, static_cast<const T*>(scratch_b), n,
           &beta, c, n);
      check(cudaEventRecord(stop_, stream_), "probe");
      check(cudaEventSynchronize(stop_), "probe");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start_, stop_), "probe");
      if (rep > 0) best = std::max(best, 2.0 * n * static_cast<double>(n) * n / (ms * 1e-3) / 1e9);
    }
    destroy(h);
    cudaFree(c);
    return best;
  }

  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  void* flush_buffer_ = nullptr;
  std::size_t flush_bytes_ = 0;
  unsigned flush_value_ = 0;
  struct buffer {
    void* data = nullptr;
    std::size_t capacity = 0;
  };
  std::array<std::vector<buffer>, max_input_sets> sets_;  // [input set][argument]
};

}  // namespace

std::unique_ptr<device> make_cuda_device(int index) { return std::make_unique<cuda_device>(index); }

}  // namespace galapagos::backends
