// Built when galapagos is configured without CUDA: the backend exists and says so.
#include "backends/device.hpp"

namespace galapagos::backends {

std::unique_ptr<device> make_cuda_device(int) {
  throw std::runtime_error("CUDA backend not compiled in (configure with the CUDA toolkit present)");
}

}  // namespace galapagos::backends
