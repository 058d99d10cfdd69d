// The HIP device on AMD's runtime, loaded only where the node has an AMD GPU. It lives in a
// module of its own, galapagos-hip-amd.so (hip_device.cpp with GLP_HIP_ON_AMD): libamdhip64 asks
// the dynamic loader for executable thread stacks, and a worker that linked it would get them on
// every node, where the CPU sandbox rightly kills the first thread made with one. Loading the
// module before the sandbox closes, on AMD nodes alone, keeps every other worker as it was.
#include <dlfcn.h>

#include <filesystem>
#include <string>

#include "backends/hip/hip_runtimes.hpp"
#include "backends/kfd_topology.hpp"

namespace galapagos::backends {

namespace {

namespace fs = std::filesystem;

// Beside the worker (a build tree), or in the installed library folder.
std::string module_path() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  for (const fs::path& p : {exe.parent_path() / "galapagos-hip-amd.so", exe.parent_path() / GALAPAGOS_HIP_AMD_MODULE_INSTALLED})
    if (fs::exists(p, ec)) return p.string();
  return (exe.parent_path() / "galapagos-hip-amd.so").string();
}

}  // namespace

std::unique_ptr<device> make_hip_device_on_amd(int index) {
  if (read_kfd_topology().count == 0) throw no_gpu("no AMD GPU in the kernel's KFD topology");
  const std::string path = module_path();
  void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);  // kept loaded: the device's code is there
  if (!module) throw std::runtime_error("cannot load the HIP device for AMD GPUs: " + std::string(dlerror()));
  using make_fn = device* (*)(int, char*, std::size_t, int*);
  const auto make = reinterpret_cast<make_fn>(dlsym(module, "glp_make_hip_device_on_amd"));
  if (!make) throw std::runtime_error(path + " has no glp_make_hip_device_on_amd: not a galapagos module");
  char message[512] = {};
  int no_gpu_found = 0;
  device* made = make(index, message, sizeof message, &no_gpu_found);
  if (!made) {
    if (no_gpu_found) throw no_gpu(message);
    throw std::runtime_error(message);
  }
  return std::unique_ptr<device>(made);
}

}  // namespace galapagos::backends
