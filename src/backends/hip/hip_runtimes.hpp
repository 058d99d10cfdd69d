// The HIP device on each runtime a build may have (hip_device.cpp, built once per runtime), and
// the stub of one not built (not_compiled.cpp): it throws not_compiled.
#pragma once

#include <memory>
#include <stdexcept>

#include "backends/device.hpp"

namespace galapagos::backends {

struct not_compiled : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Each throws no_gpu when its runtime finds no GPU, not_compiled where it was not built.
std::unique_ptr<device> make_hip_device_on_amd(int index);
std::unique_ptr<device> make_hip_device_on_cuda(int index);

}  // namespace galapagos::backends
