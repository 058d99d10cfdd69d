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
//   GLP_SIMD      0 plain loop (auto-vectorised), 1 `#pragma omp simd`, 2 explicit intrinsics of the
//                 widest ISA enabled at compile time (AVX-512F > AVX > SSE2 > scalar), 3 explicit
//                 256-bit AVX intrinsics even when AVX-512 is enabled (falls back like 2).
//   GLP_SCHEDULE  OpenMP schedule of the block loop: 0 static, 1 dynamic, 2 guided.
//   GLP_CHUNK     OpenMP chunk size; 0 = the schedule's default.
//   GLP_COLLAPSE  how many of the block loops (z, y, x) the `omp for` collapses: 1, 2 or 3.
//   GLP_NT_STORES 1 = nontemporal (streaming) stores of v (SIMD 2/3 only; a scalar peel aligns each
//                 segment; without a vector ISA, or for misaligned pointers, normal stores are used).
//   GLP_PREFETCH  0 = none; d > 0 = software-prefetch the u row d rows ahead in the k+1 plane
//                 (and, without NT stores, the v row d rows ahead for writing).
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
#ifndef GLP_TILE_Z
#define GLP_TILE_Z 0
#endif
#ifndef GLP_UNROLL
#define GLP_UNROLL 2
#endif
#ifndef GLP_SIMD
#define GLP_SIMD 2
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

#if GLP_TILE_X < 0 || GLP_TILE_Y < 0 || GLP_TILE_Z < 0 || GLP_CHUNK < 0 || GLP_PREFETCH < 0
#error "stencil3d7: tile sizes, chunk and prefetch distance must be >= 0"
#endif
#if GLP_UNROLL != 1 && GLP_UNROLL != 2 && GLP_UNROLL != 4 && GLP_UNROLL != 8
#error "stencil3d7: GLP_UNROLL must be 1, 2, 4 or 8"
#endif
#if GLP_SIMD < 0 || GLP_SIMD > 3
#error "stencil3d7: GLP_SIMD must be 0..3"
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
};
#endif

#if GLP_SIMD == 2 && defined(__AVX512F__)
using vops = avx512_ops;
#elif (GLP_SIMD == 2 || GLP_SIMD == 3) && defined(__AVX__)
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
inline void seg_stencil(const double* __restrict u, double* __restrict v, std::int64_t n,
                        std::int64_t sy, std::int64_t sz) {
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

#pragma omp parallel
  {
    GLP_PRAGMA(omp for GLP_SCHED collapse(GLP_COLLAPSE) nowait)
    for (std::int64_t bz = 0; bz < nbz; ++bz)
      for (std::int64_t by = 0; by < nby; ++by)
        for (std::int64_t bx = 0; bx < nbx; ++bx) {
          const std::int64_t k0 = bz * tz, k1 = (k0 + tz < nz) ? k0 + tz : nz;
          const std::int64_t j0 = by * ty, j1 = (j0 + ty < ny) ? j0 + ty : ny;
          const std::int64_t a = bx * tx, b = (a + tx < nx) ? a + tx : nx;
          const std::int64_t lo = a > 1 ? a : 1;             // first computed i of [a,b)
          const std::int64_t hi = b < nx - 1 ? b : nx - 1;   // one past the last computed i
          for (std::int64_t k = k0; k < k1; ++k) {
            const bool kb = (k == 0 || k == nz - 1);
            for (std::int64_t j = j0; j < j1; ++j) {
              const std::int64_t row = (k * ny + j) * nx;
#if GLP_PREFETCH > 0
              {
                const std::int64_t kp = k + 1 < nz ? k + 1 : nz - 1;
                const std::int64_t jp = j + GLP_PREFETCH < ny ? j + GLP_PREFETCH : ny - 1;
                const double* pu = u + (kp * ny + jp) * nx;
                for (std::int64_t p = a; p < b; p += 8) __builtin_prefetch(pu + p, 0, 3);
                if constexpr (!kStream) {
                  double* pv = v + (k * ny + jp) * nx;
                  for (std::int64_t p = a; p < b; p += 8) __builtin_prefetch(pv + p, 1, 3);
                }
              }
#endif
              if (kb || j == 0 || j == ny - 1) {
                seg_copy(u + row + a, v + row + a, b - a);
              } else {
                for (std::int64_t i = a; i < lo; ++i) v[row + i] = u[row + i];
                seg_stencil(u + row + lo, v + row + lo, hi - lo, sy, sz);
                for (std::int64_t i = hi; i < b; ++i) v[row + i] = u[row + i];
              }
            }
          }
        }
    store_fence();  // each thread orders its own streaming stores before the region's barrier
  }
  return 0;
}
// galapagos:evolve-end
