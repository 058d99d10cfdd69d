// spmv, tuned CPU template: y = A*x in float64, A given in CSR (row_ptr int64, col_idx int32,
// values float64; rows sorted by column, no duplicates).
//
//   y[i] = sum_{k=row_ptr[i]}^{row_ptr[i+1]-1} values[k] * x[col_idx[k]]     (0 for an empty row)
//
// Two phases:
//   glp_setup  (timed separately, once per matrix): FORMAT 1 converts A into SELL-C-sigma, kept in
//              this file's private static storage; FORMAT 0 only drops what an earlier setup built.
//   glp_kernel (tuned): computes y from the private format when it was built for this very A,
//              otherwise (setup not called, or called for another matrix) from the CSR arrays.
//
// Tunable parameters (each arrives as -DGLP_<NAME>=<int>; the defaults below make the file compile
// on its own). Every combination is correct for every matrix; family.toml's constraints only drop
// duplicates.
//   GLP_FORMAT    0 CSR; 1 SELL-C-sigma built in glp_setup.
//   GLP_C         SELL chunk height (rows per slice, stored column-major): 4, 8, 16 or 32.
//   GLP_SIGMA     SELL sorting window: rows are sorted by decreasing length within windows of
//                 SIGMA rows (1 = no sorting), which cuts the padding of each slice.
//   GLP_SCHEDULE  OpenMP schedule over rows (CSR) or slices (SELL): 0 static, 1 dynamic, 2 guided,
//                 3 nnz-balanced static partition (one contiguous range per thread, split by a
//                 binary search so that every thread gets about the same entries + rows).
//   GLP_CHUNK     OpenMP chunk in rows (SELL: CHUNK/C slices, at least 1); 0 = schedule default.
//   GLP_UNROLL    1, 2, 4, 8: independent accumulators. CSR SIMD 0: scalar accumulators per row;
//                 CSR SIMD 1: simdlen(4*UNROLL) of the `omp simd` reduction; CSR SIMD 2: 8-wide
//                 vectors per step; SELL: column steps per iteration, each with its own C sums.
//   GLP_SIMD      0 plain loops (whatever -O3 makes of them), 1 `#pragma omp simd`, 2 explicit
//                 AVX-512 gathers (_mm512_i32gather_pd; C=4 uses the AVX2 256-bit gather). Without
//                 AVX-512F (and AVX512VL for the masked CSR tails) SIMD 2 falls back to SIMD 1.
//   GLP_PREFETCH  0 none; d > 0: software-prefetch x[col_idx[k+d]] while processing entry k (the
//                 index is clamped to the matrix, never read past its end).
//   GLP_INDEX     SELL columns: 32 as 32-bit columns; 16 as signed 16-bit offsets from their row
//                 (10 bytes an entry instead of 12), when setup finds that every stored entry lies
//                 within 32767 columns of its row (banded and grid matrices), else 32-bit.
//   GLP_DENSE     not searched (1 unless a benchmark sets 0): with SIMD 2 and SELL, setup flags each
//                 vector of a column step (8 lanes, 4 for C = 4) whose columns are consecutive (grid
//                 and banded matrices: neighbouring rows, same stencil offset) and the kernel reads x
//                 there with one vector load instead of a gather; the same elements, the same sums.
//                 Where fewer than half of the vectors qualify, setup drops the flags and the kernel
//                 gathers everything (on a random matrix the test cost more than it saved).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif
#include <omp.h>

#include "glp_kernel.h"
// galapagos:evolve-begin (the LLM proposer may rewrite what follows; docs/llm.md)

#ifndef GLP_FORMAT
#define GLP_FORMAT 1
#endif
#ifndef GLP_C
#define GLP_C 8
#endif
#ifndef GLP_SIGMA
#define GLP_SIGMA 256
#endif
#ifndef GLP_SCHEDULE
#define GLP_SCHEDULE 0
#endif
#ifndef GLP_CHUNK
#define GLP_CHUNK 0
#endif
// Defaults (the search's first point): SELL-C-sigma with two column steps in flight and 16-bit
// column offsets, which setup turns back into 32-bit columns where a matrix is too wide for them
// (docs/spmv.md; 1.10-1.24x over one step and 32-bit columns side by side on Poisson-27).
#ifndef GLP_UNROLL
#define GLP_UNROLL 2
#endif
#ifndef GLP_SIMD
#define GLP_SIMD 2
#endif
#ifndef GLP_PREFETCH
#define GLP_PREFETCH 0
#endif
#ifndef GLP_INDEX
#define GLP_INDEX 16
#endif
#ifndef GLP_DENSE
#define GLP_DENSE 1
#endif

#if GLP_FORMAT != 0 && GLP_FORMAT != 1
#error "spmv: GLP_FORMAT must be 0 (CSR) or 1 (SELL-C-sigma)"
#endif
#if GLP_C != 4 && GLP_C != 8 && GLP_C != 16 && GLP_C != 32
#error "spmv: GLP_C must be 4, 8, 16 or 32"
#endif
#if GLP_SIGMA < 1
#error "spmv: GLP_SIGMA must be >= 1"
#endif
#if GLP_SCHEDULE < 0 || GLP_SCHEDULE > 3
#error "spmv: GLP_SCHEDULE must be 0..3"
#endif
#if GLP_CHUNK < 0 || GLP_PREFETCH < 0
#error "spmv: GLP_CHUNK and GLP_PREFETCH must be >= 0"
#endif
#if GLP_UNROLL != 1 && GLP_UNROLL != 2 && GLP_UNROLL != 4 && GLP_UNROLL != 8
#error "spmv: GLP_UNROLL must be 1, 2, 4 or 8"
#endif
#if GLP_SIMD < 0 || GLP_SIMD > 2
#error "spmv: GLP_SIMD must be 0, 1 or 2"
#endif
#if GLP_INDEX != 32 && GLP_INDEX != 16
#error "spmv: GLP_INDEX must be 32 or 16"
#endif
#if GLP_DENSE != 0 && GLP_DENSE != 1
#error "spmv: GLP_DENSE must be 0 or 1"
#endif

// SIMD 2 needs AVX-512F for 8-wide gathers and AVX512VL for the masked 256-bit index loads.
#if GLP_SIMD == 2 && defined(__AVX512F__) && defined(__AVX512VL__)
#define GLP_USE_AVX512 1
#else
#define GLP_USE_AVX512 0
#endif
#if GLP_SIMD == 2 && !GLP_USE_AVX512
#define GLP_SIMD_EFF 1
#else
#define GLP_SIMD_EFF GLP_SIMD
#endif

#define GLP_PRAGMA_(x) _Pragma(#x)
#define GLP_PRAGMA(x) GLP_PRAGMA_(x)

#if GLP_SCHEDULE == 1
#define GLP_SCHED_KIND dynamic
#elif GLP_SCHEDULE == 2
#define GLP_SCHED_KIND guided
#else
#define GLP_SCHED_KIND static
#endif

namespace {

constexpr int C = GLP_C;
constexpr int U = GLP_UNROLL;
constexpr int VL = C >= 8 ? 8 : C;  // lanes of one x vector in the SIMD 2 slice kernels
#if GLP_SIMD_EFF == 2 && GLP_DENSE
#define GLP_DENSE_EFF 1
#else
#define GLP_DENSE_EFF 0
#endif
constexpr std::int64_t PF = GLP_PREFETCH;

inline void prefetch_x(const double* x, const std::int32_t* ci, std::int64_t k, std::int64_t last) {
  if constexpr (PF > 0) {
    const std::int64_t q = std::min(k + PF, last);
    __builtin_prefetch(x + ci[q], 0, 3);
  } else {
    (void)x, (void)ci, (void)k, (void)last;
  }
}

// First row of part t of `parts`, balancing entries + rows: the smallest row r with
// ptr[r] + r*unit >= t*(total)/parts, found by binary search on the monotone ptr[r] + r*unit.
[[maybe_unused]] std::int64_t balanced_start(const std::int64_t* ptr, std::int64_t n, std::int64_t unit, int t, int parts) {
  if (t <= 0) return 0;
  if (t >= parts) return n;
  const std::int64_t total = ptr[n] - ptr[0] + n * unit;
  const auto target = static_cast<std::int64_t>(static_cast<__int128>(total) * t / parts);
  std::int64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (ptr[mid] - ptr[0] + mid * unit < target)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// ------------------------------------------------------------------------------------------------
// CSR row kernels: the sum of one row, entries [b, e).
// ------------------------------------------------------------------------------------------------
inline double csr_row(const std::int32_t* __restrict ci, const double* __restrict va, const double* __restrict x, std::int64_t b,
                      std::int64_t e, std::int64_t last) {
#if GLP_SIMD_EFF == 0
  double acc[U];
  for (int u = 0; u < U; ++u) acc[u] = 0.0;
  std::int64_t k = b;
  for (; k + U <= e; k += U) {
    for (int u = 0; u < U; ++u) {
      prefetch_x(x, ci, k + u, last);
      acc[u] += va[k + u] * x[ci[k + u]];
    }
  }
  for (; k < e; ++k) {
    prefetch_x(x, ci, k, last);
    acc[0] += va[k] * x[ci[k]];
  }
  for (int s = U / 2; s >= 1; s /= 2)
    for (int u = 0; u < s; ++u) acc[u] += acc[u + s];
  return acc[0];
#elif GLP_SIMD_EFF == 1
  if constexpr (PF > 0)  // a separate loop: a prefetch inside an omp simd loop may be dropped
    for (std::int64_t k = b; k < e; ++k) prefetch_x(x, ci, k, last);
  double sum = 0.0;
  GLP_PRAGMA(omp simd reduction(+ : sum) simdlen(4 * GLP_UNROLL))
  for (std::int64_t k = b; k < e; ++k) sum += va[k] * x[ci[k]];
  return sum;
#else
  __m512d acc[U];
  for (int u = 0; u < U; ++u) acc[u] = _mm512_setzero_pd();
  std::int64_t k = b;
  for (; k + 8 * U <= e; k += 8 * U) {
    for (int u = 0; u < U; ++u) {
      const std::int64_t kk = k + 8 * u;
      if constexpr (PF > 0)
        for (int t = 0; t < 8; ++t) prefetch_x(x, ci, kk + t, last);
      const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ci + kk));
      const __m512d xv = _mm512_i32gather_pd(idx, x, 8);
      acc[u] = _mm512_fmadd_pd(_mm512_loadu_pd(va + kk), xv, acc[u]);
    }
  }
  for (; k + 8 <= e; k += 8) {
    if constexpr (PF > 0)
      for (int t = 0; t < 8; ++t) prefetch_x(x, ci, k + t, last);
    const __m256i idx = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ci + k));
    acc[0] = _mm512_fmadd_pd(_mm512_loadu_pd(va + k), _mm512_i32gather_pd(idx, x, 8), acc[0]);
  }
  if (k < e) {
    const auto m = static_cast<__mmask8>((1u << (e - k)) - 1u);
    if constexpr (PF > 0)
      for (std::int64_t t = k; t < e; ++t) prefetch_x(x, ci, t, last);
    const __m256i idx = _mm256_maskz_loadu_epi32(m, ci + k);
    const __m512d xv = _mm512_mask_i32gather_pd(_mm512_setzero_pd(), m, idx, x, 8);
    acc[0] = _mm512_fmadd_pd(_mm512_maskz_loadu_pd(m, va + k), xv, acc[0]);
  }
  for (int s = U / 2; s >= 1; s /= 2)
    for (int u = 0; u < s; ++u) acc[u] = _mm512_add_pd(acc[u], acc[u + s]);
  return _mm512_reduce_add_pd(acc[0]);
#endif
}

void csr_spmv(std::int64_t nrows, const std::int64_t* __restrict rp, const std::int32_t* __restrict ci,
              const double* __restrict va, const double* __restrict x, double* __restrict y) {
  const std::int64_t nnz = rp[nrows] - rp[0];
  const std::int64_t last = nnz > 0 ? rp[nrows] - 1 : rp[0];  // highest valid entry index
  if (nnz == 0) {                                             // nothing to gather: every row is empty
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < nrows; ++i) y[i] = 0.0;
    return;
  }
#if GLP_SCHEDULE == 3
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
    const std::int64_t r0 = balanced_start(rp, nrows, 1, t, T), r1 = balanced_start(rp, nrows, 1, t + 1, T);
    for (std::int64_t i = r0; i < r1; ++i) y[i] = csr_row(ci, va, x, rp[i], rp[i + 1], last);
  }
#elif GLP_CHUNK > 0
  GLP_PRAGMA(omp parallel for schedule(GLP_SCHED_KIND, GLP_CHUNK))
  for (std::int64_t i = 0; i < nrows; ++i) y[i] = csr_row(ci, va, x, rp[i], rp[i + 1], last);
#else
  GLP_PRAGMA(omp parallel for schedule(GLP_SCHED_KIND))
  for (std::int64_t i = 0; i < nrows; ++i) y[i] = csr_row(ci, va, x, rp[i], rp[i + 1], last);
#endif
}

// ------------------------------------------------------------------------------------------------
// SELL-C-sigma: private storage built by glp_setup.
//   Rows are permuted (sorted by decreasing length inside windows of SIGMA rows); position p of
//   the permuted order holds row perm[p]. Slice s = positions [s*C, s*C+C); its width w_s is the
//   longest row in it; entry j of the row at lane l is at sptr[s] + j*C + l. Padding entries have
//   value 0 and a valid column (pad_column), so gathers never leave x. Lanes past nrows in the last
//   slice are padding rows of length 0 (perm -1), never stored to y. Columns are stored as they are
//   (col) or, GLP_INDEX 16 where every one fits, as 16-bit offsets from perm[p] (off).
// ------------------------------------------------------------------------------------------------
template <class T>
struct buffer {  // 64-byte aligned, uninitialised
  T* p = nullptr;
  std::size_t n = 0;
  void reset(std::size_t count) {
    release();
    if (count == 0) return;
    const std::size_t bytes = (count * sizeof(T) + 63) / 64 * 64;
    p = static_cast<T*>(std::aligned_alloc(64, bytes));
    if (!p) throw std::bad_alloc();
    n = count;
  }
  void release() {
    std::free(p);
    p = nullptr;
    n = 0;
  }
};

struct sell_matrix {
  bool valid = false;
  // identity of the CSR matrix it was built from
  const void* rp = nullptr;
  const void* ci = nullptr;
  const void* va = nullptr;
  std::int64_t nrows = 0, ncols = 0, nnz = 0;
  std::uint64_t fingerprint = 0;
  // the format
  std::int64_t nslices = 0;
  buffer<std::int64_t> sptr;  // nslices+1 offsets (entries, multiples of C)
  buffer<std::int32_t> perm;  // nslices*C: row at each position (-1 for padding rows)
  buffer<std::int32_t> col;   // sptr[nslices], or empty when off holds the columns
  buffer<std::int16_t> off;   // sptr[nslices]: column - perm[p] (GLP_INDEX 16, where all fit)
  buffer<double> val;         // sptr[nslices]
  // GLP_DENSE with SIMD 2: one flag per vector of VL lanes of a column step (entries q..q+VL-1,
  // q a multiple of VL): 1 where their columns are consecutive, so x is read with one vector
  // load instead of a gather (grid and banded matrices: neighbouring rows, same stencil offset).
  buffer<std::uint8_t> dense;  // sptr[nslices] / VL
  void release() {
    valid = false;
    sptr.release();
    perm.release();
    col.release();
    off.release();
    val.release();
    dense.release();
    nslices = 0;
  }
};

sell_matrix g_sell;  // the only state kept between calls: A in another format, rebuilt per matrix

// A cheap fingerprint of A's structure and values (64 sampled positions), so that a kernel call
// on another matrix at the same addresses and sizes never uses a stale format.
std::uint64_t fingerprint(std::int64_t nrows, const std::int64_t* rp, const std::int32_t* ci, const double* va,
                          std::int64_t nnz) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ static_cast<std::uint64_t>(nrows) ^ (static_cast<std::uint64_t>(nnz) << 20);
  auto add = [&h](std::uint64_t v) { h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2); };
  for (int s = 0; s < 64; ++s) {
    const std::int64_t r = static_cast<std::int64_t>(static_cast<__int128>(nrows) * s / 64);
    add(static_cast<std::uint64_t>(rp[r + 1]));
    if (nnz > 0) {
      const std::int64_t k = static_cast<std::int64_t>(static_cast<__int128>(nnz) * (2 * s + 1) / 128);
      std::uint64_t bits;
      std::memcpy(&bits, va + k, 8);
      add(bits);
      add(static_cast<std::uint64_t>(static_cast<std::uint32_t>(ci[k])));
    }
  }
  return h;
}

// The column a padding entry of row r (-1 for a padding row) gathers from: the row's last
// column, or for an empty or padding row the column nearest the row's own index.
std::int32_t pad_column(std::int32_t r, const std::int64_t* rp, const std::int32_t* ci, std::int64_t ncols) {
  if (r >= 0 && rp[r + 1] > rp[r]) return ci[rp[r + 1] - 1];
  return static_cast<std::int32_t>(std::max<std::int64_t>(0, std::min<std::int64_t>(r, ncols - 1)));
}

constexpr bool fits_int16(std::int64_t d) { return d >= INT16_MIN && d <= INT16_MAX; }

[[maybe_unused]] void sell_build(std::int64_t nrows, std::int64_t ncols, const std::int64_t* rp, const std::int32_t* ci,
                                 const double* va) {
  sell_matrix& m = g_sell;
  m.release();
  const std::int64_t nslices = (nrows + C - 1) / C;
  const std::int64_t npos = nslices * C;
  m.perm.reset(static_cast<std::size_t>(npos));
  m.sptr.reset(static_cast<std::size_t>(nslices) + 1);
  std::int32_t* perm = m.perm.p;
  // 1. permutation: sort by decreasing length inside each window of SIGMA rows (stable, so equal
  //    lengths keep their order and SIGMA 1 is the identity)
#pragma omp parallel for schedule(static)
  for (std::int64_t p = 0; p < npos; ++p) perm[p] = p < nrows ? static_cast<std::int32_t>(p) : -1;
  if (GLP_SIGMA > 1) {
    const std::int64_t nwin = (nrows + GLP_SIGMA - 1) / GLP_SIGMA;
#pragma omp parallel for schedule(dynamic, 16)
    for (std::int64_t w = 0; w < nwin; ++w) {
      std::int32_t* b = perm + w * GLP_SIGMA;
      std::int32_t* e = perm + std::min<std::int64_t>(nrows, (w + 1) * GLP_SIGMA);
      std::stable_sort(b, e, [rp](std::int32_t a, std::int32_t c) { return rp[a + 1] - rp[a] > rp[c + 1] - rp[c]; });
    }
  }
  // 2. slice widths and offsets
  std::int64_t* sptr = m.sptr.p;
  sptr[0] = 0;
#pragma omp parallel for schedule(static)
  for (std::int64_t s = 0; s < nslices; ++s) {
    std::int64_t w = 0;
    for (int l = 0; l < C; ++l) {
      const std::int32_t r = perm[s * C + l];
      if (r >= 0) w = std::max(w, rp[r + 1] - rp[r]);
    }
    sptr[s + 1] = w * C;
  }
  for (std::int64_t s = 0; s < nslices; ++s) sptr[s + 1] += sptr[s];
  // 3. entries, column-major inside each slice; 16-bit offsets where every column fits
  const std::int64_t total = sptr[nslices];
  bool narrow = GLP_INDEX == 16;
  if (narrow) {
    bool wide = false;
#pragma omp parallel for schedule(static) reduction(|| : wide)
    for (std::int64_t p = 0; p < npos; ++p) {
      const std::int32_t r = perm[p];
      std::int64_t lo = pad_column(r, rp, ci, ncols), hi = lo;
      if (r >= 0)
        for (std::int64_t k = rp[r]; k < rp[r + 1]; ++k) {
          lo = std::min<std::int64_t>(lo, ci[k]);
          hi = std::max<std::int64_t>(hi, ci[k]);
        }
      if (!fits_int16(lo - r) || !fits_int16(hi - r)) wide = true;
    }
    narrow = !wide;
  }
  if (narrow)
    m.off.reset(static_cast<std::size_t>(total));
  else
    m.col.reset(static_cast<std::size_t>(total));
  m.val.reset(static_cast<std::size_t>(total));
  std::int32_t* col = m.col.p;
  std::int16_t* off = m.off.p;
  double* val = m.val.p;
#pragma omp parallel for schedule(static)
  for (std::int64_t s = 0; s < nslices; ++s) {
    const std::int64_t base = sptr[s], w = (sptr[s + 1] - base) / C;
    for (int l = 0; l < C; ++l) {
      const std::int32_t r = perm[s * C + l];
      const std::int64_t b = r >= 0 ? rp[r] : 0, len = r >= 0 ? rp[r + 1] - rp[r] : 0;
      const std::int32_t pad_col = pad_column(r, rp, ci, ncols);
      for (std::int64_t j = 0; j < w; ++j) {
        const std::int64_t q = base + j * C + l;
        const std::int32_t c = j < len ? ci[b + j] : pad_col;
        val[q] = j < len ? va[b + j] : 0.0;
        if (narrow)
          off[q] = static_cast<std::int16_t>(c - r);
        else
          col[q] = c;
      }
    }
  }
#if GLP_DENSE_EFF
  m.dense.reset(static_cast<std::size_t>(total / VL));
  std::uint8_t* dense = m.dense.p;
  std::int64_t found = 0;  // consecutive vectors
#pragma omp parallel for schedule(static) reduction(+ : found)
  for (std::int64_t s = 0; s < nslices; ++s) {
    const std::int64_t base = sptr[s], end = sptr[s + 1];
    for (std::int64_t q = base; q < end; q += VL) {
      const std::int64_t l0 = (q - base) % C;  // lane of entry q
      auto column = [&](std::int64_t e) -> std::int64_t {
        return narrow ? perm[s * C + l0 + (e - q)] + std::int64_t{off[e]} : std::int64_t{col[e]};
      };
      bool consecutive = true;
      for (int l = 1; l < VL && consecutive; ++l) consecutive = column(q + l) == column(q) + l;
      dense[q / VL] = consecutive ? 1 : 0;
      found += consecutive ? 1 : 0;
    }
  }
  // Where fewer than half of the vectors are consecutive (unstructured matrices), the test costs
  // more than the loads it saves: the kernel gathers everything, as without DENSE.
  if (2 * found < total / VL) m.dense.release();
#endif
  m.nslices = nslices;
  m.rp = rp;
  m.ci = ci;
  m.va = va;
  m.nrows = nrows;
  m.ncols = ncols;
  m.nnz = rp[nrows];
  m.fingerprint = fingerprint(nrows, rp, ci, va, rp[nrows]);
  m.valid = true;
}

// Where a SELL entry's column comes from: stored as it is, or (GLP_INDEX 16) as an offset from
// the entry's row. `rows` are the slice's perm entries (-1 for a padding row).
struct stored_columns {
  const std::int32_t* __restrict col;
  std::int64_t at(std::int64_t q, std::int32_t /*row*/) const { return col[q]; }
#if GLP_SIMD_EFF == 2
  __m256i at8(std::int64_t q, __m256i /*rows*/) const { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(col + q)); }
  __m128i at4(std::int64_t q, __m128i /*rows*/) const { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(col + q)); }
#endif
};
struct row_offsets {
  const std::int16_t* __restrict off;
  std::int64_t at(std::int64_t q, std::int32_t row) const { return row + off[q]; }
#if GLP_SIMD_EFF == 2
  __m256i at8(std::int64_t q, __m256i rows) const {
    return _mm256_add_epi32(rows, _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(off + q))));
  }
  __m128i at4(std::int64_t q, __m128i rows) const {
    return _mm_add_epi32(rows, _mm_cvtepi16_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(off + q))));
  }
#endif
};

// Prefetch of x for the entry PF positions ahead of q (clamped to the matrix). Past this slice
// the row of its lane here stands in for the entry's own: a hint, kept inside x.
template <class Cols>
inline void prefetch_sell(const double* x, const Cols& cols, const std::int32_t* rows, std::int64_t q, std::int64_t last,
                          std::int64_t ncols) {
  if constexpr (PF > 0) {
    const std::int64_t k = std::min(q + PF, last);
    const std::int64_t c = std::clamp<std::int64_t>(cols.at(k, rows[k % C]), 0, ncols - 1);
    __builtin_prefetch(x + c, 0, 3);
  } else {
    (void)x, (void)cols, (void)rows, (void)q, (void)last, (void)ncols;
  }
}

#if GLP_SIMD_EFF == 2
// x at the columns of the VL entries from q (8 lanes for __m256i rows, 4 for __m128i): with Dense
// (setup kept the flags), one vector load where setup found them consecutive, else a gather.
// Both read the same elements of x: the sums are the same bits.
template <bool Dense, class Cols, class Rows>
inline auto x_at(const sell_matrix& m, const Cols& cols, std::int64_t q, Rows rows, const double* __restrict x) {
  constexpr bool wide = sizeof(Rows) == 32;  // __m256i: 8 lanes; __m128i: 4
  const auto idx = [&] {
    if constexpr (wide)
      return cols.at8(q, rows);
    else
      return cols.at4(q, rows);
  }();
  const bool load = Dense && m.dense.p[q / (wide ? 8 : 4)] != 0;
  if constexpr (wide) {
    if (load) return _mm512_loadu_pd(x + _mm256_cvtsi256_si32(idx));
    return _mm512_i32gather_pd(idx, x, 8);
  } else {
    if (load) return _mm256_loadu_pd(x + _mm_cvtsi128_si32(idx));
    return _mm256_i32gather_pd(x, idx, 8);
  }
}
#endif

// One slice: sums of its C rows into out[0..C).
template <bool Dense, class Cols>
inline void sell_slice(const sell_matrix& m, const Cols& cols, std::int64_t s, const double* __restrict x,
                       double* __restrict out) {
  const double* __restrict val = m.val.p;
  const std::int32_t* rows = m.perm.p + s * C;
  const std::int64_t base = m.sptr.p[s], w = (m.sptr.p[s + 1] - base) / C;
  const std::int64_t last = m.sptr.p[m.nslices] - 1, nc = m.ncols;
#if GLP_SIMD_EFF == 2 && GLP_C >= 8
  constexpr int V = C / 8;  // zmm vectors per column step
  __m512d acc[U][V];
  __m256i rowv[V];
  for (int v = 0; v < V; ++v) rowv[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows + 8 * v));
  for (int u = 0; u < U; ++u)
    for (int v = 0; v < V; ++v) acc[u][v] = _mm512_setzero_pd();
  std::int64_t j = 0;
  for (; j + U <= w; j += U)
    for (int u = 0; u < U; ++u) {
      const std::int64_t q = base + (j + u) * C;
      for (int v = 0; v < V; ++v) {
        if constexpr (PF > 0)
          for (int t = 0; t < 8; ++t) prefetch_sell(x, cols, rows, q + 8 * v + t, last, nc);
        acc[u][v] = _mm512_fmadd_pd(_mm512_loadu_pd(val + q + 8 * v), x_at<Dense>(m, cols, q + 8 * v, rowv[v], x), acc[u][v]);
      }
    }
  for (; j < w; ++j) {
    const std::int64_t q = base + j * C;
    for (int v = 0; v < V; ++v) {
      if constexpr (PF > 0)
        for (int t = 0; t < 8; ++t) prefetch_sell(x, cols, rows, q + 8 * v + t, last, nc);
      acc[0][v] = _mm512_fmadd_pd(_mm512_loadu_pd(val + q + 8 * v), x_at<Dense>(m, cols, q + 8 * v, rowv[v], x), acc[0][v]);
    }
  }
  for (int h = U / 2; h >= 1; h /= 2)
    for (int u = 0; u < h; ++u)
      for (int v = 0; v < V; ++v) acc[u][v] = _mm512_add_pd(acc[u][v], acc[u + h][v]);
  for (int v = 0; v < V; ++v) _mm512_storeu_pd(out + 8 * v, acc[0][v]);
#elif GLP_SIMD_EFF == 2  // C == 4: one 256-bit AVX2 gather per column step
  __m256d acc[U];
  const __m128i rowv = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows));
  for (int u = 0; u < U; ++u) acc[u] = _mm256_setzero_pd();
  std::int64_t j = 0;
  for (; j + U <= w; j += U)
    for (int u = 0; u < U; ++u) {
      const std::int64_t q = base + (j + u) * C;
      if constexpr (PF > 0)
        for (int t = 0; t < 4; ++t) prefetch_sell(x, cols, rows, q + t, last, nc);
      acc[u] = _mm256_fmadd_pd(_mm256_loadu_pd(val + q), x_at<Dense>(m, cols, q, rowv, x), acc[u]);
    }
  for (; j < w; ++j) {
    const std::int64_t q = base + j * C;
    if constexpr (PF > 0)
      for (int t = 0; t < 4; ++t) prefetch_sell(x, cols, rows, q + t, last, nc);
    acc[0] = _mm256_fmadd_pd(_mm256_loadu_pd(val + q), x_at<Dense>(m, cols, q, rowv, x), acc[0]);
  }
  for (int h = U / 2; h >= 1; h /= 2)
    for (int u = 0; u < h; ++u) acc[u] = _mm256_add_pd(acc[u], acc[u + h]);
  _mm256_storeu_pd(out, acc[0]);
#else
  double acc[U][C];
  for (int u = 0; u < U; ++u)
    for (int l = 0; l < C; ++l) acc[u][l] = 0.0;
  std::int64_t j = 0;
  for (; j + U <= w; j += U)
    for (int u = 0; u < U; ++u) {
      const std::int64_t q = base + (j + u) * C;
      if constexpr (PF > 0)  // kept out of the lane loop, which the compiler vectorises
        for (int l = 0; l < C; ++l) prefetch_sell(x, cols, rows, q + l, last, nc);
#if GLP_SIMD_EFF == 1
#pragma omp simd
#endif
      for (int l = 0; l < C; ++l) acc[u][l] += val[q + l] * x[cols.at(q + l, rows[l])];
    }
  for (; j < w; ++j) {
    const std::int64_t q = base + j * C;
    if constexpr (PF > 0)
      for (int l = 0; l < C; ++l) prefetch_sell(x, cols, rows, q + l, last, nc);
#if GLP_SIMD_EFF == 1
#pragma omp simd
#endif
    for (int l = 0; l < C; ++l) acc[0][l] += val[q + l] * x[cols.at(q + l, rows[l])];
  }
  for (int h = U / 2; h >= 1; h /= 2)
    for (int u = 0; u < h; ++u)
#if GLP_SIMD_EFF == 1
#pragma omp simd
#endif
      for (int l = 0; l < C; ++l) acc[u][l] += acc[u + h][l];
  for (int l = 0; l < C; ++l) out[l] = acc[0][l];
#endif
}

inline void sell_store(const sell_matrix& m, std::int64_t s, const double* sums, double* __restrict y) {
#if GLP_SIGMA == 1
  const std::int64_t p0 = s * C;
  const std::int64_t n = std::min<std::int64_t>(C, m.nrows - p0);
  for (std::int64_t l = 0; l < n; ++l) y[p0 + l] = sums[l];
#else
  const std::int32_t* perm = m.perm.p + s * C;
  for (int l = 0; l < C; ++l)
    if (perm[l] >= 0) y[perm[l]] = sums[l];
#endif
}

template <bool Dense, class Cols>
void sell_spmv(const sell_matrix& m, const Cols& cols, const double* __restrict x, double* __restrict y) {
  const std::int64_t ns = m.nslices;
  if (m.sptr.p[ns] == 0) {  // all rows empty
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < m.nrows; ++i) y[i] = 0.0;
    return;
  }
#if GLP_SCHEDULE == 3
#pragma omp parallel
  {
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
    // weight of a slice: its padded entries plus C per slice for the row overhead
    const std::int64_t s0 = balanced_start(m.sptr.p, ns, C, t, T), s1 = balanced_start(m.sptr.p, ns, C, t + 1, T);
    alignas(64) double sums[C];
    for (std::int64_t s = s0; s < s1; ++s) {
      sell_slice<Dense>(m, cols, s, x, sums);
      sell_store(m, s, sums, y);
    }
  }
#else
#if GLP_CHUNK > 0
#define GLP_SELL_CHUNK ((GLP_CHUNK / GLP_C) > 0 ? (GLP_CHUNK / GLP_C) : 1)
  GLP_PRAGMA(omp parallel for schedule(GLP_SCHED_KIND, GLP_SELL_CHUNK))
#else
  GLP_PRAGMA(omp parallel for schedule(GLP_SCHED_KIND))
#endif
  for (std::int64_t s = 0; s < ns; ++s) {
    alignas(64) double sums[C];
    sell_slice<Dense>(m, cols, s, x, sums);
    sell_store(m, s, sums, y);
  }
#endif
}

int check_args(const glp_arg* args, int nargs, const int64_t* sizes) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  if (args[0].dtype != GLP_INT64 || args[1].dtype != GLP_INT32 || args[2].dtype != GLP_FLOAT64 || args[3].dtype != GLP_FLOAT64 ||
      args[4].dtype != GLP_FLOAT64)
    return 2;
  const int64_t nrows = sizes[0], ncols = sizes[1], nnz = sizes[2];
  if (nrows < 0 || ncols < 0 || nnz < 0 || nrows > INT32_MAX || ncols > INT32_MAX) return 3;
  if (args[0].count != nrows + 1 || args[1].count != nnz || args[2].count != nnz || args[3].count != ncols ||
      args[4].count != nrows)
    return 4;
  if (args[0].data == nullptr || (nrows > 0 && args[4].data == nullptr)) return 5;
  if (nnz > 0 && (args[1].data == nullptr || args[2].data == nullptr || args[3].data == nullptr)) return 5;
  const auto* rp = static_cast<const std::int64_t*>(args[0].data);
  if (rp[0] != 0 || rp[nrows] != nnz) return 6;
  return 0;
}

}  // namespace

GLP_EXPORT int glp_setup(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  g_sell.release();  // whatever an earlier setup built belongs to another matrix
  if (const int rc = check_args(args, nargs, sizes)) return rc;
#if GLP_FORMAT == 1
  if (sizes[0] == 0) return 0;  // no rows: nothing to convert, the kernel has nothing to write
  try {
    sell_build(sizes[0], sizes[1], static_cast<const std::int64_t*>(args[0].data), static_cast<const std::int32_t*>(args[1].data),
               static_cast<const double*>(args[2].data));
  } catch (const std::bad_alloc&) {
    g_sell.release();
    return 7;
  }
#endif
  return 0;
}

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  if (const int rc = check_args(args, nargs, sizes)) return rc;
  const std::int64_t nrows = sizes[0], ncols = sizes[1], nnz = sizes[2];
  if (nrows == 0) return 0;
  const auto* rp = static_cast<const std::int64_t*>(args[0].data);
  const auto* ci = static_cast<const std::int32_t*>(args[1].data);
  const auto* va = static_cast<const double*>(args[2].data);
  const auto* x = static_cast<const double*>(args[3].data);
  auto* y = static_cast<double*>(args[4].data);
#if GLP_FORMAT == 1
  const sell_matrix& m = g_sell;
  if (m.valid && m.rp == rp && m.ci == ci && m.va == va && m.nrows == nrows && m.ncols == ncols && m.nnz == nnz &&
      m.fingerprint == fingerprint(nrows, rp, ci, va, nnz)) {
    auto run = [&](const auto& cols) {  // with the flags where setup kept them (GLP_DENSE)
      if constexpr (GLP_DENSE_EFF != 0) {
        if (m.dense.p != nullptr) return sell_spmv<true>(m, cols, x, y);
      }
      sell_spmv<false>(m, cols, x, y);
    };
#if GLP_INDEX == 16
    if (m.off.p != nullptr) {
      run(row_offsets{m.off.p});
      return 0;
    }
#endif
    run(stored_columns{m.col.p});
    return 0;
  }
#else
  (void)ncols;
  (void)nnz;
#endif
  csr_spmv(nrows, rp, ci, va, x, y);  // no private format for this matrix: plain CSR
  return 0;
}
// galapagos:evolve-end
