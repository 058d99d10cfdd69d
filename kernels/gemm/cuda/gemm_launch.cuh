// gemm / gemm_f32, CUDA: how the CUDA template launches its product kernel (every kernel of
// gemm.cu, gemm_async.cuh and gemm_mma.cuh) for a plan of glp_gemm::make_plan.
//
//   launch_product(kernel, p, block, shared_bytes, stream)
//     grid: make_plan's (column tiles x row tiles x k splits), or with GLP_STREAMK one block per SM
//     slot that the kernel's occupancy allows on the current device (the blocks share out the work
//     themselves: glp_gemm::for_each_tile);
//     GLP_STREAMK 2: the shares of a cut tile reach C in k order through the tile's turn counter,
//     problem::turns, here one per tile in device memory (`turns`, zero between calls: each tile's
//     last share resets it; two calls must therefore not run at once on one device). Shapes with
//     more tiles than `turns` holds, or k = 0, run as GLP_STREAMK 1;
//     when blocks add into C after a scaling pass (k splits, GLP_STREAMK 1), scale_c first scales
//     C by beta; on compute capability 9.0 or later the product may then start while scale_c runs
//     (programmatic dependent launch; its blocks wait in glp_gemm::wait_for_scale before their
//     first addition). Without a scaling pass the product is launched in plain stream order.
//     Returns 0, or 6 when CUDA refused.
#ifndef GLP_GEMM_LAUNCH_CUH
#define GLP_GEMM_LAUNCH_CUH

#include <cuda_runtime.h>

#include "../cuda_hip/gemm_kernels.hpp"

namespace glp_gemm_launch {

// GLP_STREAMK 2's turn counters: one per tile of C (the shapes with up to 2^20 tiles; 4 MiB).
constexpr int64_t kTurns = int64_t{1} << 20;
__device__ unsigned turns[kTurns];

using kernel_fn = void (*)(const glp_gemm::real*, const glp_gemm::real*, const glp_gemm::real*, const glp_gemm::real*,
                           glp_gemm::real*, glp_gemm::problem);

// What a launch needs to know about the device, queried once per kernel and device (per thread).
struct device_facts {
  kernel_fn kernel = nullptr;
  int device = -1;
  int major = 0;  // compute capability
  int slots = 0;  // blocks of the kernel resident at once on the whole device
  unsigned* turns = nullptr;  // the device's address of `turns`
};

inline int launch_product(kernel_fn kernel, const glp_gemm::plan& p, dim3 block, int shared_bytes, cudaStream_t stream) {
  if (shared_bytes > 0 && cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes) != cudaSuccess)
    return 6;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return 6;
  thread_local device_facts facts;
  if (facts.kernel != kernel || facts.device != dev) {
    int major = 0, sms = 0, per_sm = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(block.x * block.y * block.z),
                                                      static_cast<size_t>(shared_bytes)) != cudaSuccess ||
        per_sm < 1)
      return 6;
    void* turns_address = nullptr;
    if (glp_gemm::STREAMK_IN_ORDER && cudaGetSymbolAddress(&turns_address, turns) != cudaSuccess) return 6;
    facts = device_facts{kernel, dev, major, sms * per_sm, static_cast<unsigned*>(turns_address)};
  }
  glp_gemm::problem P = p.P;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = p.grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = static_cast<size_t>(shared_bytes);
  cfg.stream = stream;
  if (glp_gemm::STREAMK) {
    cfg.gridDim = dim3(static_cast<unsigned>(facts.slots));
    const int64_t kslabs = glp_gemm::k_slabs(P);
    if (glp_gemm::STREAMK_IN_ORDER && kslabs > 0 && kslabs <= 0xffffffff &&
        glp_gemm::row_tiles(P) * glp_gemm::column_tiles(P) <= kTurns)
      P.turns = facts.turns;
  }
  cudaLaunchAttribute overlap[1];
  overlap[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap[0].val.programmaticStreamSerializationAllowed = 1;
  if (glp_gemm::ADDS && P.turns == nullptr) {  // the blocks add into C: scale it by beta first
    glp_gemm::scale_c<<<glp_gemm::scale_blocks(P), 256, 0, stream>>>(p.C, p.beta, P);
    if (facts.major >= 9) {  // without a scaling pass before it the product must wait for the stream
      cfg.attrs = overlap;
      cfg.numAttrs = 1;
    }
  }
  if (cudaLaunchKernelEx(&cfg, kernel, p.A, p.B, p.alpha, p.beta, p.C, P) != cudaSuccess) return 6;
  return cudaGetLastError() == cudaSuccess ? 0 : 6;
}

}  // namespace glp_gemm_launch

#endif  // GLP_GEMM_LAUNCH_CUH
