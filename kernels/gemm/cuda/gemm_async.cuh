// gemm / gemm_f32, the asynchronous-copy SIMT path of the CUDA template: C = alpha*A*B + beta*C
// with the FMA units, chosen by GLP_ASYNC = 1 (GLP_MMA = 0). Same problem, arguments, argument
// checks, register tile and write-back as the register-staged kernel of ../cuda_hip/gemm_kernels.hpp
// (its make_plan, problem, compute_slab and store_tile are reused); CUDA only (cp.async, sm_80+).
//
// What differs from the register-staged kernel:
//   the slabs go from global to shared memory with cp.async (4-byte copies for A, VEC-wide copies
//   for B when the shape and addresses allow, zero-filled outside the matrix), STAGES slabs in
//   flight in dynamic shared memory: slab s+STAGES-1 is copied while slab s is multiplied, with one
//   barrier per slab and no staging registers;
//   A's copies walk 8 consecutive k of 4 consecutive rows per warp (32-byte pieces of 4 rows in
//   global memory), stored transposed (As[p][i]) without bank conflicts for float;
//   a thread's TM x TN tile is split in groups of 16 bytes (4 floats, 2 doubles) spread across the
//   warp tile, so that a warp's 16-byte shared loads of one group are consecutive.
//
// Parameters: GLP_BM, GLP_BN, GLP_BK, GLP_WM, GLP_WN, GLP_TM, GLP_TN, GLP_VEC, GLP_SPLITK,
// GLP_STREAMK as for the register-staged kernel (VEC is the width of B's copies); GLP_STAGES 2..4
// slabs in flight;
// GLP_BLOCKS_PER_SM the blocks the compiler must fit on one SM (__launch_bounds__' minimum: above
// 1 it caps the registers per thread, trading spills for more warps to hide latency).
// Shared memory: STAGES*BK*(LDA + LDB) reals (the launcher raises the kernel's limit).
#ifndef GLP_GEMM_ASYNC_CUH
#define GLP_GEMM_ASYNC_CUH

#include <cuda_runtime.h>

#include "../cuda_hip/gemm_kernels.hpp"
#include "gemm_launch.cuh"
#include "gemm_pipeline.cuh"

#ifndef GLP_STAGES
#define GLP_STAGES 3
#endif
#ifndef GLP_BLOCKS_PER_SM
#define GLP_BLOCKS_PER_SM 1
#endif
#if GLP_STAGES < 2 || GLP_STAGES > 4
#error "gemm: GLP_STAGES must be 2, 3 or 4"
#endif
#if GLP_BLOCKS_PER_SM < 1 || GLP_BLOCKS_PER_SM > 8
#error "gemm: GLP_BLOCKS_PER_SM must be 1..8"
#endif
#if GLP_MMA != 0
#error "gemm: GLP_ASYNC is the SIMT kernel's copy path (GLP_MMA = 0)"
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "gemm: cp.async needs sm_80 or later"
#endif

namespace glp_gemm_async {

using namespace glp_gemm;
using glp_gemm_pipeline::copy_async;
using glp_gemm_pipeline::run_slabs;

constexpr int STAGES = GLP_STAGES;
constexpr int STAGE = BK * (LDA + LDB);  // reals per stage: As[p][i] (BK x LDA), then Bs[p][j] (BK x LDB)
constexpr int kSharedBytes = STAGES * STAGE * static_cast<int>(sizeof(real));
// The thread tile's groups (compute_slab, store_tile): 16 bytes each way when the tile allows.
constexpr int RG = TM % R16 == 0 ? R16 : TM, RS = (TM / RG == 1) ? 0 : WM / (TM / RG);
constexpr int CG = TN % R16 == 0 ? R16 : TN, CS = (TN / CG == 1) ? 0 : WN / (TN / CG);
// A's copies: 8 k x 4 rows per 32 threads; a thread keeps its k and steps RSA rows per copy.
constexpr int CA = (BM * BK + NT - 1) / NT, RSA = NT / BK;
// B's copies: VEC-wide pieces, PB per row; a thread keeps its column (NT >= PB) or steps QB pieces.
constexpr int PB = BN / VEC, CB = (BK * PB + NT - 1) / NT;
constexpr int QB = NT >= PB ? 1 : PB / NT, RSB = NT >= PB ? NT / PB : 0;

static_assert(BK % 8 == 0 && NT % (4 * BK) == 0, "gemm: GLP_ASYNC needs BK % 8 == 0 and NT % (4*BK) == 0");
static_assert(kSharedBytes <= 227 * 1024, "gemm: the shared slabs exceed 227 KiB");

// One thread's share of every slab's copies, from addresses computed once per tile.
struct copier {
  const real* a;                     // A at (m0 + ra, ca)
  const real* b;                     // B at (rb, n0 + cb)
  int64_t a_rows_left, b_cols_left;  // rows of A from the thread's first on; columns of B from its first on
  int64_t a_step;                    // RSA rows of A
  int sa, sb;                        // shared offsets of the thread's first A and B element
  int ca, rb;
  __device__ __forceinline__ copier(const real* A, const real* B, const problem& P, int64_t m0, int64_t n0, int tid) {
    // tid = c_lo + 8*(r_lo + 4*(ch + (BK/8)*rg)): k = 8*ch + c_lo, row = 4*rg + r_lo
    const int c_lo = tid % 8, r_lo = (tid / 8) % 4, ch = (tid / 32) % (BK / 8), rg = tid / (4 * BK);
    const int ra = 4 * rg + r_lo;
    ca = 8 * ch + c_lo;
    const int cb = (NT >= PB ? tid % PB : tid) * VEC;
    rb = NT >= PB ? tid / PB : 0;
    a = A + (m0 + ra) * P.k + ca;
    b = B + static_cast<int64_t>(rb) * P.n + n0 + cb;
    a_rows_left = P.m - m0 - ra;
    b_cols_left = P.n - n0 - cb;
    a_step = static_cast<int64_t>(RSA) * P.k;
    sa = ca * LDA + ra;
    sb = rb * LDB + cb;
  }
  __device__ __forceinline__ void load(real* stage, const real* A, const real* B, const problem& P, int64_t s, int tid) const {
    constexpr int E = static_cast<int>(sizeof(real));
    const int64_t k0 = s * BK;
    real* as = stage;
    real* bs = stage + BK * LDA;
    const bool acol = k0 + ca < P.k;
    const real* ap = a + k0;
#pragma unroll
    for (int j = 0; j < CA; ++j) {
      if ((j + 1) * NT <= BM * BK || tid + j * NT < BM * BK) {
        const bool in = acol && j * RSA < a_rows_left;
        copy_async<E>(as + sa + j * RSA, in ? ap + j * a_step : A, in);
      }
    }
    const int64_t rows_left = P.k - k0 - rb;
    const real* bp = b + k0 * P.n;
#pragma unroll
    for (int j = 0; j < CB; ++j) {
      if ((j + 1) * NT <= BK * PB || tid + j * NT < BK * PB) {
        const int r = NT >= PB ? j * RSB : j / QB, c = NT >= PB ? 0 : (j % QB) * NT * VEC;
        real* dst = bs + sb + r * LDB + c;
        const real* src = bp + static_cast<int64_t>(r) * P.n + c;
        if constexpr (VEC > 1 && VEC * E <= 16) {
          if (P.vec_b) {  // n % VEC == 0: the piece is wholly inside or outside
            const bool in = r < rows_left && c < b_cols_left;
            copy_async<VEC * E>(dst, in ? src : B, in);
            continue;
          }
        }
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
          const bool in = r < rows_left && c + v < b_cols_left;
          copy_async<E>(dst + v, in ? src + v : B, in);
        }
      }
    }
  }
};

// Grid: x over column tiles, y over row tiles (grid-stride in both), z over the k splits.
__global__ void __launch_bounds__(NT, GLP_BLOCKS_PER_SM)
    gemm_async_kernel(const real* __restrict__ A, const real* __restrict__ B, const real* __restrict__ alpha_p,
                      const real* __restrict__ beta_p, real* __restrict__ C, problem P) {
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  real* const smem = reinterpret_cast<real*>(smem_bytes);
  const int tid = threadIdx.x;
  const int warp = tid / WT, lane = tid % WT;
  // The thread's first row and column inside the block tile; its groups follow at RS rows and CS columns.
  const int row0 = (warp / NWN) * WM + (lane / (WN / TN)) * RG;
  const int col0 = (warp % NWN) * WN + (lane % (WN / TN)) * CG;
  const real alpha = *alpha_p, beta = *beta_p;

  for_each_tile(P, [&](int64_t m0, int64_t n0, int64_t first, int64_t last, bool adds) {
    const copier cp(A, B, P, m0, n0, tid);
    real acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = real(0);
    run_slabs<STAGES>(
        first, last, [&](int stage, int64_t slab) { cp.load(smem + stage * STAGE, A, B, P, slab, tid); },
        [&](int stage) {
          const real* as = smem + stage * STAGE;
          compute_slab<RG, RS, CG, CS>(acc, as, as + BK * LDA, row0, col0);
        });
    await_turn(P, m0, n0, first);
    store_tile<RG, RS, CG, CS>(C, acc, P, m0 + row0, n0 + col0, alpha, beta, adds);
    pass_turn(P, m0, n0, first, last);
  });
}

// Launches the kernel for a plan of glp_gemm::make_plan (when the blocks add, after the launcher's
// scale_c): 0, or 6 when CUDA refused.
inline int launch(const plan& p, cudaStream_t stream) {
  return glp_gemm_launch::launch_product(gemm_async_kernel, p, p.block, kSharedBytes, stream);
}

}  // namespace glp_gemm_async

#endif  // GLP_GEMM_ASYNC_CUH
