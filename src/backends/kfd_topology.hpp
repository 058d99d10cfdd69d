// AMD GPUs as the kernel's KFD topology lists them, no ROCm program needed: one folder per node
// (a CPU socket or a GPU), each with a properties file of "key value" lines, where a GPU's
// gfx_target_version is non-zero (90010: gfx90a). Read by the orchestrator (the target hipcc
// builds for, eval/toolchain.hpp) and by the worker (whether to load AMD's runtime at all).
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace galapagos::backends {

struct kfd_gpus {
  int count = 0;
  long first_target = 0;  // the first GPU's gfx_target_version (nodes in name order)
};

inline kfd_gpus read_kfd_topology(const std::filesystem::path& nodes_dir = "/sys/class/kfd/kfd/topology/nodes") {
  kfd_gpus g;
  std::error_code ec;
  std::vector<std::filesystem::path> nodes;
  for (const auto& e : std::filesystem::directory_iterator(nodes_dir, ec)) nodes.push_back(e.path());
  std::sort(nodes.begin(), nodes.end());
  for (const auto& node : nodes) {
    std::ifstream in(node / "properties");
    long version = 0;
    for (std::string key; in >> key;) {
      if (key == "gfx_target_version") {
        in >> version;
        break;
      }
      in.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
    }
    if (version <= 0) continue;  // a CPU node
    if (g.count++ == 0) g.first_target = version;
  }
  return g;
}

}  // namespace galapagos::backends
