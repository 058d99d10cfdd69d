/* galapagos: build HIP kernel templates with nvcc for NVIDIA GPUs.
 *
 *   nvcc -x cu -include glp_hip_on_cuda.h ... kernels/<family>/hip/<file>.hip
 *
 * HIP's own answer to "HIP on NVIDIA" is its nvidia_detail headers, which wrap the CUDA runtime.
 * Debian's HIP 5.2 copies of them do not compile against CUDA 13 (they use runtime types and
 * functions that CUDA 12/13 removed or changed), so this header replaces them: it maps exactly
 * the HIP runtime names, types and macros that the galapagos .hip templates and baselines use,
 * and the worker's HIP backend (src/backends/hip, built on the CUDA runtime under these names),
 * onto their CUDA equivalents, one obvious mapping each. It
 * defines GLP_HIP_ON_CUDA, and every .hip file includes <hip/hip_runtime.h> only when that macro
 * is not defined, so the real HIP headers are never seen by nvcc.
 *
 * Device code needs nothing here: __global__, __device__, __shared__, threadIdx, blockIdx,
 * __syncthreads, __restrict__, __launch_bounds__(N) and warpSize mean the same in both. The
 * kernels' shared headers (kernels/<family>/cuda_hip/) pick CUDA or HIP spellings of the few
 * device intrinsics that differ (warp shuffles, streaming stores) themselves, by
 * __HIP_PLATFORM_AMD__, so they also compile in plain .cu files that never include this header.
 * Keep new mappings in the same style: only what a template uses, each one line.
 */
#ifndef GLP_HIP_ON_CUDA_H
#define GLP_HIP_ON_CUDA_H

#define GLP_HIP_ON_CUDA 1

#include <cuda_runtime.h>

/* ---- types and constants -------------------------------------------------------------------- */
typedef cudaStream_t hipStream_t;
typedef cudaError_t hipError_t;
typedef cudaDeviceProp hipDeviceProp_t;
typedef cudaMemcpyKind hipMemcpyKind;
typedef cudaEvent_t hipEvent_t;
#define hipSuccess cudaSuccess
#define hipErrorOutOfMemory cudaErrorMemoryAllocation
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemcpyDefault cudaMemcpyDefault
#define hipStreamNonBlocking cudaStreamNonBlocking
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeWarpSize cudaDevAttrWarpSize
#define hipDeviceAttributeMaxThreadsPerMultiProcessor cudaDevAttrMaxThreadsPerMultiProcessor

/* ---- errors --------------------------------------------------------------------------------- */
#define hipGetLastError cudaGetLastError
#define hipPeekAtLastError cudaPeekAtLastError
#define hipGetErrorString cudaGetErrorString
#define hipGetErrorName cudaGetErrorName

/* ---- memory --------------------------------------------------------------------------------- */
#define hipMalloc cudaMalloc
#define hipFree cudaFree
#define hipMallocAsync cudaMallocAsync
#define hipFreeAsync cudaFreeAsync
#define hipMemcpy cudaMemcpy
#define hipMemcpyAsync cudaMemcpyAsync
#define hipMemsetAsync cudaMemsetAsync
#define hipMemGetInfo cudaMemGetInfo

/* ---- devices and streams -------------------------------------------------------------------- */
#define hipGetDevice cudaGetDevice
#define hipSetDevice cudaSetDevice
#define hipGetDeviceCount cudaGetDeviceCount
#define hipDeviceGetPCIBusId cudaDeviceGetPCIBusId
#define hipGetDeviceProperties cudaGetDeviceProperties
#define hipDeviceGetAttribute cudaDeviceGetAttribute
#define hipDeviceSynchronize cudaDeviceSynchronize
#define hipStreamSynchronize cudaStreamSynchronize
#define hipStreamCreateWithFlags cudaStreamCreateWithFlags
#define hipStreamDestroy cudaStreamDestroy

/* ---- events (the worker's HIP backend on NVIDIA GPUs) --------------------------------------- */
#define hipEventCreate cudaEventCreate
#define hipEventDestroy cudaEventDestroy
#define hipEventRecord cudaEventRecord
#define hipEventSynchronize cudaEventSynchronize
#define hipEventElapsedTime cudaEventElapsedTime
#define hipOccupancyMaxActiveBlocksPerMultiprocessor cudaOccupancyMaxActiveBlocksPerMultiprocessor

/* ---- kernel launch -------------------------------------------------------------------------- */
/* hipLaunchKernelGGL(kernel, grid, block, dynamic_shared_bytes, stream, args...). The kernel must
 * be a plain name (no template argument list: its commas would split the macro argument). */
#define hipLaunchKernelGGL(kernel, grid, block, shmem, stream, ...) \
  kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)

/* ---- warp shuffles ---------------------------------------------------------------------------
 * HIP 5.x has only the mask-less __shfl_down(var, delta, width = warpSize); CUDA only the _sync
 * form. All lanes of the warp must call it (the full mask). */
#if defined(__CUDACC__)
template <class T>
__device__ __forceinline__ T __shfl_down(T var, unsigned int delta, int width = warpSize) {
  return __shfl_down_sync(0xffffffffu, var, delta, width);
}
#endif

#endif /* GLP_HIP_ON_CUDA_H */
