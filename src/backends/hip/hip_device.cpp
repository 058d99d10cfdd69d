// A GPU as a HIP device: the shared GPU device (backends/cuda_hip/gpu_device.hpp) spelt in HIP.
// Built once per runtime the build has (src/backends/hip/CMakeLists.txt):
//   GLP_HIP_ON_AMD   AMD's HIP runtime (libamdhip64), AMD's parts (amd_hooks.hpp), as the module
//                    galapagos-hip-amd.so that amd_module.cpp loads on nodes with an AMD GPU;
//   GLP_HIP_ON_CUDA  the CUDA runtime under the HIP names of kernels/include/glp_hip_on_cuda.h,
//                    NVIDIA's parts (cuda/cuda_hooks.hpp): the same code runs on NVIDIA GPUs.
#if defined(GLP_HIP_ON_AMD)
#include <hip/hip_runtime_api.h>
#else
#include "glp_hip_on_cuda.h"
#endif

#define GLP_RT(name) hip##name
namespace galapagos::backends {
using rt_device_prop = hipDeviceProp_t;
}

#if defined(GLP_HIP_ON_AMD)
#include "backends/hip/amd_hooks.hpp"
#else
#include "backends/cuda/cuda_hooks.hpp"
#endif
#include "backends/cuda_hip/gpu_device.hpp"
#include "backends/hip/hip_runtimes.hpp"

#include <cstdio>

namespace galapagos::backends {

#if defined(GLP_HIP_ON_AMD)
// The module's one entry point (amd_module.cpp): the device, or nullptr with the reason in
// `message` and `no_gpu_found` set when the runtime found no GPU. Nothing is thrown across it.
extern "C" __attribute__((visibility("default"))) device* glp_make_hip_device_on_amd(int index, char* message, std::size_t size,
                                                                                     int* no_gpu_found) {
  *no_gpu_found = 0;
  try {
    return new gpu_device<amd_hooks>(index);
  } catch (const no_gpu& e) {
    *no_gpu_found = 1;
    std::snprintf(message, size, "%s", e.what());
  } catch (const std::exception& e) {
    std::snprintf(message, size, "%s", e.what());
  }
  return nullptr;
}
#else
namespace {
struct hip_on_cuda_hooks : nvidia_hooks {
  static constexpr const char* runtime = "HIP on CUDA";
};
}  // namespace
std::unique_ptr<device> make_hip_device_on_cuda(int index) { return std::make_unique<gpu_device<hip_on_cuda_hooks> >(index); }
#endif

}  // namespace galapagos::backends
