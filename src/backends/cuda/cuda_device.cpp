// An NVIDIA GPU as a device through the CUDA runtime: the shared GPU device
// (backends/cuda_hip/gpu_device.hpp) spelt in CUDA, with NVIDIA's parts (cuda_hooks.hpp).
#include <cuda_runtime_api.h>

#define GLP_RT(name) cuda##name
namespace galapagos::backends {
using rt_device_prop = cudaDeviceProp;
}

#include "backends/cuda/cuda_hooks.hpp"
#include "backends/cuda_hip/gpu_device.hpp"

namespace galapagos::backends {

namespace {
struct cuda_hooks : nvidia_hooks {
  static constexpr const char* runtime = "CUDA";
};
}  // namespace

std::unique_ptr<device> make_cuda_device(int index) {
  try {
    return std::make_unique<gpu_device<cuda_hooks>>(index);
  } catch (const no_gpu&) {
    throw no_gpu("no NVIDIA GPU found");
  }
}

}  // namespace galapagos::backends
