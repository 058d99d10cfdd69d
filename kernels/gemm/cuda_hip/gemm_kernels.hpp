// gemm / gemm_f32, GPU kernels shared by the CUDA (cuda/gemm.cu) and HIP (hip/gemm.hip) templates:
// C = alpha*A*B + beta*C, row-major, no transposes.
//
//   A is m x k (A[i*k + p]), B is k x n (B[p*n + j]), C is m x n (C[i*n + j]); alpha and beta are
//   one-element arrays in device memory (read by the kernel). When beta == 0, C's input is not
//   read (BLAS convention). The element type is GLP_REAL (double for gemm, float for gemm_f32: the
//   family's `flags` set it, as for the CPU template); accumulation is in GLP_REAL.
//
// Plain CUDA/HIP-common device code: no runtime API calls here. Exactly one kernel,
// glp_gemm::gemm_kernel, is compiled per parameter point.
//
// Structure (the classic shared-memory tiling with a warp tile and a register tile):
//   a block computes a BM x BN tile of C; threads = (BM/TM)*(BN/TN);
//   the block tile is split into (BM/WM) x (BN/WN) warp tiles, each covered by
//   WT = (WM/TM)*(WN/TN) consecutive threads (one warp when WT equals the warp size, which the
//   family's constraints ask for); inside a warp tile, thread lane (lr, lc) owns the TM x TN
//   register tile at rows lr*TM.., columns lc*TN..;
//   for each BK-deep slab of k: the A slab (BM x BK) is stored transposed in shared memory
//   (As[p][i], rows padded by 16 bytes) and the B slab (BK x BN) as is (Bs[p][j]), so a thread
//   reads its TM A values and TN B values of one p as contiguous (16-byte vector) loads; then
//   TM*TN FMAs per p.
//   Global loads are VEC elements wide (along k for A, along n for B) when the matrix's row length
//   and base address allow it (checked at run time), element-wise with bounds checks otherwise;
//   edge tiles (m, n, k not multiples of BM, BN, BK) load zeros outside the matrix and store only
//   the elements inside C.
//
// Tunable parameters (-DGLP_<NAME>=<int>; the defaults make the file compile on its own). Every
// combination that passes the #error checks below is correct for every shape.
//   GLP_BM, GLP_BN   block tile (rows, columns of C).
//   GLP_BK           k depth of one shared-memory slab.
//   GLP_WM, GLP_WN   warp tile; BM % WM == 0, BN % WN == 0.
//   GLP_TM, GLP_TN   thread (register) tile; WM % TM == 0, WN % TN == 0.
//   GLP_DOUBLE_BUFFER 1: two shared slabs; the next slab's global loads are issued before the
//                    current slab's FMAs and stored after them, one barrier per slab.
//                    0: one slab, load / barrier / compute / barrier.
//   GLP_VEC          1, 2, 4: elements per global load (and per store of C when TN allows).
//   GLP_SPLITK       1..4: the k slabs are shared out among SPLITK blocks per tile of C (grid z),
//                    which add their partial products into C atomically after the launcher has
//                    scaled C by beta (scale_c): more blocks for shapes whose tiles fill the SMs'
//                    last wave badly. The additions' order varies from run to run (by a few
//                    roundings, far inside the tolerance and the determinism check).
//   GLP_STREAMK      0, 1 or 2: 1 shares out the tiles' k slabs, laid end to end, in equal runs
//                    among the grid's blocks (stream-K: every block does the same work, no partial
//                    last wave); a tile cut between blocks is added into C atomically after scale_c,
//                    as with SPLITK > 1 (which stream-K ignores otherwise). 2 (the CUDA launcher
//                    only; elsewhere as 1): the same runs, but the shares of a cut tile reach C one
//                    after another in k order, through the tile's turn counter (problem::turns):
//                    the share holding slab 0 writes alpha*acc + beta*C, each later one waits for
//                    the counter to reach its first slab and adds with plain loads and stores. No
//                    scaling pass, no atomic additions, the same sum on every run. A block takes its
//                    run's leading piece, the only one that may wait, last: every wait is for a
//                    block with a lower index, which never waits for a higher one. The CUDA launcher
//                    starts one block per SM slot the kernel's occupancy allows; any grid is correct.
//   GLP_MMA          0 here. The CUDA template's tensor-core kernel (cuda/gemm_mma.cuh) is chosen
//                    by GLP_MMA > 0: the SIMT kernel below and its checks are then not compiled
//                    (TM, TN, DOUBLE_BUFFER and VEC mean nothing to it), only make_plan is used.
#ifndef GLP_GEMM_KERNELS_HPP
#define GLP_GEMM_KERNELS_HPP

#include <stdint.h>

#include <type_traits>

#include "glp_kernel.h"

#ifndef GLP_REAL
#define GLP_REAL double
#endif
#ifndef GLP_BM
#define GLP_BM 64
#endif
#ifndef GLP_BN
#define GLP_BN 64
#endif
#ifndef GLP_BK
#define GLP_BK 16
#endif
#ifndef GLP_WM
#define GLP_WM 32
#endif
#ifndef GLP_WN
#define GLP_WN 16
#endif
#ifndef GLP_TM
#define GLP_TM 4
#endif
#ifndef GLP_TN
#define GLP_TN 4
#endif
#ifndef GLP_DOUBLE_BUFFER
#define GLP_DOUBLE_BUFFER 1
#endif
#ifndef GLP_VEC
#define GLP_VEC 2
#endif
#ifndef GLP_MMA
#define GLP_MMA 0
#endif
#ifndef GLP_SPLITK
#define GLP_SPLITK 1
#endif
#ifndef GLP_ASYNC
#define GLP_ASYNC 0
#endif
#if GLP_ASYNC != 0 && GLP_ASYNC != 1
#error "gemm: GLP_ASYNC must be 0 or 1"
#endif
#if GLP_SPLITK < 1 || GLP_SPLITK > 16
#error "gemm: GLP_SPLITK must be 1..16"
#endif
#ifndef GLP_STREAMK
#define GLP_STREAMK 0
#endif
#if GLP_STREAMK < 0 || GLP_STREAMK > 2
#error "gemm: GLP_STREAMK must be 0, 1 or 2"
#endif

#if GLP_BM < 1 || GLP_BN < 1 || GLP_BK < 1 || GLP_WM < 1 || GLP_WN < 1 || GLP_TM < 1 || GLP_TN < 1
#error "gemm: tile sizes must be >= 1"
#endif
#if GLP_MMA == 0
#if GLP_BM % GLP_WM != 0 || GLP_BN % GLP_WN != 0
#error "gemm: the warp tile must divide the block tile (BM % WM == 0, BN % WN == 0)"
#endif
#if GLP_WM % GLP_TM != 0 || GLP_WN % GLP_TN != 0
#error "gemm: the thread tile must divide the warp tile (WM % TM == 0, WN % TN == 0)"
#endif
#if (GLP_BM / GLP_TM) * (GLP_BN / GLP_TN) > 1024
#error "gemm: (BM/TM)*(BN/TN) threads per block must be <= 1024"
#endif
#if GLP_VEC != 1 && GLP_VEC != 2 && GLP_VEC != 4
#error "gemm: GLP_VEC must be 1, 2 or 4"
#endif
#if GLP_BK % GLP_VEC != 0 || GLP_BN % GLP_VEC != 0
#error "gemm: VEC must divide BK and BN"
#endif
#if GLP_DOUBLE_BUFFER != 0 && GLP_DOUBLE_BUFFER != 1
#error "gemm: GLP_DOUBLE_BUFFER must be 0 or 1"
#endif
#endif  // GLP_MMA == 0

namespace glp_gemm {

using real = GLP_REAL;
static_assert(std::is_same<real, double>::value || std::is_same<real, float>::value, "gemm: GLP_REAL must be double or float");
constexpr int32_t kDtype = std::is_same<real, double>::value ? GLP_FLOAT64 : GLP_FLOAT32;

constexpr int BM = GLP_BM, BN = GLP_BN, BK = GLP_BK;
constexpr int WM = GLP_WM, WN = GLP_WN, TM = GLP_TM, TN = GLP_TN;
constexpr int VEC = GLP_VEC;
constexpr int NT = (BM / TM) * (BN / TN);                 // threads per block
constexpr int WT = (WM / TM) * (WN / TN);                 // threads per warp tile
constexpr int NWN = BN / WN;                              // warp tiles across the block tile
constexpr int R16 = 16 / static_cast<int>(sizeof(real));  // reals per 16 bytes
constexpr int round16(int x) { return (x + R16 - 1) / R16 * R16; }
constexpr int LDA = round16(BM) + R16;  // As row length: 16 bytes of padding, rows 16-byte aligned
constexpr int LDB = round16(BN);        // Bs row length: rows 16-byte aligned
constexpr int NBUF = GLP_DOUBLE_BUFFER ? 2 : 1;
constexpr int A_VECS = BM * BK / VEC;  // VEC-wide pieces of one A slab
constexpr int B_VECS = BK * BN / VEC;
constexpr int LA = (A_VECS + NT - 1) / NT;  // pieces per thread
constexpr int LB = (B_VECS + NT - 1) / NT;
constexpr int kSharedBytes = NBUF * BK * (LDA + LDB) * static_cast<int>(sizeof(real));
#if GLP_MMA == 0 && GLP_ASYNC == 0
static_assert(kSharedBytes <= 48 * 1024, "gemm: the shared slabs exceed 48 KiB of static shared memory (BK*(BM+BN) too large)");
#endif

struct problem {
  int64_t m, n, k;
  bool vec_a, vec_b, vec_c;  // VEC-wide global accesses allowed (row lengths and base addresses)
  int64_t kper;              // k slabs (of BK) per split: block z takes slabs [z*kper, (z+1)*kper)
  unsigned* turns;           // GLP_STREAMK 2: per tile of C, the k slabs already in C (0 between
                             // calls); nullptr (adds atomically after scale_c) unless the launcher sets it
};

constexpr int SPLITK = GLP_SPLITK;
constexpr bool STREAMK = GLP_STREAMK != 0;
constexpr bool STREAMK_IN_ORDER = GLP_STREAMK == 2;  // with problem::turns: shares reach C in k order
// Blocks may add their shares into C: after the launcher's scale_c has scaled it by beta (k splits,
// stream-K), or in k order after the share that writes beta*C (stream-K with problem::turns).
constexpr bool ADDS = SPLITK > 1 || STREAMK;

// Tiles of C (BM x BN), k slabs (BK deep) and a tile's row-major index, as the blocks count them.
__host__ __device__ inline int64_t row_tiles(const problem& P) { return (P.m + BM - 1) / BM; }
__host__ __device__ inline int64_t column_tiles(const problem& P) { return (P.n + BN - 1) / BN; }
__host__ __device__ inline int64_t k_slabs(const problem& P) { return (P.k + BK - 1) / BK; }
__host__ __device__ inline int64_t tile_index(const problem& P, int64_t m0, int64_t n0) {
  return m0 / BM * column_tiles(P) + n0 / BN;
}
// Stream-K in k order: GLP_STREAMK 2 with the launcher's turn counters (else shares add atomically).
__host__ __device__ inline bool in_k_order(const problem& P) { return STREAMK_IN_ORDER && P.turns != nullptr; }

// Before a block's first addition into C: waits for scale_c when the launcher let the product start
// beside it (programmatic dependent launch, sm_90 and later); returns at once otherwise.
__device__ __forceinline__ void wait_for_scale() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// The k slabs of this block's split: [first, last).
__device__ __forceinline__ void split_range(const problem& P, int64_t& first, int64_t& last) {
  const int64_t kslabs = k_slabs(P);
  first = static_cast<int64_t>(blockIdx.z) * P.kper;
  last = first + P.kper < kslabs ? first + P.kper : kslabs;
}

// Calls body(m0, n0, first, last, adds) for every BM x BN tile of C this block owns (grid-stride:
// x over column tiles, y over row tiles), with its split's k slabs [first, last) (grid z); `adds`:
// the block's share is added into C (k splits). Stream-K: the block's equal run of units (one unit
// = one tile's k slab; tile after tile, k fastest), cut at tile boundaries, whatever the grid's
// shape; every share adds (after scale_c), or with problem::turns every share but the one holding
// slab 0, and the run's leading piece, when it starts inside a tile, comes last (it is the one
// share of the run that waits for another block: await_turn).
template <class Body>
__device__ __forceinline__ void for_each_tile(const problem& P, const Body& body) {
  const int64_t mtiles = row_tiles(P), ntiles = column_tiles(P);
  if constexpr (STREAMK) {
    const int64_t blocks = static_cast<int64_t>(gridDim.x) * gridDim.y * gridDim.z;
    const int64_t b = blockIdx.x + static_cast<int64_t>(gridDim.x) * (blockIdx.y + static_cast<int64_t>(gridDim.y) * blockIdx.z);
    const int64_t kslabs = k_slabs(P), units = mtiles * ntiles * kslabs;
    const int64_t begin = b * units / blocks, end = (b + 1) * units / blocks;
    const bool in_order = in_k_order(P);
    // The leading piece [begin, lead_end) waits in k order for the block before: it comes last.
    const int64_t next_tile = begin < end ? (begin / kslabs + 1) * kslabs : end;
    const int64_t lead_end = in_order && begin < end && begin % kslabs != 0 ? (next_tile < end ? next_tile : end) : begin;
    for (int64_t done = 0; done < end - begin;) {  // units [lead_end, end), then [begin, lead_end)
      const int64_t u = lead_end + done < end ? lead_end + done : begin + (lead_end + done - end);
      const int64_t stop = u >= lead_end ? end : lead_end;
      const int64_t tile = u / kslabs, first = u % kslabs;
      const int64_t last = first + (stop - u) < kslabs ? first + (stop - u) : kslabs;
      body((tile / ntiles) * BM, (tile % ntiles) * BN, first, last, !in_order || first > 0);
      done += last - first;
    }
    return;
  }
  int64_t first, last;
  split_range(P, first, last);
  for (int64_t tm = blockIdx.y; tm < mtiles; tm += gridDim.y)
    for (int64_t tn = blockIdx.x; tn < ntiles; tn += gridDim.x) body(tm * BM, tn * BN, first, last, SPLITK > 1);
}

// Stream-K in k order (problem::turns): before the block stores its share [first, last) of the tile
// at (m0, n0), wait until the shares of the slabs before `first` are in C; after it, pass the turn
// on (the tile's last share resets the counter to 0 for the next call). Every thread of the block
// calls both; they return at once for shares that need no turn (a whole tile, other modes).
__device__ __forceinline__ void await_turn(const problem& P, int64_t m0, int64_t n0, int64_t first) {
  if (!in_k_order(P) || first == 0) return;
  if (threadIdx.x == 0) {
    unsigned* turn = P.turns + tile_index(P, m0, n0);
    while (atomicAdd(turn, 0u) != static_cast<unsigned>(first)) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
      __nanosleep(64);
#endif
    }
    __threadfence();
  }
  __syncthreads();
}
__device__ __forceinline__ void pass_turn(const problem& P, int64_t m0, int64_t n0, int64_t first, int64_t last) {
  const int64_t kslabs = k_slabs(P);
  if (!in_k_order(P) || (first == 0 && last == kslabs)) return;
  __threadfence();  // this thread's stores into C, before the next share's loads
  __syncthreads();
  if (threadIdx.x == 0) atomicExch(P.turns + tile_index(P, m0, n0), last == kslabs ? 0u : static_cast<unsigned>(last));
}

// A load of C that a block on another SM may have stored during this kernel (stream-K in k order):
// past this SM's L1 on CUDA, where it might still hold the line as it was; plain elsewhere.
template <typename T>
__device__ __forceinline__ T load_fresh(const T* p) {
#if defined(__CUDA_ARCH__)
  return __ldcg(p);
#else
  return *p;
#endif
}

// One element of a share that adds into C atomically, after scale_c.
__device__ __forceinline__ void add_into(real* c, real x) {
  wait_for_scale();
  atomicAdd(c, x);
}

// C = beta*C (0 when beta == 0: C's input is not read), before the blocks add into it. Grid-stride
// over rows, the block's threads across a row. On sm_90 and later it lets the product start at once
// (the product waits in wait_for_scale before it adds).
__global__ void scale_c(real* __restrict__ C, const real* __restrict__ beta_p, problem P) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  const real beta = *beta_p;
  for (int64_t r = blockIdx.x; r < P.m; r += gridDim.x) {
    real* row = C + r * P.n;
    for (int64_t c = threadIdx.x; c < P.n; c += blockDim.x) row[c] = beta == real(0) ? real(0) : beta * row[c];
  }
}

// ------------------------------------------------------------------------------------------------
// Vector helpers: N reals from/to 16-byte-aligned (shared) or VEC-aligned (global) addresses.
// ------------------------------------------------------------------------------------------------
// One 16-byte piece: double2 / float4 (the address must be 16-byte aligned).
__device__ __forceinline__ void load16(double* d, const double* s) {
  const double2 w = *reinterpret_cast<const double2*>(s);
  d[0] = w.x;
  d[1] = w.y;
}
__device__ __forceinline__ void load16(float* d, const float* s) {
  const float4 w = *reinterpret_cast<const float4*>(s);
  d[0] = w.x;
  d[1] = w.y;
  d[2] = w.z;
  d[3] = w.w;
}
__device__ __forceinline__ void store16(double* d, const double* s) {
  double2 w;
  w.x = s[0];
  w.y = s[1];
  *reinterpret_cast<double2*>(d) = w;
}
__device__ __forceinline__ void store16(float* d, const float* s) {
  float4 w;
  w.x = s[0];
  w.y = s[1];
  w.z = s[2];
  w.w = s[3];
  *reinterpret_cast<float4*>(d) = w;
}
// One 8-byte piece of two floats (8-byte aligned).
__device__ __forceinline__ void load8(float* d, const float* s) {
  const float2 w = *reinterpret_cast<const float2*>(s);
  d[0] = w.x;
  d[1] = w.y;
}
__device__ __forceinline__ void store8(float* d, const float* s) {
  float2 w;
  w.x = s[0];
  w.y = s[1];
  *reinterpret_cast<float2*>(d) = w;
}

// N consecutive reals: 16-byte pieces when N reals are a multiple of 16 bytes (the address is then
// 16-byte aligned by construction), one float2 for two floats, element-wise otherwise.
// (T is always real; a template parameter so that the branches not taken are not compiled.)
template <int N, typename T>
__device__ __forceinline__ void load_n(T* dst, const T* src) {
  if constexpr (N % R16 == 0) {
#pragma unroll
    for (int q = 0; q < N / R16; ++q) load16(dst + q * R16, src + q * R16);
  } else if constexpr (N == 2 && R16 == 4) {
    load8(dst, src);
  } else {
#pragma unroll
    for (int q = 0; q < N; ++q) dst[q] = src[q];
  }
}

template <int N, typename T>
__device__ __forceinline__ void store_n(T* dst, const T* src) {
  if constexpr (N % R16 == 0) {
#pragma unroll
    for (int q = 0; q < N / R16; ++q) store16(dst + q * R16, src + q * R16);
  } else if constexpr (N == 2 && R16 == 4) {
    store8(dst, src);
  } else {
#pragma unroll
    for (int q = 0; q < N; ++q) dst[q] = src[q];
  }
}

#if GLP_MMA == 0  // the SIMT kernels: shared helpers
// A thread's TM x TN tile need not be contiguous: its rows are TM/RG groups of RG consecutive rows,
// group g starting RS rows after group g-1 (likewise columns: CG, CS). The register-staged kernel
// uses one group each way; the asynchronous kernel (cuda/gemm_async.cuh) groups of 16 bytes, so
// that a warp's 16-byte shared loads of one group are consecutive (no bank conflicts).
// acc += As(the thread's rows from row0, all p) * Bs(all p, its columns from col0)
template <int RG = TM, int RS = 0, int CG = TN, int CS = 0>
__device__ __forceinline__ void compute_slab(real (&acc)[TM][TN], const real* __restrict__ as, const real* __restrict__ bs,
                                             int row0, int col0) {
  static_assert(TM % RG == 0 && TN % CG == 0, "gemm: groups must divide the thread tile");
#pragma unroll
  for (int p = 0; p < BK; ++p) {
    real a[TM], b[TN];
#pragma unroll
    for (int g = 0; g < TM / RG; ++g) load_n<RG>(a + g * RG, as + p * LDA + row0 + g * RS);
#pragma unroll
    for (int g = 0; g < TN / CG; ++g) load_n<CG>(b + g * CG, bs + p * LDB + col0 + g * CS);
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
  }
}

// C = alpha*acc + beta*C for one thread's TM x TN tile (beta == 0: C is not read), only inside the
// matrix: element (i, j) at row r0 + (i/RG)*RS + i%RG, column c0 + (j/CG)*CS + j%CG (the groups of
// compute_slab). When the block adds (`adds`: for_each_tile's) C already holds beta*C: the share is
// added atomically after scale_c, or in k order (problem::turns) to what the earlier shares stored,
// a row's loads (past the SM's L1) issued together before its stores.
template <int RG = TM, int RS = 0, int CG = TN, int CS = 0>
__device__ __forceinline__ void store_tile(real* __restrict__ C, const real (&acc)[TM][TN], const problem& P, int64_t r0,
                                           int64_t c0, real alpha, real beta, bool adds) {
  if (ADDS && adds && in_k_order(P)) {
#pragma unroll
    for (int i = 0; i < TM; ++i) {
      const int64_t gi = r0 + (i / RG) * RS + i % RG;
      if (gi >= P.m) continue;
      real* crow = C + gi * P.n;
      real old[TN];
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const int64_t gj = c0 + (j / CG) * CS + j % CG;
        old[j] = gj < P.n ? load_fresh(crow + gj) : real(0);
      }
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const int64_t gj = c0 + (j / CG) * CS + j % CG;
        if (gj < P.n) crow[gj] = alpha * acc[i][j] + old[j];
      }
    }
    return;
  }
  if (ADDS && adds) {  // scale_c has scaled C by beta: add this block's share atomically
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) {
        const int64_t gi = r0 + (i / RG) * RS + i % RG, gj = c0 + (j / CG) * CS + j % CG;
        if (gi < P.m && gj < P.n) add_into(C + gi * P.n + gj, alpha * acc[i][j]);
      }
    return;
  }
  constexpr int CV = (CG % VEC == 0) ? VEC : 1;  // elements per store
#pragma unroll
  for (int i = 0; i < TM; ++i) {
    const int64_t gi = r0 + (i / RG) * RS + i % RG;
    if (gi >= P.m) continue;
    real* crow = C + gi * P.n;
#pragma unroll
    for (int j = 0; j < TN; j += CV) {
      const int64_t gj = c0 + (j / CG) * CS + j % CG;
      if (CV > 1 && P.vec_c && gj < P.n) {  // n % VEC == 0: the whole piece is inside
        real out[CV];
        if (beta == real(0)) {
#pragma unroll
          for (int v = 0; v < CV; ++v) out[v] = alpha * acc[i][j + v];
        } else {
          real old[CV];
          load_n<CV>(old, crow + gj);
#pragma unroll
          for (int v = 0; v < CV; ++v) out[v] = alpha * acc[i][j + v] + beta * old[v];
        }
        store_n<CV>(crow + gj, out);
      } else {
#pragma unroll
        for (int v = 0; v < CV; ++v) {
          if (gj + v >= P.n) break;
          const real x = alpha * acc[i][j + v];
          crow[gj + v] = beta == real(0) ? x : x + beta * crow[gj + v];
        }
      }
    }
  }
}

#endif  // GLP_MMA == 0

#if GLP_MMA == 0 && GLP_ASYNC == 0  // the SIMT kernel, slabs staged through registers
// ------------------------------------------------------------------------------------------------
// Slab loads: global -> registers (zeros outside the matrix) and registers -> shared.
// A piece e of the slab at (m0, k0): row r = e / (BK/VEC), columns c..c+VEC-1, c = (e % (BK/VEC))*VEC.
// B piece e of the slab at (k0, n0): row r = e / (BN/VEC), columns c..c+VEC-1.
// ------------------------------------------------------------------------------------------------
__device__ __forceinline__ void load_a(real (&ra)[LA][VEC], const real* __restrict__ A, const problem& P, int64_t m0, int64_t k0,
                                       int tid) {
#pragma unroll
  for (int l = 0; l < LA; ++l) {
    const int e = tid + l * NT;
    const int r = e / (BK / VEC), c = (e % (BK / VEC)) * VEC;
    const int64_t gi = m0 + r, gp = k0 + c;
    if (e < A_VECS && gi < P.m) {
      const real* src = A + gi * P.k + gp;
      if (P.vec_a && gp < P.k) {  // k % VEC == 0: the whole piece is inside
        load_n<VEC>(ra[l], src);
      } else {
#pragma unroll
        for (int v = 0; v < VEC; ++v) ra[l][v] = gp + v < P.k ? src[v] : real(0);
      }
    } else {
#pragma unroll
      for (int v = 0; v < VEC; ++v) ra[l][v] = real(0);
    }
  }
}

__device__ __forceinline__ void load_b(real (&rb)[LB][VEC], const real* __restrict__ B, const problem& P, int64_t k0, int64_t n0,
                                       int tid) {
#pragma unroll
  for (int l = 0; l < LB; ++l) {
    const int e = tid + l * NT;
    const int r = e / (BN / VEC), c = (e % (BN / VEC)) * VEC;
    const int64_t gp = k0 + r, gj = n0 + c;
    if (e < B_VECS && gp < P.k) {
      const real* src = B + gp * P.n + gj;
      if (P.vec_b && gj < P.n) {  // n % VEC == 0
        load_n<VEC>(rb[l], src);
      } else {
#pragma unroll
        for (int v = 0; v < VEC; ++v) rb[l][v] = gj + v < P.n ? src[v] : real(0);
      }
    } else {
#pragma unroll
      for (int v = 0; v < VEC; ++v) rb[l][v] = real(0);
    }
  }
}

__device__ __forceinline__ void store_a(real* __restrict__ as, const real (&ra)[LA][VEC], int tid) {
#pragma unroll
  for (int l = 0; l < LA; ++l) {
    const int e = tid + l * NT;
    if (e < A_VECS) {
      const int r = e / (BK / VEC), c = (e % (BK / VEC)) * VEC;
#pragma unroll
      for (int v = 0; v < VEC; ++v) as[(c + v) * LDA + r] = ra[l][v];  // transposed: As[p][i]
    }
  }
}

__device__ __forceinline__ void store_b(real* __restrict__ bs, const real (&rb)[LB][VEC], int tid) {
#pragma unroll
  for (int l = 0; l < LB; ++l) {
    const int e = tid + l * NT;
    if (e < B_VECS) {
      const int r = e / (BN / VEC), c = (e % (BN / VEC)) * VEC;
#pragma unroll
      for (int v = 0; v < VEC; ++v) bs[r * LDB + c + v] = rb[l][v];
    }
  }
}

// ------------------------------------------------------------------------------------------------
// The kernel. Grid: x over column tiles, y over row tiles (grid-stride in both).
// ------------------------------------------------------------------------------------------------
__global__ void __launch_bounds__(NT)
    gemm_kernel(const real* __restrict__ A, const real* __restrict__ B, const real* __restrict__ alpha_p,
                const real* __restrict__ beta_p, real* __restrict__ C, problem P) {
  // Shared slabs, 16-byte aligned: As[buf][p][i] (BK x LDA), then Bs[buf][p][j] (BK x LDB).
  __shared__ __align__(16) real smem[NBUF * BK * (LDA + LDB)];
  real* const as0 = smem;
  real* const bs0 = smem + NBUF * BK * LDA;

  const int tid = threadIdx.x;
  const int warp = tid / WT, lane = tid % WT;
  const int row0 = (warp / NWN) * WM + (lane / (WN / TN)) * TM;  // this thread's tile inside the block tile
  const int col0 = (warp % NWN) * WN + (lane % (WN / TN)) * TN;
  const real alpha = *alpha_p, beta = *beta_p;

  for_each_tile(P, [&](int64_t m0, int64_t n0, int64_t first, int64_t kslabs, bool adds) {
    real acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = real(0);

    real ra[LA][VEC], rb[LB][VEC];
    if (first < kslabs) {
      load_a(ra, A, P, m0, first * BK, tid);
      load_b(rb, B, P, first * BK, n0, tid);
      store_a(as0, ra, tid);
      store_b(bs0, rb, tid);
    }
    __syncthreads();
    for (int64_t s = first; s < kslabs; ++s) {
#if GLP_DOUBLE_BUFFER
      // Slab s is in buffer s%2. Its successor's loads are issued first, stored into the other
      // buffer after the FMAs; the one barrier per slab orders both (see docs/gpu.md).
      const int cur = static_cast<int>((s - first) & 1);
      const bool more = s + 1 < kslabs;
      if (more) {
        load_a(ra, A, P, m0, (s + 1) * BK, tid);
        load_b(rb, B, P, (s + 1) * BK, n0, tid);
      }
      compute_slab(acc, as0 + cur * BK * LDA, bs0 + cur * BK * LDB, row0, col0);
      if (more) {
        store_a(as0 + (cur ^ 1) * BK * LDA, ra, tid);
        store_b(bs0 + (cur ^ 1) * BK * LDB, rb, tid);
      }
      __syncthreads();
#else
      if (s > first) {
        load_a(ra, A, P, m0, s * BK, tid);
        load_b(rb, B, P, s * BK, n0, tid);
        store_a(as0, ra, tid);
        store_b(bs0, rb, tid);
        __syncthreads();
      }
      compute_slab(acc, as0, bs0, row0, col0);
      __syncthreads();  // before the next slab overwrites the buffer
#endif
    }

    await_turn(P, m0, n0, first);
    store_tile(C, acc, P, m0 + row0, n0 + col0, alpha, beta, adds);
    pass_turn(P, m0, n0, first, kslabs);
  });
}

#endif  // GLP_MMA == 0 && GLP_ASYNC == 0

// ------------------------------------------------------------------------------------------------
// Host side (no runtime calls): argument checks and the launch shape.
// ------------------------------------------------------------------------------------------------
struct plan {
  const real *A = nullptr, *B = nullptr, *alpha = nullptr, *beta = nullptr;
  real* C = nullptr;
  problem P{};
  bool empty = false;  // m == 0 or n == 0: nothing to do
  dim3 grid, block;
};

inline bool aligned(const void* p, int64_t bytes) { return reinterpret_cast<uintptr_t>(p) % static_cast<uintptr_t>(bytes) == 0; }

// scale_c's grid: one block (of 256 threads) per row of C, at most 1024 (grid-stride: few enough to
// be resident beside the product's first blocks).
inline unsigned scale_blocks(const problem& P) { return static_cast<unsigned>(P.m < 1024 ? P.m : 1024); }

// args: A (m*k), B (k*n), alpha (1), beta (1), C (m*n); sizes: m, n, k. 0 or the ABI error code.
inline int make_plan(const glp_arg* args, int nargs, const int64_t* sizes, plan& p) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  for (int i = 0; i < 5; ++i)
    if (args[i].dtype != kDtype) return 2;
  const int64_t m = sizes[0], n = sizes[1], k = sizes[2];
  if (m < 0 || n < 0 || k < 0) return 3;
  if (args[0].count != m * k || args[1].count != k * n || args[2].count != 1 || args[3].count != 1 || args[4].count != m * n)
    return 4;
  p.empty = m == 0 || n == 0;
  if (p.empty) return 0;
  for (int i = 0; i < 5; ++i)
    if (args[i].data == nullptr && args[i].count > 0) return 5;
  p.A = static_cast<const real*>(args[0].data);
  p.B = static_cast<const real*>(args[1].data);
  p.alpha = static_cast<const real*>(args[2].data);
  p.beta = static_cast<const real*>(args[3].data);
  p.C = static_cast<real*>(args[4].data);
  const int64_t vb = VEC * static_cast<int64_t>(sizeof(real));
  const int64_t kslabs = (k + BK - 1) / BK;
  p.P = problem{m,
                n,
                k,
                VEC > 1 && k % VEC == 0 && aligned(p.A, vb),
                VEC > 1 && n % VEC == 0 && aligned(p.B, vb),
                VEC > 1 && n % VEC == 0 && aligned(p.C, vb),
                (kslabs + SPLITK - 1) / SPLITK,
                nullptr};
  const int64_t mt = row_tiles(p.P), nt = column_tiles(p.P);
  p.grid = dim3(static_cast<unsigned>(nt < 2147483647 ? nt : 2147483647), static_cast<unsigned>(mt < 65535 ? mt : 65535),
                static_cast<unsigned>(SPLITK));
  p.block = dim3(NT, 1, 1);
  return 0;
}

}  // namespace glp_gemm

#endif  // GLP_GEMM_KERNELS_HPP
