// gemm (float64), the tensor-core path of the CUDA template: C = alpha*A*B + beta*C on the FP64
// tensor cores (mma.sync with f64 operands), chosen by GLP_MMA > 0. Same problem, arguments and
// argument checks as the SIMT kernel in ../cuda_hip/gemm_kernels.hpp (its glp_gemm::make_plan and
// glp_gemm::problem are reused); CUDA only: AMD's matrix cores have other instructions.
//
// Structure:
//   a block computes a BM x BN tile of C with (BM/WM) x (BN/WN) warps, each a WM x WN warp tile
//   made of (WM/MR) x (WN/8) tensor-core tiles of MR x 8 (MR = 8 for m8n8k4, else 16);
//   the k dimension is walked in BK-deep slabs, STAGES slabs in flight: slab s+STAGES-1 is being
//   copied (cp.async, 8 bytes per element, zero-filled outside the matrix; a thread's copies step
//   at fixed strides from addresses computed once per tile) while slab s is multiplied. A and B
//   keep their row-major layout in shared memory, rows padded by 4 doubles so
//   that the fragment loads of a half warp hit 16 distinct banks;
//   the accumulators stay in registers; the write-back masks the matrix's edges.
//
// Parameters (-DGLP_<NAME>=<int>):
//   GLP_MMA      1 m8n8k4 (sm_80 and later; half rate on sm_90), 2 m16n8k4, 3 m16n8k8,
//                4 m16n8k16 (sm_90 and later).
//   GLP_STAGES   slabs in flight (2, 3 or 4).
//   GLP_BLOCKS_PER_SM  blocks the compiler must fit on one SM (__launch_bounds__' minimum): above 1
//                it caps the registers per thread, trading spills for more warps in flight.
//   GLP_BM, GLP_BN, GLP_BK, GLP_WM, GLP_WN, GLP_SPLITK, GLP_STREAMK as for the SIMT kernel; BK a
//                multiple of the shape's k.
// The shared slabs take STAGES*(BM*(BK+4) + BK*(BN+4))*8 bytes of dynamic shared memory (the
// launcher raises the kernel's limit); the accumulators WM*WN/32 doubles per thread.
#ifndef GLP_GEMM_MMA_CUH
#define GLP_GEMM_MMA_CUH

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
#if GLP_MMA < 1 || GLP_MMA > 4
#error "gemm: GLP_MMA must be 0 (SIMT) or 1..4 (tensor-core shapes)"
#endif
#if GLP_STAGES < 2 || GLP_STAGES > 4
#error "gemm: GLP_STAGES must be 2, 3 or 4"
#endif
#if GLP_BLOCKS_PER_SM < 1 || GLP_BLOCKS_PER_SM > 8
#error "gemm: GLP_BLOCKS_PER_SM must be 1..8"
#endif

namespace glp_gemm_mma {

static_assert(sizeof(GLP_REAL) == 8, "gemm: the tensor-core path (GLP_MMA > 0) is for float64 only");
using glp_gemm::problem;
using glp_gemm_pipeline::copy_async;

constexpr int BM = GLP_BM, BN = GLP_BN, BK = GLP_BK, WM = GLP_WM, WN = GLP_WN, STAGES = GLP_STAGES;
constexpr int MR = GLP_MMA == 1 ? 8 : 16;                             // rows of one mma tile
constexpr int KK = GLP_MMA == 3 ? 8 : GLP_MMA == 4 ? 16 : 4;          // its depth
constexpr int NA = MR * KK / 32, NB = KK * 8 / 32, ND = MR * 8 / 32;  // fragment sizes per thread
constexpr int MI = WM / MR, NJ = WN / 8;                              // mma tiles per warp tile
constexpr int NWARPS = (BM / WM) * (BN / WN), NT = 32 * NWARPS;       // warps and threads per block
constexpr int LDA = BK + 4, LDB = BN + 4;                             // shared row lengths (doubles)
constexpr int STAGE = BM * LDA + BK * LDB;                            // doubles per stage
constexpr int kSharedBytes = STAGES * STAGE * 8;

static_assert(BM % WM == 0 && BN % WN == 0, "gemm: the warp tile must divide the block tile");
static_assert(WM % MR == 0 && WN % 8 == 0, "gemm: the warp tile must be whole tensor-core tiles (WM % 16, WN % 8)");
static_assert(BK % KK == 0, "gemm: BK must be a multiple of the tensor-core shape's k");
static_assert(NT >= 32 && NT <= 1024, "gemm: (BM/WM)*(BN/WN) warps must make 32..1024 threads");
static_assert(kSharedBytes <= 227 * 1024, "gemm: the shared slabs exceed 227 KiB");

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "gemm: the FP64 tensor cores need sm_80 or later"
#endif
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900 && GLP_MMA > 1
#error "gemm: the m16n8 FP64 shapes (GLP_MMA 2..4) need sm_90 or later"
#endif

// D += A*B for one MR x 8 x KK tile. Fragment layout (lane = 4*g + t): A element i is at row
// g + 8*(i%2) (MR = 16) or g (MR = 8), column t + 4*(i / (MR/8)); B element i at row t + 4*i,
// column g; D element i at row g + 8*(i/2), column 2*t + i%2 (bench/dmma_shapes.cu checks them).
__device__ __forceinline__ void mma(double (&d)[ND], const double (&a)[NA], const double (&b)[NB]) {
#if GLP_MMA == 1
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a[0]), "d"(b[0]));
#elif GLP_MMA == 2
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(b[0]));
#elif GLP_MMA == 3
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#else
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, "
      "{%0,%1,%2,%3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]),
        "d"(b[3]));
#endif
}

// The copies of one slab: a thread walks fixed strides from addresses computed once per tile, so a
// copy costs an address add and a bounds test (no divisions, no 64-bit products per element).
// Element e = tid + j*NT of a slab: in A (BM x BK, NT % BK == 0) column tid % BK, row
// tid / BK + j*NT/BK; in B (BK x BN) column tid % BN, row tid / BN + j*NT/BN when NT >= BN,
// else column tid + (j % (BN/NT))*NT, row j / (BN/NT).
struct copier {
  static constexpr int CA = (BM * BK + NT - 1) / NT, CB = (BK * BN + NT - 1) / NT;
  static constexpr int RSA = NT / BK;
  static constexpr int QB = NT >= BN ? 1 : BN / NT, RSB = NT >= BN ? NT / BN : 0;
  const double* a;                   // A at (m0 + ra, ca)
  const double* b;                   // B at (rb, n0 + cb)
  int64_t a_rows_left, b_cols_left;  // rows of A from the first row on; columns of B from the first on
  int sa, sb;                        // shared offsets of the thread's first element
  int ca, rb;
  __device__ __forceinline__ copier(const double* A, const double* B, const problem& P, int64_t m0, int64_t n0, int tid) {
    static_assert(NT % BK == 0, "gemm: the copier needs NT % BK == 0 (NT >= 64, BK <= 32)");
    const int ra = tid / BK;
    ca = tid % BK;
    const int cb = NT >= BN ? tid % BN : tid;
    rb = NT >= BN ? tid / BN : 0;
    a = A + (m0 + ra) * P.k + ca;
    b = B + static_cast<int64_t>(rb) * P.n + n0 + cb;
    a_rows_left = P.m - m0 - ra;
    b_cols_left = P.n - n0 - cb;
    sa = ra * LDA + ca;
    sb = rb * LDB + cb;
  }
  __device__ __forceinline__ void load(double* stage, const double* A, const double* B, const problem& P, int64_t s,
                                       int tid) const {
    const int64_t k0 = s * BK;
    double* as = stage;
    double* bs = stage + BM * LDA;
    const bool acol = k0 + ca < P.k;
    const double* ap = a + k0;
#pragma unroll
    for (int j = 0; j < CA; ++j) {
      if ((j + 1) * NT <= BM * BK || tid + j * NT < BM * BK) {
        const bool in = acol && j * RSA < a_rows_left;
        copy_async<8>(as + sa + j * RSA * LDA, in ? ap + static_cast<int64_t>(j * RSA) * P.k : A, in);
      }
    }
    const int64_t rows_left = P.k - k0 - rb;
    const double* bp = b + k0 * P.n;
#pragma unroll
    for (int j = 0; j < CB; ++j) {
      if ((j + 1) * NT <= BK * BN || tid + j * NT < BK * BN) {
        const int r = NT >= BN ? j * RSB : j / QB, c = NT >= BN ? 0 : (j % QB) * NT;
        const bool in = r < rows_left && c < b_cols_left;
        copy_async<8>(bs + sb + r * LDB + c, in ? bp + static_cast<int64_t>(r) * P.n + c : B, in);
      }
    }
  }
};

__global__ void __launch_bounds__(NT, GLP_BLOCKS_PER_SM)
    gemm_mma_kernel(const double* __restrict__ A, const double* __restrict__ B, const double* __restrict__ alpha_p,
                    const double* __restrict__ beta_p, double* __restrict__ C, problem P) {
  extern __shared__ __align__(16) double smem[];
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const int g = lane / 4, t = lane % 4;
  const int wm0 = (warp / (BN / WN)) * WM, wn0 = (warp % (BN / WN)) * WN;  // the warp tile in the block tile
  const double alpha = *alpha_p, beta = *beta_p;
  glp_gemm::for_each_tile(P, [&](int64_t m0, int64_t n0, int64_t first, int64_t last, bool adds) {
    const copier cp(A, B, P, m0, n0, tid);
    double acc[MI][NJ][ND];
#pragma unroll
    for (int i = 0; i < MI; ++i)
#pragma unroll
      for (int j = 0; j < NJ; ++j)
#pragma unroll
        for (int v = 0; v < ND; ++v) acc[i][j][v] = 0.0;

    glp_gemm_pipeline::run_slabs<STAGES>(
        first, last, [&](int stage, int64_t slab) { cp.load(smem + stage * STAGE, A, B, P, slab, tid); },
        [&](int stage) {
          const double* as = smem + stage * STAGE;
          const double* bs = as + BM * LDA;
#pragma unroll
          for (int kk = 0; kk < BK; kk += KK) {
            double a[MI][NA], b[NJ][NB];
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
              for (int q = 0; q < NA; ++q) {
                const int row = wm0 + i * MR + g + (MR == 16 ? 8 * (q % 2) : 0);
                const int col = kk + t + 4 * (MR == 16 ? q / 2 : q);
                a[i][q] = as[row * LDA + col];
              }
#pragma unroll
            for (int j = 0; j < NJ; ++j)
#pragma unroll
              for (int q = 0; q < NB; ++q) b[j][q] = bs[(kk + t + 4 * q) * LDB + wn0 + j * 8 + g];
#pragma unroll
            for (int i = 0; i < MI; ++i)
#pragma unroll
              for (int j = 0; j < NJ; ++j) mma(acc[i][j], a[i], b[j]);
          }
        });

    // C = alpha*acc + beta*C (beta == 0: C is not read), only inside the matrix. Element v of
    // fragment (i, j) is C's element (row(i, v), col(j, v)).
    const auto row = [&](int i, int v) { return m0 + wm0 + i * MR + g + 8 * (v / 2); };
    const auto col = [&](int j, int v) { return n0 + wn0 + j * 8 + 2 * t + v % 2; };
    glp_gemm::await_turn(P, m0, n0, first);
    if (glp_gemm::ADDS && adds && glp_gemm::in_k_order(P)) {
      // In k order: add to what the earlier shares stored, each fragment's loads (past the SM's
      // L1) issued together before its stores.
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j) {
          double old[ND];
#pragma unroll
          for (int v = 0; v < ND; ++v)
            old[v] = row(i, v) < P.m && col(j, v) < P.n ? glp_gemm::load_fresh(C + row(i, v) * P.n + col(j, v)) : 0.0;
#pragma unroll
          for (int v = 0; v < ND; ++v)
            if (row(i, v) < P.m && col(j, v) < P.n) C[row(i, v) * P.n + col(j, v)] = alpha * acc[i][j][v] + old[v];
        }
    } else {
#pragma unroll
      for (int i = 0; i < MI; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j)
#pragma unroll
          for (int v = 0; v < ND; ++v) {
            const int64_t gi = row(i, v), gj = col(j, v);
            if (gi < P.m && gj < P.n && glp_gemm::ADDS && adds) {  // scale_c has scaled C by beta: add this share
              glp_gemm::add_into(C + gi * P.n + gj, alpha * acc[i][j][v]);
            } else if (gi < P.m && gj < P.n) {
              double* c = C + gi * P.n + gj;
              const double x = alpha * acc[i][j][v];
              *c = beta == 0.0 ? x : x + beta * *c;
            }
          }
    }
    glp_gemm::pass_turn(P, m0, n0, first, last);
  });
}

// Launches the kernel for a plan of glp_gemm::make_plan (when blocks add, after the launcher's
// scale_c): 0, or 6 when CUDA refused.
inline int launch(const glp_gemm::plan& p, cudaStream_t stream) {
  return glp_gemm_launch::launch_product(gemm_mma_kernel, p, dim3(NT, 1, 1), kSharedBytes, stream);
}

}  // namespace glp_gemm_mma

#endif  // GLP_GEMM_MMA_CUH
