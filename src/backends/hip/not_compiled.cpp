// Built for each HIP runtime the build lacks (GLP_HIP_STUB names it: make_hip_device_on_amd or
// make_hip_device_on_cuda): the runtime exists and says it was not compiled in.
#include "backends/hip/hip_runtimes.hpp"

namespace galapagos::backends {

std::unique_ptr<device> GLP_HIP_STUB(int) { throw not_compiled("not compiled in"); }

}  // namespace galapagos::backends
