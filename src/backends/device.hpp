// What galapagos-worker needs from a device, the same parts for every backend (Kokkos' habit):
// arguments staged from the shared arena onto the device, a timed call of the entry point,
// results (and inputs, for the unchanged check) collected back, a cache flush, and a probe of
// the device's ceilings. A backend that was not compiled in is a stub that says so.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "glp_kernel.h"

namespace galapagos::backends {

using kernel_fn = int (*)(const glp_arg*, int, const std::int64_t*, void*);

// Input sets a device holds at once (worker::protocol::max_sets).
inline constexpr int max_input_sets = 16;

struct arena_arg {  // one argument's bytes in the shared arena
  std::byte* host;
  std::int64_t count;
  std::int32_t dtype;
  std::int32_t intent;
};

// The device is lost (an illegal address, a launch failure): the worker must not go on.
struct device_fault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The backend was built, but this machine has no GPU its runtime can use.
struct no_gpu : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct device_ceilings {
  double bandwidth_gbs = 0, peak_gflops = 0, peak_gflops_f32 = 0;
  std::size_t free_memory_bytes = 0;  // GPUs: device memory free after the probe (0: unknown)
  std::string pci_bus_id;             // GPUs: how the orchestrator finds the same device through NVML or ROCm SMI
};

class device {
 public:
  virtual ~device() = default;
  // The arguments of input set `set` (0 .. protocol::max_sets-1) as the entry point will see them:
  // each set has device memory of its own, except the arguments of bit i of `from_first` (set > 0
  // only; the caller checked that set 0 holds the same bytes): those are set 0's as staged.
  virtual std::vector<glp_arg> stage(const std::vector<arena_arg>& args, int set, std::uint32_t from_first = 0) = 0;
  // Calls fn(sets[k], sizes, stream) for every set in turn, `repeat` times over, back to back, and
  // returns their time in seconds; rc is the first non-zero return value (the calls stop there),
  // else 0.
  virtual double run(kernel_fn fn, std::span<const std::vector<glp_arg>> sets, const std::vector<std::int64_t>& sizes, int repeat,
                     int& rc) = 0;
  virtual void collect(const std::vector<arena_arg>& args, const std::vector<glp_arg>& staged) = 0;
  // Evicts the caches between timed runs.
  virtual void flush() = 0;
  // A fixed piece of the device's own work (a pass over its flush buffer) timed like a run, for
  // the orchestrator's calibration before any candidate is loaded: what a run that does real work
  // adds to the orchestrator's clock beyond an empty one.
  virtual double run_calibration_work() = 0;
  virtual device_ceilings probe() = 0;
  // Opens or closes the range an attached profiler captures (nothing where there is none).
  virtual void profiler_range(bool open) = 0;
};

// flush_memory: flush_bytes of memory to sweep (the orchestrator's, shared and already faulted
// in), or null for memory of the worker's own.
std::unique_ptr<device> make_cpu_device(int threads, std::size_t flush_bytes, void* flush_memory = nullptr);
// Throws std::runtime_error("CUDA backend not compiled in") where it was not built.
std::unique_ptr<device> make_cuda_device(int index);
// A HIP device: on an AMD GPU through AMD's runtime, else on an NVIDIA GPU through the CUDA runtime
// and the project's HIP-to-CUDA header; whichever of the two this worker was built with. Throws
// no_gpu("no AMD or NVIDIA GPU found") when neither finds a GPU.
std::unique_ptr<device> make_hip_device(int index);

inline std::size_t dtype_bytes(std::int32_t dtype) { return dtype == GLP_FLOAT32 || dtype == GLP_INT32 ? 4 : 8; }

}  // namespace galapagos::backends
