// gemm / gemm_f32, CUDA: how the CUDA template launches its product kernel (every kernel of
// gemm.cu, gemm_async.cuh and gemm_mma.cuh) for a plan of glp_gemm::make_plan.
//
//   launch_product(kernel, p, block, shared_bytes, stream)
//     grid: make_plan's (column tiles x row tiles x k splits), or with GLP_STREAMK one block per SM
//     slot that the kernel's occupancy allows on the current device (the blocks share out the work
//     themselves: glp_gemm::for_each_tile);
//     when the blocks add into C (glp_gemm::ADDS: the launcher's scale_c runs first) on compute
//     capability 9.0 or later, the product may start while scale_c runs (programmatic dependent
//     launch; its blocks wait in glp_gemm::wait_for_scale before their first addition).
//     Returns 0, or 6 when CUDA refused.
#ifndef GLP_GEMM_LAUNCH_CUH
#define GLP_GEMM_LAUNCH_CUH

#include <cuda_runtime.h>

#include "../cuda_hip/gemm_kernels.hpp"

namespace glp_gemm_launch {

using kernel_fn = void (*)(const glp_gemm::real*, const glp_gemm::real*, const glp_gemm::real*, const glp_gemm::real*,
                           glp_gemm::real*, glp_gemm::problem);

inline int launch_product(kernel_fn kernel, const glp_gemm::plan& p, dim3 block, int shared_bytes, cudaStream_t stream) {
  if (shared_bytes > 0 && cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_bytes) != cudaSuccess)
    return 6;
  int dev = 0, major = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
    return 6;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = p.grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = static_cast<size_t>(shared_bytes);
  cfg.stream = stream;
  if (glp_gemm::STREAMK) {
    int sms = 0, per_sm = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(block.x * block.y * block.z),
                                                      static_cast<size_t>(shared_bytes)) != cudaSuccess ||
        per_sm < 1)
      return 6;
    cfg.gridDim = dim3(static_cast<unsigned>(sms * per_sm));
  }
  cudaLaunchAttribute overlap[1];
  overlap[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  overlap[0].val.programmaticStreamSerializationAllowed = 1;
  if (glp_gemm::ADDS && major >= 9) {
    cfg.attrs = overlap;
    cfg.numAttrs = 1;
  }
  if (cudaLaunchKernelEx(&cfg, kernel, p.A, p.B, p.alpha, p.beta, p.C, p.P) != cudaSuccess) return 6;
  return cudaGetLastError() == cudaSuccess ? 0 : 6;
}

}  // namespace glp_gemm_launch

#endif  // GLP_GEMM_LAUNCH_CUH
