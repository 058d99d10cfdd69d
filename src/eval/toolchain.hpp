// How candidates of each backend are built and where they run: the compiler and its flags for a
// shared object, and the worker's device backend. GPUs are discovered with nvidia-smi (the
// orchestrator never links a device runtime).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace galapagos::eval {

struct toolchain {
  std::string compiler;
  std::vector<std::string> shared_flags;  // what makes a position-independent shared object
  std::string worker_backend;             // cpu | cuda | hip
  std::string gpu_vendor;                 // nvidia | amd; "" on the CPU
  int gpu_count = 0;                      // GPUs of that vendor on this node
};

// backend: cpu | cuda | hip. HIP candidates run on AMD GPUs through hipcc and AMD's runtime, and
// where there is none, on NVIDIA GPUs through nvcc and the project's HIP-to-CUDA header
// (abi_dir/glp_hip_on_cuda.h). Throws galapagos::error when the backend's compiler or GPU is
// missing.
toolchain toolchain_for(const std::string& backend, const std::string& cpu_compiler, const std::filesystem::path& abi_dir);

struct gpu_info {
  int count = 0;
  std::string name;
  std::string arch;  // compute capability without the dot, e.g. "90"
};
gpu_info nvidia_gpus();
// AMD GPUs from the kernel's KFD topology (no ROCm program needed): arch is the first GPU's
// target, e.g. "gfx90a" (gfx_target_version 90010), "gfx942" (90402).
gpu_info amd_gpus(const std::filesystem::path& topology = "/sys/class/kfd/kfd/topology/nodes");
// This node's GPUs, NVIDIA's if it has any, else AMD's.
gpu_info node_gpus();
// The NVIDIA driver's version ("550.54.15"); "" without nvidia-smi or a GPU.
std::string nvidia_driver_version();
// The GPU this rank uses: its node-local rank (Open MPI, Slurm, MPICH) modulo the GPU count.
int local_device_index(int gpu_count);
// How many processes of this job share the node, as the launcher tells (Open MPI, MPICH, Slurm
// with --ntasks-per-node); otherwise one per GPU (one island per GPU), at least 1.
int local_process_count(int gpu_count);

}  // namespace galapagos::eval
