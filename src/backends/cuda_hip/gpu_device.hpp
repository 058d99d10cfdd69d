// A GPU as a device, written once for CUDA and HIP (the way kernels/*/cuda_hip/ shares kernels).
// The including file names its runtime and brings what differs between vendors:
//
//   #define GLP_RT(name) cuda##name      (or hip##name: hipMalloc, hipStream_t, hipSuccess, ...)
//   using rt_device_prop = cudaDeviceProp;   (hipDeviceProp_t)
//   struct hooks {                           the vendor's parts
//     static constexpr const char* runtime;                        "CUDA", "HIP", "HIP on CUDA"
//     static std::size_t flush_bytes(const rt_device_prop&);       what evicts the caches
//     static void before_flush(GLP_RT(Stream_t));                  undo cache pinning a candidate did
//     template <class T> static double blas_gflops(gpu_device<hooks>&, void* a, void* b);   0: none
//     static void profiler_range(bool open);
//   };
//   #include "backends/cuda_hip/gpu_device.hpp"
//
// Every runtime call goes through one check that tells a lost device (illegal address, launch
// failure: the context is gone, the worker must end) from the rest. Timing: an event before the
// call, a device-wide synchronisation after it (so work the candidate put on any stream counts),
// then the end event. Between timed runs the vendor's cache pinning is undone and a buffer
// several times the last-level cache is written.
//
// Included by src/backends/cuda/cuda_device.cpp and src/backends/hip/hip_device.cpp (built twice:
// on AMD's runtime and on CUDA through kernels/include/glp_hip_on_cuda.h). Everything here is in
// an anonymous namespace: each including file has its own copy, so one program may hold several.
#pragma once

#include <algorithm>
#include <array>
#include <string>

#include "backends/device.hpp"

namespace galapagos::backends {
namespace {

inline void check(GLP_RT(Error_t) e, const char* what) {
  if (e == GLP_RT(Success)) return;
  throw device_fault(std::string(what) + ": " + GLP_RT(GetErrorName)(e) + " (" + GLP_RT(GetErrorString)(e) + ")");
}

template <class hooks>
class gpu_device final : public device {
 public:
  explicit gpu_device(int index) : index_(index) {
    int count = 0;
    if (GLP_RT(GetDeviceCount)(&count) != GLP_RT(Success) || count == 0)
      throw no_gpu(std::string("no GPU the ") + hooks::runtime + " runtime can use");
    check(GLP_RT(SetDevice)(index), "SetDevice");
    check(GLP_RT(StreamCreateWithFlags)(&stream_, GLP_RT(StreamNonBlocking)), "StreamCreate");
    check(GLP_RT(EventCreate)(&start_), "EventCreate");
    check(GLP_RT(EventCreate)(&stop_), "EventCreate");
    rt_device_prop prop{};
    check(GLP_RT(GetDeviceProperties)(&prop, index), "GetDeviceProperties");
    flush_bytes_ = hooks::flush_bytes(prop);
    check(GLP_RT(Malloc)(&flush_buffer_, flush_bytes_), "Malloc (flush buffer)");
    flush();  // the context, its threads and the module loader exist before any candidate
  }

  ~gpu_device() override {
    for (auto& set : sets_)
      for (auto& b : set) (void)GLP_RT(Free)(b.data);
    (void)GLP_RT(Free)(flush_buffer_);
    (void)GLP_RT(EventDestroy)(start_);
    (void)GLP_RT(EventDestroy)(stop_);
    (void)GLP_RT(StreamDestroy)(stream_);
  }

  std::vector<glp_arg> stage(const std::vector<arena_arg>& args, int set, std::uint32_t from_first) override {
    auto& bufs = sets_[static_cast<std::size_t>(set)];
    bufs.resize(std::max(bufs.size(), args.size()));
    std::vector<glp_arg> out;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::size_t bytes = static_cast<std::size_t>(args[i].count) * dtype_bytes(args[i].dtype);
      if (set > 0 && (from_first >> i & 1u) && i < sets_[0].size() && sets_[0][i].capacity >= bytes) {
        out.push_back(glp_arg{sets_[0][i].data, args[i].count, args[i].dtype, args[i].intent});
        continue;
      }
      if (bytes > bufs[i].capacity) {
        (void)GLP_RT(Free)(bufs[i].data);
        bufs[i] = {};
        check(GLP_RT(Malloc)(&bufs[i].data, std::max<std::size_t>(bytes, 256)), "Malloc");
        bufs[i].capacity = bytes;
      }
      // Outputs go up too: they carry the poison pattern every element must overwrite.
      check(GLP_RT(MemcpyAsync)(bufs[i].data, args[i].host, bytes, GLP_RT(MemcpyHostToDevice), stream_), "upload");
      out.push_back(glp_arg{bufs[i].data, args[i].count, args[i].dtype, args[i].intent});
    }
    check(GLP_RT(StreamSynchronize)(stream_), "upload");
    return out;
  }

  double run(kernel_fn fn, std::span<const std::vector<glp_arg>> sets, const std::vector<std::int64_t>& sizes, int repeat,
             int& rc) override {
    rc = 0;
    return time([&] {
      for (int i = 0; i < std::max(repeat, 1) && rc == 0; ++i)
        for (std::size_t k = 0; k < sets.size() && rc == 0; ++k)
          rc = fn(sets[k].data(), static_cast<int>(sets[k].size()), sizes.data(), stream_);
      check(GLP_RT(DeviceSynchronize)(), "kernel");
    });
  }

  void collect(const std::vector<arena_arg>& args, const std::vector<glp_arg>& staged) override {
    for (std::size_t i = 0; i < args.size() && i < staged.size(); ++i)
      check(
          GLP_RT(MemcpyAsync)(args[i].host, staged[i].data, static_cast<std::size_t>(args[i].count) * dtype_bytes(args[i].dtype),
                              GLP_RT(MemcpyDeviceToHost), stream_),
          "download");
    check(GLP_RT(StreamSynchronize)(stream_), "download");
  }

  void flush() override {
    hooks::before_flush(stream_);
    check(GLP_RT(MemsetAsync)(flush_buffer_, ++flush_value_ & 0xff, flush_bytes_, stream_), "flush");
    check(GLP_RT(StreamSynchronize)(stream_), "flush");
  }

  double run_calibration_work() override {
    return time([&] {
      check(GLP_RT(MemsetAsync)(flush_buffer_, ++flush_value_ & 0xff, flush_bytes_, stream_), "calibration");
      check(GLP_RT(DeviceSynchronize)(), "calibration");
    });
  }

  void profiler_range(bool open) override { hooks::profiler_range(open); }

  device_ceilings probe() override {
    device_ceilings c;
    const std::size_t bytes = std::size_t{2} << 30;
    void *a = nullptr, *b = nullptr;
    check(GLP_RT(Malloc)(&a, bytes), "Malloc (probe)");
    check(GLP_RT(Malloc)(&b, bytes), "Malloc (probe)");
    check(GLP_RT(MemsetAsync)(a, 1, bytes, stream_), "probe");
    for (int rep = 0; rep < 6; ++rep) {
      const double s = time([&] { check(GLP_RT(MemcpyAsync)(b, a, bytes, GLP_RT(MemcpyDeviceToDevice), stream_), "probe"); });
      c.bandwidth_gbs = std::max(c.bandwidth_gbs, 2.0 * static_cast<double>(bytes) / s / 1e9);
    }
    c.peak_gflops = hooks::template blas_gflops<double>(*this, a, b);
    c.peak_gflops_f32 = hooks::template blas_gflops<float>(*this, a, b);
    (void)GLP_RT(Free)(a);
    (void)GLP_RT(Free)(b);
    std::size_t free = 0, total = 0;
    if (GLP_RT(MemGetInfo)(&free, &total) == GLP_RT(Success)) c.free_memory_bytes = free;
    char bus[32] = {};
    check(GLP_RT(DeviceGetPCIBusId)(bus, sizeof bus, index_), "DeviceGetPCIBusId");
    c.pci_bus_id = bus;
    return c;
  }

  // For the hooks: the device's stream, and the seconds between events around `work`.
  GLP_RT(Stream_t) stream() const { return stream_; }
  template <class F>
  double time(F&& work) {
    check(GLP_RT(EventRecord)(start_, stream_), "EventRecord");
    work();
    check(GLP_RT(EventRecord)(stop_, stream_), "EventRecord");
    check(GLP_RT(EventSynchronize)(stop_), "EventSynchronize");
    check(GLP_RT(GetLastError)(), "kernel launch");
    float ms = 0;
    check(GLP_RT(EventElapsedTime)(&ms, start_, stop_), "EventElapsedTime");
    return ms * 1e-3;
  }

 private:
  int index_;
  GLP_RT(Stream_t) stream_ = nullptr;
  GLP_RT(Event_t) start_ = nullptr, stop_ = nullptr;
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
}  // namespace galapagos::backends
