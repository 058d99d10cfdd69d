#include "eval/toolchain.hpp"

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "backends/kfd_topology.hpp"
#include "eval/builder.hpp"
#include "util/error.hpp"

namespace galapagos::eval {

gpu_info nvidia_gpus() {
  gpu_info g;
  std::string out;
  if (run_program({"nvidia-smi", "--query-gpu=name,compute_cap", "--format=csv,noheader"}, out, 30) != 0) return g;
  std::stringstream ss(out);
  for (std::string line; std::getline(ss, line);) {
    const auto comma = line.rfind(',');
    if (comma == std::string::npos) continue;
    if (g.count++ == 0) {
      g.name = line.substr(0, comma);
      std::string cap = line.substr(comma + 1);
      for (char c : cap)
        if (c >= '0' && c <= '9') g.arch += c;
    }
  }
  return g;
}

std::string nvidia_driver_version() {
  std::string out;
  if (run_program({"nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"}, out, 30) != 0) return "";
  return out.substr(0, out.find('\n'));
}

int local_device_index(int gpu_count) {
  for (const char* var : {"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID", "PMI_LOCAL_RANK"})
    if (const char* v = std::getenv(var)) return gpu_count > 0 ? std::atoi(v) % gpu_count : 0;
  return 0;
}

int local_process_count(int gpu_count) {
  for (const char* var : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"})
    if (const char* v = std::getenv(var); v && std::atoi(v) > 0) return std::atoi(v);
  return std::max(gpu_count, 1);
}

gpu_info amd_gpus(const std::filesystem::path& topology) {
  const auto kfd = backends::read_kfd_topology(topology);
  gpu_info g;
  g.count = kfd.count;
  if (kfd.count == 0) return g;
  // major, minor, stepping in hex: 90010 -> gfx90a
  const long version = kfd.first_target;
  g.arch = "gfx" + std::to_string(version / 10000) + std::to_string(version / 100 % 100);
  g.arch.push_back("0123456789abcdef"[version % 100 % 16]);
  g.name = "AMD " + g.arch;
  return g;
}

gpu_info node_gpus() {
  const gpu_info nvidia = nvidia_gpus();
  return nvidia.count > 0 ? nvidia : amd_gpus();
}

namespace {

std::string find_compiler(const std::string& name, const std::filesystem::path& fallback, const std::string& what) {
  std::string out;
  if (run_program({name, "--version"}, out, 30) == 0) return name;
  if (std::filesystem::exists(fallback)) return fallback.string();
  throw error("backend", name + " not found (" + what + ")");
}

}  // namespace

toolchain toolchain_for(const std::string& backend, const std::string& cpu_compiler, const std::filesystem::path& abi_dir) {
  if (backend == "cpu") return {cpu_compiler, {}, "cpu", "", 0};
  if (backend != "cuda" && backend != "hip") throw error("backend", "unknown backend '" + backend + "'");
  if (backend == "hip") {
    if (const gpu_info amd = amd_gpus(); amd.count > 0)
      return {find_compiler("hipcc", "/opt/rocm/bin/hipcc", "install HIP: Debian's hipcc package, or ROCm"),
              {"--offload-arch=" + amd.arch, "-fPIC", "-fvisibility=hidden", "-shared"},
              "hip",
              "amd",
              amd.count};
  }
  const gpu_info g = nvidia_gpus();
  if (g.count == 0)
    throw error("backend " + backend, backend == "hip"
                                          ? "no AMD or NVIDIA GPU found (no GPU node in the KFD topology, nvidia-smi lists none)"
                                          : "no NVIDIA GPU found (nvidia-smi lists none)");
  toolchain t{find_compiler("nvcc", "/usr/local/cuda/bin/nvcc", "install the CUDA toolkit or put nvcc on PATH"),
              {"-gencode", "arch=compute_" + g.arch + ",code=sm_" + g.arch, "-Xcompiler", "-fPIC,-fvisibility=hidden", "-shared"},
              backend,
              "nvidia",
              g.count};
  if (backend == "hip") {
    // Debian's HIP headers for the CUDA platform do not compile against current CUDA: HIP
    // templates are built as CUDA with the project's mapping header instead, and the worker's HIP
    // backend runs on the CUDA runtime under the same mapping.
    for (const char* f : {"-x", "cu", "-include"}) t.shared_flags.emplace_back(f);
    t.shared_flags.push_back((abi_dir / "glp_hip_on_cuda.h").string());
  }
  return t;
}

}  // namespace galapagos::eval
