#include "eval/toolchain.hpp"

#include <cstdlib>
#include <sstream>

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

namespace {

std::string find_nvcc() {
  std::string out;
  if (run_program({"nvcc", "--version"}, out, 30) == 0) return "nvcc";
  if (std::filesystem::exists("/usr/local/cuda/bin/nvcc")) return "/usr/local/cuda/bin/nvcc";
  throw error("backend", "nvcc not found (install the CUDA toolkit or put nvcc on PATH)");
}

}  // namespace

toolchain toolchain_for(const std::string& backend, const std::string& cpu_compiler, const std::filesystem::path& abi_dir) {
  if (backend == "cpu") return {cpu_compiler, {}, "cpu"};
  if (backend != "cuda" && backend != "hip") throw error("backend", "unknown backend '" + backend + "'");
  const gpu_info g = nvidia_gpus();
  if (g.count == 0)
    throw error("backend " + backend, backend == "hip"
                                          ? "no NVIDIA GPU found; HIP on AMD GPUs needs the HIP worker backend, not compiled in"
                                          : "no NVIDIA GPU found (nvidia-smi lists none)");
  toolchain t{find_nvcc(),
              {"-gencode", "arch=compute_" + g.arch + ",code=sm_" + g.arch, "-Xcompiler", "-fPIC,-fvisibility=hidden", "-shared"},
              "cuda"};
  if (backend == "hip") {
    // Debian's HIP headers for the CUDA platform do not compile against current CUDA: HIP
    // templates are built as CUDA with the project's mapping header instead.
    for (const char* f : {"-x", "cu", "-include"}) t.shared_flags.emplace_back(f);
    t.shared_flags.push_back((abi_dir / "glp_hip_on_cuda.h").string());
  }
  return t;
}

}  // namespace galapagos::eval
