// gemm / gemm_f32, tuned CPU template: C = alpha*A*B + beta*C, row-major, no transposes.
//
//   A is m x k (A[i*k + p]), B is k x n (B[p*n + j]), C is m x n (C[i*n + j]); alpha and beta are
//   one-element arrays. When beta == 0, C's input is not read (BLAS convention).
//   The element type is GLP_REAL (double for the gemm family, float for gemm_f32; each family's
//   `flags` sets it). Accumulation is in GLP_REAL.
//
// Structure (BLIS-like, Goto's algorithm):
//   for pc in k, step KC                           k-blocks; the first applies beta
//     PACK: pack B[pc:pc+kc, 0:n] into NR-wide slivers (all threads, then a barrier)
//     for jc in n, step NC   \  the OpenMP work-sharing loop is chosen by PARALLEL
//       for ic in m, step MC /
//         PACK: pack A[ic:ic+mc, pc:pc+kc] into MR-tall slivers (thread-private buffer)
//         for jr in the jc block, step NR
//           for ir in the ic block, step MR
//             MR x NR register micro-tile over kc
//   Every C element is computed by one thread in one fixed order, so results are deterministic.
//
// Tunable parameters (each arrives as -DGLP_<NAME>=<int>; the defaults below make the file compile
// on its own). Every combination is correct for every shape: edges (m, n, k not multiples of any
// block or tile) are handled by zero-padded packing and a masked write-back of the micro-tile.
//   GLP_MC, GLP_NC, GLP_KC  cache blocks in elements (rounded up to multiples of MR / NR inside).
//   GLP_MR, GLP_NR          register micro-tile (1..32 rows, 1..128 columns).
//   GLP_PACK                1 = pack A and B blocks into aligned contiguous slivers;
//                           0 = the micro-kernel reads A and B in place (only edge tiles are
//                               copied to a small zero-padded buffer).
//   GLP_UNROLL              `#pragma GCC unroll` factor of the micro-kernel's k loop (1, 2, 4, 8).
//   GLP_SIMD                0 plain C++ loops (whatever -O3 auto-vectorises),
//                           1 GCC vector extensions, as wide as the host ISA allows (512/256/128
//                             bits) and dividing NR,
//                           2 intrinsics: AVX-512F when available and NR is a multiple of its
//                             width, else AVX2+FMA, else SSE2, else the vector-extension path.
//   GLP_PARALLEL            0 `omp for` over the jc (n) blocks, 1 over the ic (m) blocks,
//                           2 over (jc, ic) pairs with collapse(2).
#include <omp.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "glp_kernel.h"
// galapagos:evolve-begin (the LLM proposer may rewrite what follows; docs/llm.md)

#ifndef GLP_REAL
#define GLP_REAL double
#endif

// Defaults: a good point for each element type on a 2-core Zen 4 (AVX-512), used only when the
// parameters are not given (GLP_IS_FLOAT_<type> tells the types apart in the preprocessor).
#define GLP_CAT_(a, b) a##b
#define GLP_CAT(a, b) GLP_CAT_(a, b)
#define GLP_IS_FLOAT_double 0
#define GLP_IS_FLOAT_float 1
#if GLP_CAT(GLP_IS_FLOAT_, GLP_REAL)
#define GLP_DEFAULTS_F32 1
#else
#define GLP_DEFAULTS_F32 0
#endif

#if GLP_DEFAULTS_F32
#define GLP_DEF_NC 3072
#define GLP_DEF_KC 768
#define GLP_DEF_MR 6
#define GLP_DEF_NR 64
#define GLP_DEF_UNROLL 4
#define GLP_DEF_PARALLEL 2
#else
#define GLP_DEF_NC 1536
#define GLP_DEF_KC 384
#define GLP_DEF_MR 8
#define GLP_DEF_NR 24
#define GLP_DEF_UNROLL 2
#define GLP_DEF_PARALLEL 1
#endif
#ifndef GLP_MC
#define GLP_MC 96
#endif
#ifndef GLP_NC
#define GLP_NC GLP_DEF_NC
#endif
#ifndef GLP_KC
#define GLP_KC GLP_DEF_KC
#endif
#ifndef GLP_MR
#define GLP_MR GLP_DEF_MR
#endif
#ifndef GLP_NR
#define GLP_NR GLP_DEF_NR
#endif
#ifndef GLP_PACK
#define GLP_PACK 1
#endif
#ifndef GLP_UNROLL
#define GLP_UNROLL GLP_DEF_UNROLL
#endif
#ifndef GLP_SIMD
#define GLP_SIMD 2
#endif
#ifndef GLP_PARALLEL
#define GLP_PARALLEL GLP_DEF_PARALLEL
#endif

#if GLP_MC < 1 || GLP_NC < 1 || GLP_KC < 1
#error "gemm: MC, NC and KC must be >= 1"
#endif
#if GLP_MR < 1 || GLP_MR > 32 || GLP_NR < 1 || GLP_NR > 128
#error "gemm: MR must be 1..32 and NR 1..128"
#endif
#if GLP_PACK != 0 && GLP_PACK != 1
#error "gemm: GLP_PACK must be 0 or 1"
#endif
#if GLP_UNROLL != 1 && GLP_UNROLL != 2 && GLP_UNROLL != 4 && GLP_UNROLL != 8
#error "gemm: GLP_UNROLL must be 1, 2, 4 or 8"
#endif
#if GLP_SIMD < 0 || GLP_SIMD > 2
#error "gemm: GLP_SIMD must be 0, 1 or 2"
#endif
#if GLP_PARALLEL < 0 || GLP_PARALLEL > 2
#error "gemm: GLP_PARALLEL must be 0, 1 or 2"
#endif

#define GLP_PRAGMA_(x) _Pragma(#x)
#define GLP_PRAGMA(x) GLP_PRAGMA_(x)

namespace {

using real = GLP_REAL;
static_assert(std::is_same<real, double>::value || std::is_same<real, float>::value,
              "gemm: GLP_REAL must be double or float");
constexpr int32_t kDtype = std::is_same<real, double>::value ? GLP_FLOAT64 : GLP_FLOAT32;

constexpr std::int64_t MR = GLP_MR;
constexpr std::int64_t NR = GLP_NR;
constexpr std::int64_t KC = GLP_KC;
constexpr std::int64_t MC = (GLP_MC + MR - 1) / MR * MR;  // whole slivers per block
constexpr std::int64_t NC = (GLP_NC + NR - 1) / NR * NR;

inline std::int64_t min64(std::int64_t a, std::int64_t b) { return a < b ? a : b; }

// ---------------------------------------------------------------------------------------------
// Vector back ends for SIMD 1 and 2. Each has W (elements per vector), vec, load/store (unaligned),
// set1, zero, fma(a, b, c) = a*b + c, mul.
// ---------------------------------------------------------------------------------------------
struct scalar_ops {
  static constexpr int W = 1;
  using vec = real;
  static vec load(const real* p) { return *p; }
  static void store(real* p, vec x) { *p = x; }
  static vec set1(real x) { return x; }
  static vec zero() { return real(0); }
  static vec fma(vec a, vec b, vec c) { return a * b + c; }
  static vec mul(vec a, vec b) { return a * b; }
};

// GCC vector extensions, BYTES wide.
template <int BYTES>
struct vext_ops {
  static constexpr int W = BYTES / static_cast<int>(sizeof(real));
  typedef real vec __attribute__((vector_size(BYTES)));
  static vec load(const real* p) {
    vec v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static void store(real* p, vec x) { std::memcpy(p, &x, sizeof x); }
  static vec set1(real x) { return vec{} + x; }
  static vec zero() { return vec{}; }
  static vec fma(vec a, vec b, vec c) { return a * b + c; }
  static vec mul(vec a, vec b) { return a * b; }
};

struct none_ops {  // placeholder for an ISA the compiler does not target
  static constexpr int W = 0;
};

#if defined(__AVX512F__)
template <class T> struct avx512_ops;
template <> struct avx512_ops<double> {
  static constexpr int W = 8;
  using vec = __m512d;
  static vec load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, vec x) { _mm512_storeu_pd(p, x); }
  static vec set1(double x) { return _mm512_set1_pd(x); }
  static vec zero() { return _mm512_setzero_pd(); }
  static vec fma(vec a, vec b, vec c) { return _mm512_fmadd_pd(a, b, c); }
  static vec mul(vec a, vec b) { return _mm512_mul_pd(a, b); }
};
template <> struct avx512_ops<float> {
  static constexpr int W = 16;
  using vec = __m512;
  static vec load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, vec x) { _mm512_storeu_ps(p, x); }
  static vec set1(float x) { return _mm512_set1_ps(x); }
  static vec zero() { return _mm512_setzero_ps(); }
  static vec fma(vec a, vec b, vec c) { return _mm512_fmadd_ps(a, b, c); }
  static vec mul(vec a, vec b) { return _mm512_mul_ps(a, b); }
};
using isa512 = avx512_ops<real>;
#else
using isa512 = none_ops;
#endif

#if defined(__AVX2__) && defined(__FMA__)
template <class T> struct avx2_ops;
template <> struct avx2_ops<double> {
  static constexpr int W = 4;
  using vec = __m256d;
  static vec load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, vec x) { _mm256_storeu_pd(p, x); }
  static vec set1(double x) { return _mm256_set1_pd(x); }
  static vec zero() { return _mm256_setzero_pd(); }
  static vec fma(vec a, vec b, vec c) { return _mm256_fmadd_pd(a, b, c); }
  static vec mul(vec a, vec b) { return _mm256_mul_pd(a, b); }
};
template <> struct avx2_ops<float> {
  static constexpr int W = 8;
  using vec = __m256;
  static vec load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, vec x) { _mm256_storeu_ps(p, x); }
  static vec set1(float x) { return _mm256_set1_ps(x); }
  static vec zero() { return _mm256_setzero_ps(); }
  static vec fma(vec a, vec b, vec c) { return _mm256_fmadd_ps(a, b, c); }
  static vec mul(vec a, vec b) { return _mm256_mul_ps(a, b); }
};
using isa256 = avx2_ops<real>;
#else
using isa256 = none_ops;
#endif

#if defined(__SSE2__)
template <class T> struct sse2_ops;
template <> struct sse2_ops<double> {
  static constexpr int W = 2;
  using vec = __m128d;
  static vec load(const double* p) { return _mm_loadu_pd(p); }
  static void store(double* p, vec x) { _mm_storeu_pd(p, x); }
  static vec set1(double x) { return _mm_set1_pd(x); }
  static vec zero() { return _mm_setzero_pd(); }
  static vec fma(vec a, vec b, vec c) { return _mm_add_pd(_mm_mul_pd(a, b), c); }
  static vec mul(vec a, vec b) { return _mm_mul_pd(a, b); }
};
template <> struct sse2_ops<float> {
  static constexpr int W = 4;
  using vec = __m128;
  static vec load(const float* p) { return _mm_loadu_ps(p); }
  static void store(float* p, vec x) { _mm_storeu_ps(p, x); }
  static vec set1(float x) { return _mm_set1_ps(x); }
  static vec zero() { return _mm_setzero_ps(); }
  static vec fma(vec a, vec b, vec c) { return _mm_add_ps(_mm_mul_ps(a, b), c); }
  static vec mul(vec a, vec b) { return _mm_mul_ps(a, b); }
};
using isa128 = sse2_ops<real>;
#else
using isa128 = none_ops;
#endif

template <class V>
constexpr bool fits() { return V::W > 0 && NR % V::W == 0; }

// The widest vector-extension width (bytes) the target has that divides NR; 0 when none does.
constexpr int vext_bytes() {
#if defined(__AVX512F__)
  if (NR % (64 / static_cast<int>(sizeof(real))) == 0) return 64;
#endif
#if defined(__AVX__)
  if (NR % (32 / static_cast<int>(sizeof(real))) == 0) return 32;
#endif
  if (NR % (16 / static_cast<int>(sizeof(real))) == 0) return 16;
  return 0;
}
using vext_choice = std::conditional_t<vext_bytes() == 0, scalar_ops, vext_ops<vext_bytes() == 0 ? 16 : vext_bytes()>>;

#if GLP_SIMD == 2
using vops = std::conditional_t<fits<isa512>(), isa512,
             std::conditional_t<fits<isa256>(), isa256,
             std::conditional_t<fits<isa128>(), isa128, vext_choice>>>;
#else
using vops = vext_choice;  // SIMD 1 (SIMD 0 does not use it)
#endif

// ---------------------------------------------------------------------------------------------
// Packing. A sliver: MR rows x kc, stored p-major: a[p*MR + r]. B sliver: kc x NR: b[p*NR + c].
// Rows / columns past the matrix edge are zero.
// ---------------------------------------------------------------------------------------------
inline void pack_a_sliver(const real* __restrict A, std::int64_t lda, std::int64_t rows, std::int64_t kc,
                          real* __restrict dst) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const real* src = A + r * lda;
    for (std::int64_t p = 0; p < kc; ++p) dst[p * MR + r] = src[p];
  }
  for (std::int64_t r = rows; r < MR; ++r)
    for (std::int64_t p = 0; p < kc; ++p) dst[p * MR + r] = real(0);
}

inline void pack_b_sliver(const real* __restrict B, std::int64_t ldb, std::int64_t cols, std::int64_t kc,
                          real* __restrict dst) {
  if (cols == NR) {
    for (std::int64_t p = 0; p < kc; ++p) std::memcpy(dst + p * NR, B + p * ldb, NR * sizeof(real));
  } else {
    for (std::int64_t p = 0; p < kc; ++p) {
      std::int64_t c = 0;
      for (; c < cols; ++c) dst[p * NR + c] = B[p * ldb + c];
      for (; c < NR; ++c) dst[p * NR + c] = real(0);
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Write-back of one micro-tile held in acc (row-major MR x NR in memory): C = alpha*acc + beta*C
// on the first k-block (beta == 0: C is not read), C += alpha*acc afterwards. Only the rows x cols
// part that lies inside C is written.
// ---------------------------------------------------------------------------------------------
inline void store_tile_scalar(const real* acc, real* __restrict c, std::int64_t ldc, std::int64_t rows,
                              std::int64_t cols, real alpha, real beta, bool first) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t j = 0; j < cols; ++j) {
      const real v = alpha * acc[r * NR + j];
      real& out = c[r * ldc + j];
      if (!first) out = out + v;
      else if (beta == real(0)) out = v;
      else out = beta * out + v;
    }
}

// ---------------------------------------------------------------------------------------------
// Micro-kernels. PACKED: a is a packed A sliver and b a packed B sliver. Otherwise a points at
// A(i0, p0) with row stride lda and b at B(p0, j0) with row stride ldb (full tiles only).
// ---------------------------------------------------------------------------------------------
#if GLP_SIMD == 0
template <bool PACKED>
inline void micro(std::int64_t kc, const real* __restrict a, std::int64_t lda, const real* __restrict b,
                  std::int64_t ldb, real* __restrict c, std::int64_t ldc, std::int64_t rows, std::int64_t cols,
                  real alpha, real beta, bool first) {
  real acc[MR][NR] = {};
  GLP_PRAGMA(GCC unroll GLP_UNROLL)
  for (std::int64_t p = 0; p < kc; ++p) {
    const real* bp = PACKED ? b + p * NR : b + p * ldb;
    GLP_PRAGMA(GCC unroll 32)
    for (std::int64_t r = 0; r < MR; ++r) {
      const real ar = PACKED ? a[p * MR + r] : a[r * lda + p];
      GLP_PRAGMA(GCC unroll 128)
      for (std::int64_t j = 0; j < NR; ++j) acc[r][j] += ar * bp[j];
    }
  }
  store_tile_scalar(&acc[0][0], c, ldc, rows, cols, alpha, beta, first);
}
#else
template <bool PACKED>
inline void micro(std::int64_t kc, const real* __restrict a, std::int64_t lda, const real* __restrict b,
                  std::int64_t ldb, real* __restrict c, std::int64_t ldc, std::int64_t rows, std::int64_t cols,
                  real alpha, real beta, bool first) {
  using V = vops;
  using vec = typename V::vec;
  constexpr std::int64_t W = V::W;
  constexpr std::int64_t NV = NR / W;
  vec acc[MR][NV];
  GLP_PRAGMA(GCC unroll 32)
  for (std::int64_t r = 0; r < MR; ++r) {
    GLP_PRAGMA(GCC unroll 128)
    for (std::int64_t v = 0; v < NV; ++v) acc[r][v] = V::zero();
  }
  GLP_PRAGMA(GCC unroll GLP_UNROLL)
  for (std::int64_t p = 0; p < kc; ++p) {
    const real* bp = PACKED ? b + p * NR : b + p * ldb;
    vec bv[NV];
    GLP_PRAGMA(GCC unroll 128)
    for (std::int64_t v = 0; v < NV; ++v) bv[v] = V::load(bp + v * W);
    GLP_PRAGMA(GCC unroll 32)
    for (std::int64_t r = 0; r < MR; ++r) {
      const vec ar = V::set1(PACKED ? a[p * MR + r] : a[r * lda + p]);
      GLP_PRAGMA(GCC unroll 128)
      for (std::int64_t v = 0; v < NV; ++v) acc[r][v] = V::fma(ar, bv[v], acc[r][v]);
    }
  }
  if (rows == MR && cols == NR) {
    const vec va = V::set1(alpha), vb = V::set1(beta);
    GLP_PRAGMA(GCC unroll 32)
    for (std::int64_t r = 0; r < MR; ++r) {
      GLP_PRAGMA(GCC unroll 128)
      for (std::int64_t v = 0; v < NV; ++v) {
        real* out = c + r * ldc + v * W;
        if (!first) V::store(out, V::fma(va, acc[r][v], V::load(out)));
        else if (beta == real(0)) V::store(out, V::mul(va, acc[r][v]));
        else V::store(out, V::fma(va, acc[r][v], V::mul(vb, V::load(out))));
      }
    }
  } else {
    alignas(64) real tile[MR * NR];
    for (std::int64_t r = 0; r < MR; ++r)
      for (std::int64_t v = 0; v < NV; ++v) V::store(tile + r * NR + v * W, acc[r][v]);
    store_tile_scalar(tile, c, ldc, rows, cols, alpha, beta, first);
  }
}
#endif

// Scratch: 64-byte aligned, freed at the end of the call.
struct scratch {
  real* p = nullptr;
  explicit scratch(std::size_t n) {
    const std::size_t bytes = (n * sizeof(real) + 63) / 64 * 64;
    p = static_cast<real*>(std::aligned_alloc(64, bytes > 0 ? bytes : 64));
  }
  ~scratch() { std::free(p); }
  scratch(const scratch&) = delete;
  scratch& operator=(const scratch&) = delete;
};

struct problem {
  const real* A;
  const real* B;
  real* C;
  std::int64_t m, n, k;
  real alpha, beta;
};

// One (ic, jc) block of the current k-block [pc, pc+kc).
//   PACK 1: bp is the packed B panel of this k-block (sliver s = columns [s*NR, s*NR+NR)),
//           ap is this thread's A block buffer (MC x kc).
//   PACK 0: ap / bp are this thread's edge buffers (one A sliver, one B sliver).
inline void block(const problem& P, std::int64_t ic, std::int64_t jc, std::int64_t pc, std::int64_t kc,
                  const real* bpanel, real* ap, real* bp) {
  const std::int64_t mc = min64(MC, P.m - ic), nc = min64(NC, P.n - jc);
  const bool first = pc == 0;
#if GLP_PACK
  (void)bp;
  for (std::int64_t ir = 0; ir < mc; ir += MR)
    pack_a_sliver(P.A + (ic + ir) * P.k + pc, P.k, min64(MR, mc - ir), kc, ap + ir * kc);
  for (std::int64_t jr = 0; jr < nc; jr += NR) {
    const real* bs = bpanel + ((jc + jr) / NR) * kc * NR;
    const std::int64_t cols = min64(NR, nc - jr);
    for (std::int64_t ir = 0; ir < mc; ir += MR)
      micro<true>(kc, ap + ir * kc, 0, bs, 0, P.C + (ic + ir) * P.n + jc + jr, P.n, min64(MR, mc - ir), cols,
                  P.alpha, P.beta, first);
  }
#else
  (void)bpanel;
  for (std::int64_t jr = 0; jr < nc; jr += NR) {
    const std::int64_t cols = min64(NR, nc - jr);
    const real* bsrc = P.B + pc * P.n + jc + jr;
    if (cols < NR) pack_b_sliver(bsrc, P.n, cols, kc, bp);
    for (std::int64_t ir = 0; ir < mc; ir += MR) {
      const std::int64_t rows = min64(MR, mc - ir);
      const real* asrc = P.A + (ic + ir) * P.k + pc;
      real* c = P.C + (ic + ir) * P.n + jc + jr;
      if (rows == MR && cols == NR) {
        micro<false>(kc, asrc, P.k, bsrc, P.n, c, P.n, rows, cols, P.alpha, P.beta, first);
      } else {
        pack_a_sliver(asrc, P.k, rows, kc, ap);
        if (cols == NR) pack_b_sliver(bsrc, P.n, cols, kc, bp);
        micro<true>(kc, ap, 0, bp, 0, c, P.n, rows, cols, P.alpha, P.beta, first);
      }
    }
  }
#endif
}

// k == 0: C = beta*C (beta == 0: C = 0).
void scale_c(real* C, std::int64_t count, real beta) {
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) C[i] = beta == real(0) ? real(0) : beta * C[i];
}

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  for (int i = 0; i < 5; ++i)
    if (args[i].dtype != kDtype) return 2;
  const std::int64_t m = sizes[0], n = sizes[1], k = sizes[2];
  if (m < 0 || n < 0 || k < 0) return 3;
  if (args[0].count != m * k || args[1].count != k * n || args[2].count != 1 || args[3].count != 1 ||
      args[4].count != m * n)
    return 4;
  if (m == 0 || n == 0) return 0;
  for (int i = 0; i < 5; ++i)
    if (args[i].data == nullptr && args[i].count > 0) return 5;
  problem P{static_cast<const real*>(args[0].data), static_cast<const real*>(args[1].data),
            static_cast<real*>(args[4].data), m, n, k,
            *static_cast<const real*>(args[2].data), *static_cast<const real*>(args[3].data)};
  if (k == 0) {
    scale_c(P.C, m * n, P.beta);
    return 0;
  }

  const std::int64_t kcmax = min64(KC, k);
  const int nthreads = omp_get_max_threads();
#if GLP_PACK
  const std::int64_t nslivers = (n + NR - 1) / NR;
  const std::size_t per_thread = static_cast<std::size_t>(MC * kcmax);
  scratch bpanel(static_cast<std::size_t>(nslivers * NR * kcmax));
#else
  const std::size_t per_thread = static_cast<std::size_t>((MR + NR) * kcmax);
  scratch bpanel(0);
#endif
  // Per-thread slices, each a whole number of 64-byte lines.
  const std::size_t stride = (per_thread * sizeof(real) + 63) / 64 * 64 / sizeof(real);
  scratch priv(stride * static_cast<std::size_t>(nthreads));
  if (bpanel.p == nullptr || priv.p == nullptr) return 6;

  const std::int64_t nib = (m + MC - 1) / MC, njb = (n + NC - 1) / NC;
#pragma omp parallel
  {
    const int t = omp_get_thread_num();
    real* mine = priv.p + stride * static_cast<std::size_t>(t < nthreads ? t : 0);
    real* ap = mine;
    real* bp = mine + MR * kcmax;  // PACK 0 only
    for (std::int64_t pc = 0; pc < k; pc += KC) {
      const std::int64_t kc = min64(KC, k - pc);
#if GLP_PACK
#pragma omp for schedule(static)
      for (std::int64_t s = 0; s < nslivers; ++s)
        pack_b_sliver(P.B + pc * n + s * NR, n, min64(NR, n - s * NR), kc, bpanel.p + s * kc * NR);
      // implicit barrier: the panel is complete
#endif
#if GLP_PARALLEL == 0
#pragma omp for schedule(static)
      for (std::int64_t jb = 0; jb < njb; ++jb)
        for (std::int64_t ib = 0; ib < nib; ++ib) block(P, ib * MC, jb * NC, pc, kc, bpanel.p, ap, bp);
#elif GLP_PARALLEL == 1
      for (std::int64_t jb = 0; jb < njb; ++jb) {
#pragma omp for schedule(static) nowait
        for (std::int64_t ib = 0; ib < nib; ++ib) block(P, ib * MC, jb * NC, pc, kc, bpanel.p, ap, bp);
      }
#pragma omp barrier
#else
#pragma omp for collapse(2) schedule(static)
      for (std::int64_t jb = 0; jb < njb; ++jb)
        for (std::int64_t ib = 0; ib < nib; ++ib) block(P, ib * MC, jb * NC, pc, kc, bpanel.p, ap, bp);
#endif
      // implicit barrier of the omp for (or the explicit one): the next k-block may repack B
    }
  }
  return 0;
}
// galapagos:evolve-end
