// gemm / gemm_f32, tuned CUDA template: C = alpha*A*B + beta*C, row-major, element type GLP_REAL
// (double for gemm, float for gemm_f32: the family's flags set it). A thin launcher: the kernel,
// the parameters (GLP_BM, GLP_BN, GLP_BK, GLP_WM, GLP_WN, GLP_TM, GLP_TN, GLP_DOUBLE_BUFFER,
// GLP_VEC, GLP_SPLITK, GLP_STREAMK) and the argument checks are in ../cuda_hip/gemm_kernels.hpp,
// shared with the HIP template hip/gemm.hip. GLP_ASYNC = 1 runs the same SIMT kernel with its slabs
// copied by cp.async (gemm_async.cuh: GLP_STAGES slabs in flight, GLP_BLOCKS_PER_SM); GLP_MMA > 0
// (float64 only) the FP64 tensor-core kernel of gemm_mma.cuh instead (GLP_STAGES, and the same BM,
// BN, BK, WM, WN; docs/gemm.md). gemm_launch.cuh launches each of them (stream-K's grid, the turn
// counters of stream-K in k order, and the scaling pass scale_c before blocks that add into C
// atomically, with the product started beside it on sm_90).
// args: A, B, alpha, beta (in; alpha and beta one element each, read on the device), C (inout),
// device pointers; sizes: m, n, k. Launches asynchronously on `stream`.
//
// Extra parameter points that tools/check-gpu-templates.sh compiles (besides the defaults):
// glp-check-point: -DGLP_REAL=double -DGLP_MMA=0
// glp-check-point: -DGLP_REAL=double -DGLP_BM=32 -DGLP_BN=32 -DGLP_BK=32 -DGLP_WM=16 -DGLP_WN=16 -DGLP_TM=2 -DGLP_TN=4 -DGLP_DOUBLE_BUFFER=0 -DGLP_VEC=1
// glp-check-point: -DGLP_REAL=double -DGLP_BM=128 -DGLP_BN=128 -DGLP_BK=8 -DGLP_WM=64 -DGLP_WN=32 -DGLP_TM=8 -DGLP_TN=8 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=4
// glp-check-point: -DGLP_REAL=float -DGLP_BM=256 -DGLP_BN=128 -DGLP_BK=8 -DGLP_WM=64 -DGLP_WN=32 -DGLP_TM=8 -DGLP_TN=8 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=4
// glp-check-point: -DGLP_REAL=float -DGLP_BM=64 -DGLP_BN=32 -DGLP_BK=32 -DGLP_WM=64 -DGLP_WN=16 -DGLP_TM=8 -DGLP_TN=1 -DGLP_DOUBLE_BUFFER=0 -DGLP_VEC=2
// glp-check-point: -DGLP_REAL=float -DGLP_SPLITK=3 -DGLP_BM=128 -DGLP_BN=128 -DGLP_BK=8 -DGLP_WM=64 -DGLP_WN=32 -DGLP_TM=8 -DGLP_TN=8 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=4
// glp-check-point: -DGLP_REAL=float
// glp-check-point: -DGLP_REAL=float -DGLP_STREAMK=0 -DGLP_SPLITK=3
// glp-check-point: -DGLP_REAL=float -DGLP_ASYNC=0 -DGLP_STREAMK=1 -DGLP_BM=128 -DGLP_BN=128 -DGLP_BK=8 -DGLP_WM=64 -DGLP_WN=32 -DGLP_TM=8 -DGLP_TN=8 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=4
// glp-check-point: -DGLP_REAL=double -DGLP_STREAMK=1
// glp-check-point: -DGLP_REAL=double -DGLP_STREAMK=2
// glp-check-point: -DGLP_REAL=float -DGLP_STREAMK=2
// glp-check-point: -DGLP_REAL=float -DGLP_ASYNC=0 -DGLP_STREAMK=2 -DGLP_BM=64 -DGLP_BN=64 -DGLP_BK=16 -DGLP_WM=32 -DGLP_WN=32 -DGLP_TM=4 -DGLP_TN=8 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=2
// glp-check-point: -DGLP_REAL=double -DGLP_MMA=0 -DGLP_STREAMK=1
// glp-check-point: -DGLP_REAL=float -DGLP_ASYNC=1 -DGLP_STAGES=3 -DGLP_BM=128 -DGLP_BN=128 -DGLP_BK=8 -DGLP_WM=64 -DGLP_WN=32 -DGLP_TM=8 -DGLP_TN=8 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=4
// glp-check-point: -DGLP_REAL=float -DGLP_ASYNC=1 -DGLP_STAGES=4 -DGLP_BLOCKS_PER_SM=3 -DGLP_SPLITK=2 -DGLP_BM=64 -DGLP_BN=256 -DGLP_BK=32 -DGLP_WM=32 -DGLP_WN=64 -DGLP_TM=4 -DGLP_TN=8 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=1
// glp-check-point: -DGLP_REAL=double -DGLP_ASYNC=1 -DGLP_STAGES=2 -DGLP_BM=64 -DGLP_BN=64 -DGLP_BK=16 -DGLP_WM=32 -DGLP_WN=16 -DGLP_TM=4 -DGLP_TN=4 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=2
// glp-check-point: -DGLP_REAL=double -DGLP_ASYNC=1 -DGLP_STAGES=3 -DGLP_BM=32 -DGLP_BN=128 -DGLP_BK=8 -DGLP_WM=16 -DGLP_WN=64 -DGLP_TM=2 -DGLP_TN=8 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=4
// glp-check-point: -DGLP_REAL=double -DGLP_MMA=1 -DGLP_STAGES=2 -DGLP_BLOCKS_PER_SM=4 -DGLP_BM=64 -DGLP_BN=64 -DGLP_BK=8 -DGLP_WM=32 -DGLP_WN=32 -DGLP_TM=1 -DGLP_TN=1 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=1
// glp-check-point: -DGLP_REAL=double -DGLP_MMA=2 -DGLP_STAGES=3 -DGLP_SPLITK=2 -DGLP_BLOCKS_PER_SM=2 -DGLP_BM=128 -DGLP_BN=128 -DGLP_BK=16 -DGLP_WM=64 -DGLP_WN=32 -DGLP_TM=1 -DGLP_TN=1 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=1
// glp-check-point: -DGLP_REAL=double -DGLP_MMA=4 -DGLP_STAGES=3 -DGLP_BM=128 -DGLP_BN=128 -DGLP_BK=32 -DGLP_WM=64 -DGLP_WN=32 -DGLP_TM=1 -DGLP_TN=1 -DGLP_DOUBLE_BUFFER=1 -DGLP_VEC=1
#include <cuda_runtime.h>

#include "glp_kernel.h"

// float32 defaults (used only where a parameter is not given; the tile parameters of
// ../cuda_hip/gemm_kernels.hpp otherwise): the best point measured on an H100 at the `tune` shape,
// stream-K with the scaling pass overlapped, 0.89x of cuBLAS (docs/BENCHMARKS.md, "Stream-K in the
// space"), which a search starts from (`template_first`). GLP_F32_<type> tells the element types
// apart in the preprocessor.
#define GLP_F32_float 1
#define GLP_F32_double 0
#define GLP_JOIN_(a, b) a##b
#define GLP_JOIN(a, b) GLP_JOIN_(a, b)
#if defined(GLP_REAL) && GLP_JOIN(GLP_F32_, GLP_REAL)
#ifndef GLP_ASYNC
#define GLP_ASYNC 1
#endif
#ifndef GLP_BM
#define GLP_BM 64
#endif
#ifndef GLP_BN
#define GLP_BN 128
#endif
#ifndef GLP_WM
#define GLP_WM 64
#endif
#ifndef GLP_WN
#define GLP_WN 32
#endif
#ifndef GLP_TM
#define GLP_TM 8
#endif
#ifndef GLP_TN
#define GLP_TN 8
#endif
#ifndef GLP_VEC
#define GLP_VEC 1
#endif
#ifndef GLP_SPLITK
#define GLP_SPLITK 1
#endif
#ifndef GLP_STREAMK
#define GLP_STREAMK 1
#endif
#ifndef GLP_STAGES
#define GLP_STAGES 4
#endif
#ifndef GLP_BLOCKS_PER_SM
#define GLP_BLOCKS_PER_SM 3
#endif
#endif
// float64 defaults where every architecture nvcc builds for is sm_90 or later (__CUDA_ARCH_LIST__,
// which the host and the device pass both see; its first entry is the lowest) and no kernel is
// named: the tensor-core kernel at the best point measured on an H100 at the `tune` shape, 0.92x of
// cuBLAS (docs/BENCHMARKS.md, "dgemm: where the template's best points lie"; m16n8k8 needs sm_90):
// 64 x 64 x 16 blocks (BM, BN, BK, WM and SPLITK 1 as ../cuda_hip/gemm_kernels.hpp's defaults) of
// 32 x 32 warp tiles, 2 stages, 4 blocks per SM. Elsewhere, or with GLP_MMA given, the SIMT defaults.
#define GLP_FIRST_ARCH_(a, ...) a
#define GLP_FIRST_ARCH(...) GLP_FIRST_ARCH_(__VA_ARGS__, 0)
#if (!defined(GLP_REAL) || !GLP_JOIN(GLP_F32_, GLP_REAL)) && !defined(GLP_MMA) && defined(__CUDA_ARCH_LIST__)
#if GLP_FIRST_ARCH(__CUDA_ARCH_LIST__) >= 900
#define GLP_MMA 3
#ifndef GLP_WN
#define GLP_WN 32
#endif
#ifndef GLP_TM  // TM, TN, VEC: the values the tensor-core points hold (family.toml's constraints)
#define GLP_TM 1
#endif
#ifndef GLP_TN
#define GLP_TN 1
#endif
#ifndef GLP_VEC
#define GLP_VEC 1
#endif
#ifndef GLP_STAGES
#define GLP_STAGES 2
#endif
#ifndef GLP_BLOCKS_PER_SM
#define GLP_BLOCKS_PER_SM 4
#endif
#endif
#endif
#include "../cuda_hip/gemm_kernels.hpp"
#include "gemm_launch.cuh"
#if GLP_MMA
#include "gemm_mma.cuh"
#elif GLP_ASYNC
#include "gemm_async.cuh"
#endif
// galapagos:evolve-begin (the LLM proposer may rewrite what follows; docs/llm.md)

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  glp_gemm::plan p;
  if (const int rc = glp_gemm::make_plan(args, nargs, sizes, p)) return rc;
  if (p.empty) return 0;
#if GLP_MMA
  return glp_gemm_mma::launch(p, static_cast<cudaStream_t>(stream));
#elif GLP_ASYNC
  return glp_gemm_async::launch(p, static_cast<cudaStream_t>(stream));
#else
  return glp_gemm_launch::launch_product(glp_gemm::gemm_kernel, p, p.block, 0, static_cast<cudaStream_t>(stream));
#endif
}
// galapagos:evolve-end
