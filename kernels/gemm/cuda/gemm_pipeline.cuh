// gemm / gemm_f32, CUDA: the cp.async slab pipeline shared by the tensor-core kernel
// (gemm_mma.cuh) and the asynchronous-copy SIMT kernel (gemm_async.cuh). sm_80 and later.
//
//   copy_async<BYTES>(dst, src, inside)  one 4-, 8- or 16-byte copy from global to shared memory
//                                        without passing through registers; `inside` false writes
//                                        zeros (no byte of `src` is read then, but it must still
//                                        be a valid address)
//   run_slabs<STAGES>(first, last, load, compute)
//                                        the k slabs [first, last) of one tile, STAGES in flight:
//                                        load(stage, slab) issues a slab's copies into a stage,
//                                        compute(stage) multiplies the slab there; slab s+STAGES-1
//                                        is copied while slab s is multiplied, one barrier per slab.
//                                        Returns with every copy landed and the stages free.
#ifndef GLP_GEMM_PIPELINE_CUH
#define GLP_GEMM_PIPELINE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

namespace glp_gemm_pipeline {

template <int BYTES>
__device__ __forceinline__ void copy_async(void* dst, const void* src, bool inside) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "gemm: cp.async copies 4, 8 or 16 bytes");
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(s), "l"(src), "n"(BYTES), "r"(inside ? BYTES : 0));
}
__device__ __forceinline__ void commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void wait_pending() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

template <int STAGES, class Load, class Compute>
__device__ __forceinline__ void run_slabs(int64_t first, int64_t last, const Load& load, const Compute& compute) {
  // Prologue: slabs first..first+STAGES-2 in flight (an empty group where there is no such slab).
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) {
    if (first + s < last) load(s, first + s);
    commit();
  }
  for (int64_t s = first; s < last; ++s) {
    wait_pending<STAGES - 2>();  // slab s has landed (this thread's copies)...
    __syncthreads();             // ...and everyone's; the stage of slab s-1 is free again
    const int64_t next = s + STAGES - 1;
    if (next < last) load(static_cast<int>((next - first) % STAGES), next);
    commit();
    compute(static_cast<int>((s - first) % STAGES));
  }
  wait_pending<0>();
  __syncthreads();  // the next tile's prologue reuses the stages
}

}  // namespace glp_gemm_pipeline

#endif  // GLP_GEMM_PIPELINE_CUH
