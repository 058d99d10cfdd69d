// stencil3d7, tuned CPU template: one weighted-Jacobi sweep of the 7-point Laplacian.
//
//   interior (1<=i<=nx-2, 1<=j<=ny-2, 1<=k<=nz-2):
//     v[c] = (1/3)*u[c] + (1/9)*(u[c-1]+u[c+1]+u[c-nx]+u[c+nx]+u[c-nx*ny]+u[c+nx*ny])
//   every other point: v[c] = u[c]          c = (k*ny + j)*nx + i, x fastest
//
// Tunable parameters (each arrives as -DGLP_<NAME>=<int>; the defaults below make the file compile
// on its own). Every combination is correct for every shape; family.toml's constraints only drop
// duplicates and points that cannot be fast.
//   GLP_TILE_X    x block length (elements); 0 = whole row.
//   GLP_TILE_Y    rows per y block; 0 = no y blocking (one row per block, like the plain loop).
//   GLP_TILE_Z    planes per z block; 0 = no z blocking (one plane per block).
//   GLP_UNROLL    1,2,4,8. SIMD 0: `#pragma GCC unroll` factor. SIMD 1: the inner loop is strip-mined
//                 into blocks of 8*UNROLL elements, each an `omp simd` loop. SIMD 2/3: vectors per step.
//                 SIMD 4: rows computed together.
//   GLP_SIMD      0 plain loop (auto-vectorised), 1 `#pragma omp simd`, 2 explicit intrinsics of the
//                 widest ISA enabled at compile time (AVX-512F > AVX > SSE2 > scalar), 3 explicit
//                 256-bit AVX intrinsics even when AVX-512 is enabled (falls back like 2), 4 the
//                 widest intrinsics with loads shared: UNROLL rows at once share their y neighbours'
//                 loads, and each row's x neighbours come from its own aligned vectors by permutes
//                 (a core then issues ~3.5 instead of 7 loads per output vector, half of them split
//                 across cache lines: on a 2-core node the 7-load kernel is bound by its cores, not
//                 by memory).
//   GLP_SCHEDULE  OpenMP schedule of the block loop: 0 static, 1 dynamic, 2 guided.
//   GLP_CHUNK     OpenMP chunk size; 0 = the schedule's default.
//   GLP_COLLAPSE  how many of the block loops (z, y, x) the `omp for` collapses: 1, 2 or 3.
//   GLP_NT_STORES 1 = nontemporal (streaming) stores of v (SIMD 2-4 only; a scalar peel aligns each
//                 segment; without a vector ISA, or for misaligned pointers, normal stores are used).
//   GLP_PREFETCH  0 = none; d > 0 = software-prefetch the u row d rows ahead in the k+1 plane
//                 (and, without NT stores, the v row d rows ahead for writing).
//   GLP_PLANES    SIMD 4: 1, 2 or 4 planes of UNROLL rows computed together where a z block has
//                 that many interior planes left: the planes share their z neighbours' loads too
//                 (loads per output vector 1 + 2/UNROLL + 2/PLANES). Elsewhere planes go one by one.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include <omp.h>

#include "glp_kernel.h"
// galapagos:evolve-begin (the LLM proposer may rewrite what follows; docs/llm.md)

#ifndef GLP_TILE_X
#define GLP_TILE_X 0
#endif
#ifndef GLP_TILE_Y
#define GLP_TILE_Y 16
#endif
// Defaults: with AVX-512 (32 vector registers), SIMD 4 computes 4 planes of 2 rows in z blocks of 4
// planes (2.5 loads per output vector instead of 5); without it, one plane of one row (4 planes of
// 2 rows in 256-bit vectors measured level with it: docs/BENCHMARKS.md).
#if defined(__AVX512F__)
#define GLP_DEF_TILE_Z 4
#define GLP_DEF_UNROLL 2
#define GLP_DEF_PLANES 4
#else
#define GLP_DEF_TILE_Z 0
#define GLP_DEF_UNROLL 1
#define GLP_DEF_PLANES 1
#endif
#ifndef GLP_TILE_Z
#define GLP_TILE_Z GLP_DEF_TILE_Z
#endif
#ifndef GLP_UNROLL
#define GLP_UNROLL GLP_DEF_UNROLL
#endif
#ifndef GLP_SIMD
#define GLP_SIMD 4
#endif
#ifndef GLP_SCHEDULE
#define GLP_SCHEDULE 0
#endif
#ifndef GLP_CHUNK
#define GLP_CHUNK 0
#endif
#ifndef GLP_COLLAPSE
#define GLP_COLLAPSE 2
#endif
#ifndef GLP_NT_STORES
#define GLP_NT_STORES 1
#endif
#ifndef GLP_PREFETCH
#define GLP_PREFETCH 0
#endif
#ifndef GLP_PLANES
#define GLP_PLANES GLP_DEF_PLANES
#endif
#if GLP_PLANES != 1 && GLP_PLANES != 2 && GLP_PLANES != 4
#error "stencil3d7: GLP_PLANES must be 1, 2 or 4"
#endif

#if GLP_TILE_X < 0 || GLP_TILE_Y < 0 || GLP_TILE_Z < 0 || GLP_CHUNK < 0 || GLP_PREFETCH < 0
#error "stencil3d7: tile sizes, chunk and prefetch distance must be >= 0"
#endif
#if GLP_UNROLL != 1 && GLP_UNROLL != 2 && GLP_UNROLL != 4 && GLP_UNROLL != 8
#error "stencil3d7: GLP_UNROLL must be 1, 2, 4 or 8"
#endif
#if GLP_SIMD < 0 || GLP_SIMD > 4
#error "stencil3d7: GLP_SIMD must be 0..4"
#endif
#if GLP_COLLAPSE < 1 || GLP_COLLAPSE > 3
#error "stencil3d7: GLP_COLLAPSE must be 1, 2 or 3"
#endif
#if GLP_SCHEDULE < 0 || GLP_SCHEDULE > 2
#error "stencil3d7: GLP_SCHEDULE must be 0, 1 or 2"
#endif

#define GLP_PRAGMA_(x) _Pragma(#x)
#define GLP_PRAGMA(x) GLP_PRAGMA_(x)

#if GLP_SCHEDULE == 0
#define GLP_SCHED_KIND static
#elif GLP_SCHEDULE == 1
#define GLP_SCHED_KIND dynamic
#else
#define GLP_SCHED_KIND guided
#endif
#if GLP_CHUNK > 0
#define GLP_SCHED schedule(GLP_SCHED_KIND, GLP_CHUNK)
#else
#define GLP_SCHED schedule(GLP_SCHED_KIND)
#endif

namespace {

constexpr double kC = 1.0 / 3.0;  // centre weight
constexpr double kN = 1.0 / 9.0;  // neighbour weight

// ---------------------------------------------------------------------------------------------
// Vector back ends for SIMD 2/3. Each provides W (doubles per vector), load/store/stream, and
// whether streaming stores exist.
// ---------------------------------------------------------------------------------------------
struct scalar_ops {
  static constexpr int W = 1;
  static constexpr bool has_stream = false;
  using vec = double;
  static vec load(const double* p) { return *p; }
  static void store(double* p, vec x) { *p = x; }
  static void stream(double* p, vec x) { *p = x; }
  static vec set1(double x) { return x; }
  static vec add(vec a, vec b) { return a + b; }
  static vec mul(vec a, vec b) { return a * b; }
  static vec left(vec prev, vec) { return prev; }   // elements p-1 .. p+W-2 of prev = p-W.., cur = p..
  static vec right(vec, vec next) { return next; }  // elements p+1 .. p+W of cur = p.., next = p+W..
};

#if defined(__SSE2__)
struct sse2_ops {
  static constexpr int W = 2;
  static constexpr bool has_stream = true;
  using vec = __m128d;
  static vec load(const double* p) { return _mm_loadu_pd(p); }
  static void store(double* p, vec x) { _mm_storeu_pd(p, x); }
  static void stream(double* p, vec x) { _mm_stream_pd(p, x); }
  static vec set1(double x) { return _mm_set1_pd(x); }
  static vec add(vec a, vec b) { return _mm_add_pd(a, b); }
  static vec mul(vec a, vec b) { return _mm_mul_pd(a, b); }
  static vec left(vec prev, vec cur) { return _mm_shuffle_pd(prev, cur, 1); }
  static vec right(vec cur, vec next) { return _mm_shuffle_pd(cur, next, 1); }
};
#endif

#if defined(__AVX__)
struct avx_ops {
  static constexpr int W = 4;
  static constexpr bool has_stream = true;
  using vec = __m256d;
  static vec load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, vec x) { _mm256_storeu_pd(p, x); }
  static void stream(double* p, vec x) { _mm256_stream_pd(p, x); }
  static vec set1(double x) { return _mm256_set1_pd(x); }
  static vec add(vec a, vec b) { return _mm256_add_pd(a, b); }
  static vec mul(vec a, vec b) { return _mm256_mul_pd(a, b); }
  static vec left(vec prev, vec cur) { return _mm256_shuffle_pd(_mm256_permute2f128_pd(prev, cur, 0x21), cur, 5); }
  static vec right(vec cur, vec next) { return _mm256_shuffle_pd(cur, _mm256_permute2f128_pd(cur, next, 0x21), 5); }
};
#endif

#if defined(__AVX512F__)
struct avx512_ops {
  static constexpr int W = 8;
  static constexpr bool has_stream = true;
  using vec = __m512d;
  static vec load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, vec x) { _mm512_storeu_pd(p, x); }
  static void stream(double* p, vec x) { _mm512_stream_pd(p, x); }
  static vec set1(double x) { return _mm512_set1_pd(x); }
  static vec add(vec a, vec b) { return _mm512_add_pd(a, b); }
  static vec mul(vec a, vec b) { return _mm512_mul_pd(a, b); }
  static vec left(vec prev, vec cur) {
    return _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(cur), _mm512_castpd_si512(prev), 7));
  }
  static vec right(vec cur, vec next) {
    return _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(next), _mm512_castpd_si512(cur), 1));
  }
};
#endif

#if (GLP_SIMD == 2 || GLP_SIMD == 4) && defined(__AVX512F__)
using vops = avx512_ops;
#elif GLP_SIMD >= 2 && defined(__AVX__)
using vops = avx_ops;
#elif defined(__SSE2__)
using vops = sse2_ops;
#else
using vops = scalar_ops;
#endif

constexpr bool kStream = (GLP_NT_STORES != 0) && (GLP_SIMD >= 2) && vops::has_stream;

inline double point(const double* __restrict u, std::int64_t i, std::int64_t sy, std::int64_t sz) {
  return kC * u[i] + kN * (u[i - 1] + u[i + 1] + u[i - sy] + u[i + sy] + u[i - sz] + u[i + sz]);
}

// Number of scalar elements before p reaches a whole-vector alignment (n when it never does).
inline std::int64_t peel_count(const double* p, std::int64_t n) {
  constexpr std::uintptr_t A = sizeof(double) * vops::W;
  const std::uintptr_t a = reinterpret_cast<std::uintptr_t>(p);
  if (a % sizeof(double) != 0) return n;  // cannot ever align: all scalar, normal stores
  const std::int64_t k = static_cast<std::int64_t>(((A - a % A) % A) / sizeof(double));
  return k < n ? k : n;
}

// v[0..n) = stencil(u[0..n)); u and v point at the first computed element of a row segment;
// sy = nx, sz = nx*ny. The caller guarantees all neighbours are in range.
inline void seg_stencil(const double* __restrict u, double* __restrict v, std::int64_t n, std::int64_t sy, std::int64_t sz) {
#if GLP_SIMD == 0
  GLP_PRAGMA(GCC unroll GLP_UNROLL)
  for (std::int64_t i = 0; i < n; ++i) v[i] = point(u, i, sy, sz);
#elif GLP_SIMD == 1
  constexpr std::int64_t B = 8 * GLP_UNROLL;
  std::int64_t i = 0;
  for (; i + B <= n; i += B) {
#pragma omp simd
    for (std::int64_t q = i; q < i + B; ++q) v[q] = point(u, q, sy, sz);
  }
#pragma omp simd
  for (std::int64_t q = i; q < n; ++q) v[q] = point(u, q, sy, sz);
#else
  using V = vops;
  constexpr std::int64_t W = V::W;
  constexpr std::int64_t U = GLP_UNROLL;
  std::int64_t i = 0;
  if constexpr (kStream) {
    const std::int64_t p = peel_count(v, n);
    for (; i < p; ++i) v[i] = point(u, i, sy, sz);
  }
  const bool aligned = kStream && (reinterpret_cast<std::uintptr_t>(v + i) % (sizeof(double) * W) == 0);
  const typename V::vec c = V::set1(kC), w = V::set1(kN);
  auto vpoint = [&](std::int64_t q) {
    const double* p = u + q;
    typename V::vec s = V::add(V::load(p - 1), V::load(p + 1));
    s = V::add(s, V::load(p - sy));
    s = V::add(s, V::load(p + sy));
    s = V::add(s, V::load(p - sz));
    s = V::add(s, V::load(p + sz));
    return V::add(V::mul(c, V::load(p)), V::mul(w, s));
  };
  if (aligned) {
    for (; i + U * W <= n; i += U * W)
      for (std::int64_t r = 0; r < U; ++r) V::stream(v + i + r * W, vpoint(i + r * W));
    for (; i + W <= n; i += W) V::stream(v + i, vpoint(i));
  } else {
    for (; i + U * W <= n; i += U * W)
      for (std::int64_t r = 0; r < U; ++r) V::store(v + i + r * W, vpoint(i + r * W));
    for (; i + W <= n; i += W) V::store(v + i, vpoint(i));
  }
  for (; i < n; ++i) v[i] = point(u, i, sy, sz);
#endif
}

#if GLP_SIMD == 4
// P consecutive planes of R consecutive rows at once (row r of plane p of u and v at
// +p*sz + r*sy; u and v point at the first computed element of row 0 of plane 0; n elements per
// row). The rows above and below the R rows, the planes before and after the P planes, and the
// centre rows are loaded once per vector position and shared: a centre row is its neighbours' y
// neighbour (rows) and z neighbour (planes); a centre row's x neighbours are its previous,
// current and next vectors shifted by permutes, each vector loaded once (rolled along x). Loads
// per output vector: 1 + 2/R + 2/P. Reads up to one vector before and after each row's segment:
// the caller guarantees rows of at least W + 2 elements, so those stay in the neighbouring rows
// of the array.
template <int P, int R>
inline void rows_stencil(const double* __restrict u, double* __restrict v, std::int64_t n, std::int64_t sy, std::int64_t sz) {
  using V = vops;
  using vec = typename V::vec;
  constexpr std::int64_t W = V::W;
  // Scalar until v is aligned (loads of u then are too when u and v share an alignment).
  std::int64_t i = peel_count(v, n);
  for (int p = 0; p < P; ++p)
    for (int r = 0; r < R; ++r)
      for (std::int64_t q = 0; q < i; ++q) v[p * sz + r * sy + q] = point(u + p * sz + r * sy, q, sy, sz);
  // Streaming stores need every row's vectors aligned, not only row 0's: rows whose length is not
  // a whole number of vectors start at other alignments (odd nx), and those take normal stores.
  constexpr std::size_t A = sizeof(double) * W;
  const bool stream = kStream && reinterpret_cast<std::uintptr_t>(v + i) % A == 0 &&
                      (R == 1 || static_cast<std::size_t>(sy) * sizeof(double) % A == 0) &&
                      (P == 1 || static_cast<std::size_t>(sz) * sizeof(double) % A == 0);
  const vec c = V::set1(kC), w = V::set1(kN);
  if (i + W <= n) {
    vec prev[P][R], cur[P][R];
    for (int p = 0; p < P; ++p)
      for (int r = 0; r < R; ++r) {
        prev[p][r] = V::load(u + p * sz + r * sy + i - W);
        cur[p][r] = V::load(u + p * sz + r * sy + i);
      }
    for (; i + W <= n; i += W) {
      vec next[P][R];
      for (int p = 0; p < P; ++p) {
        const vec above = V::load(u + p * sz - sy + i), below = V::load(u + p * sz + R * sy + i);
        for (int r = 0; r < R; ++r) {
          const double* c0 = u + p * sz + r * sy + i;
          next[p][r] = V::load(c0 + W);
          vec s = V::add(V::left(prev[p][r], cur[p][r]), V::right(cur[p][r], next[p][r]));
          s = V::add(s, r == 0 ? above : cur[p][r - 1]);
          s = V::add(s, r == R - 1 ? below : cur[p][r + 1]);
          s = V::add(s, V::add(p == 0 ? V::load(c0 - sz) : cur[p - 1][r], p == P - 1 ? V::load(c0 + sz) : cur[p + 1][r]));
          const vec out = V::add(V::mul(c, cur[p][r]), V::mul(w, s));
          if (stream)
            V::stream(v + p * sz + r * sy + i, out);
          else
            V::store(v + p * sz + r * sy + i, out);
        }
      }
      for (int p = 0; p < P; ++p)
        for (int r = 0; r < R; ++r) {  // roll along x
          prev[p][r] = cur[p][r];
          cur[p][r] = next[p][r];
        }
    }
  }
  for (int p = 0; p < P; ++p)
    for (int r = 0; r < R; ++r)
      for (std::int64_t q = i; q < n; ++q) v[p * sz + r * sy + q] = point(u + p * sz + r * sy, q, sy, sz);
}
#endif

// v[0..n) = u[0..n)
inline void seg_copy(const double* __restrict u, double* __restrict v, std::int64_t n) {
  if (n <= 0) return;
  if constexpr (kStream) {
    using V = vops;
    constexpr std::int64_t W = V::W;
    std::int64_t i = 0;
    const std::int64_t p = peel_count(v, n);
    for (; i < p; ++i) v[i] = u[i];
    if (reinterpret_cast<std::uintptr_t>(v + i) % (sizeof(double) * W) == 0)
      for (; i + W <= n; i += W) V::stream(v + i, V::load(u + i));
    for (; i < n; ++i) v[i] = u[i];
  } else {
    std::memcpy(v, u, static_cast<std::size_t>(n) * sizeof(double));
  }
}

inline void store_fence() {
#if defined(__SSE2__)
  if constexpr (kStream) _mm_sfence();
#endif
}

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  if (args == nullptr || sizes == nullptr || nargs != 2) return 1;
  if (args[0].dtype != GLP_FLOAT64 || args[1].dtype != GLP_FLOAT64) return 2;
  const std::int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx < 0 || ny < 0 || nz < 0) return 3;
  const std::int64_t n = nx * ny * nz;
  if (args[0].count != n || args[1].count != n) return 4;
  if (n == 0) return 0;
  const double* __restrict u = static_cast<const double*>(args[0].data);
  double* __restrict v = static_cast<double*>(args[1].data);
  if (u == nullptr || v == nullptr) return 5;

  // No interior at all: the sweep is a copy.
  if (nx < 3 || ny < 3 || nz < 3) {
    const std::int64_t nb = (n + 8191) / 8192;
#pragma omp parallel for schedule(static) if (nb > 1)
    for (std::int64_t b = 0; b < nb; ++b) {
      const std::int64_t lo = b * 8192, hi = (lo + 8192 < n) ? lo + 8192 : n;
      std::memcpy(v + lo, u + lo, static_cast<std::size_t>(hi - lo) * sizeof(double));
    }
    return 0;
  }

  const std::int64_t sy = nx, sz = nx * ny;
  const std::int64_t tx = GLP_TILE_X > 0 ? GLP_TILE_X : nx;
  const std::int64_t ty = GLP_TILE_Y > 0 ? GLP_TILE_Y : 1;
  const std::int64_t tz = GLP_TILE_Z > 0 ? GLP_TILE_Z : 1;
  const std::int64_t nbx = (nx + tx - 1) / tx;
  const std::int64_t nby = (ny + ty - 1) / ty;
  const std::int64_t nbz = (nz + tz - 1) / tz;

  // Software prefetch of the u row GLP_PREFETCH rows ahead in the next plane (and, without
  // streaming stores, of the v row to be written); nothing when GLP_PREFETCH is 0.
  auto prefetch_row = [&](std::int64_t k, std::int64_t j, std::int64_t a, std::int64_t b) {
#if GLP_PREFETCH > 0
    const std::int64_t kp = k + 1 < nz ? k + 1 : nz - 1;
    const std::int64_t jp = j + GLP_PREFETCH < ny ? j + GLP_PREFETCH : ny - 1;
    const double* pu = u + (kp * ny + jp) * nx;
    for (std::int64_t p = a; p < b; p += 8) __builtin_prefetch(pu + p, 0, 3);
    if constexpr (!kStream) {
      double* pv = v + (k * ny + jp) * nx;
      for (std::int64_t p = a; p < b; p += 8) __builtin_prefetch(pv + p, 1, 3);
    }
#else
    (void)k, (void)j, (void)a, (void)b;
#endif
  };

#pragma omp parallel
  {
    GLP_PRAGMA(omp for GLP_SCHED collapse(GLP_COLLAPSE) nowait)
    for (std::int64_t bz = 0; bz < nbz; ++bz)
      for (std::int64_t by = 0; by < nby; ++by)
        for (std::int64_t bx = 0; bx < nbx; ++bx) {
          const std::int64_t k0 = bz * tz, k1 = (k0 + tz < nz) ? k0 + tz : nz;
          const std::int64_t j0 = by * ty, j1 = (j0 + ty < ny) ? j0 + ty : ny;
          const std::int64_t a = bx * tx, b = (a + tx < nx) ? a + tx : nx;
          const std::int64_t lo = a > 1 ? a : 1;            // first computed i of [a,b)
          const std::int64_t hi = b < nx - 1 ? b : nx - 1;  // one past the last computed i
          for (std::int64_t k = k0; k < k1;) {
            const bool kb = (k == 0 || k == nz - 1);
#if GLP_SIMD == 4
            // GLP_PLANES interior planes of this block at once where there are that many.
            const std::int64_t planes = !kb && k + GLP_PLANES <= std::min(k1, nz - 1) ? GLP_PLANES : 1;
#else
            const std::int64_t planes = 1;
#endif
            for (std::int64_t j = j0; j < j1;) {
              if (kb || j == 0 || j == ny - 1) {
                for (std::int64_t pl = 0; pl < planes; ++pl) {
                  const std::int64_t row = ((k + pl) * ny + j) * nx;
                  prefetch_row(k + pl, j, a, b);
                  seg_copy(u + row + a, v + row + a, b - a);
                }
                ++j;
                continue;
              }
#if GLP_SIMD == 4
              // GLP_UNROLL interior rows of this block at once where there are that many.
              const std::int64_t rows = std::min<std::int64_t>({GLP_UNROLL, j1 - j, ny - 1 - j});
#else
              const std::int64_t rows = 1;
#endif
              for (std::int64_t pl = 0; pl < planes; ++pl)
                for (std::int64_t r = 0; r < rows; ++r) {
                  const std::int64_t row = ((k + pl) * ny + j + r) * nx;
                  prefetch_row(k + pl, j + r, a, b);
                  for (std::int64_t i = a; i < lo; ++i) v[row + i] = u[row + i];
                  for (std::int64_t i = hi; i < b; ++i) v[row + i] = u[row + i];
                }
              const std::int64_t row = (k * ny + j) * nx;
#if GLP_SIMD == 4
              if (rows == GLP_UNROLL && planes == GLP_PLANES)
                rows_stencil<GLP_PLANES, GLP_UNROLL>(u + row + lo, v + row + lo, hi - lo, sy, sz);
              else
                for (std::int64_t pl = 0; pl < planes; ++pl) {
                  const std::int64_t prow = row + pl * sz;
                  if (rows == GLP_UNROLL)
                    rows_stencil<1, GLP_UNROLL>(u + prow + lo, v + prow + lo, hi - lo, sy, sz);
                  else
                    for (std::int64_t r = 0; r < rows; ++r)
                      rows_stencil<1, 1>(u + prow + r * nx + lo, v + prow + r * nx + lo, hi - lo, sy, sz);
                }
#else
              seg_stencil(u + row + lo, v + row + lo, hi - lo, sy, sz);
#endif
              j += rows;
            }
            k += planes;
          }
        }
    store_fence();  // each thread orders its own streaming stores before the region's barrier
  }
  return 0;
}
// galapagos:evolve-end
