// The worker's HIP backend: AMD's runtime where it finds an AMD GPU, else the CUDA runtime under
// the HIP names where it finds an NVIDIA GPU.
#include <string>

#include "backends/hip/hip_runtimes.hpp"

namespace galapagos::backends {

std::unique_ptr<device> make_hip_device(int index) {
  std::string built;
  for (auto* make : {&make_hip_device_on_amd, &make_hip_device_on_cuda}) {
    try {
      return make(index);
    } catch (const no_gpu&) {
      built = "built";
    } catch (const not_compiled&) {
    }
  }
  throw no_gpu(built.empty() ? "HIP backend not compiled in (configure with Debian's libamdhip64-dev or the CUDA toolkit present)"
                             : "no AMD or NVIDIA GPU found");
}

}  // namespace galapagos::backends
