// expect: ok
// Honest variant 6: streaming (non-temporal) stores for the interior of each row, so v is
// written without a read-for-ownership. Each interior row is peeled with scalar stores until
// the destination is vector-aligned, then written with _mm512_stream_pd (AVX-512) or
// _mm256_stream_pd (AVX2), then a scalar tail; without either ISA, or if v is not even
// 8-byte aligned, plain stores are used. Non-temporal stores are weakly ordered, so every
// OpenMP thread issues _mm_sfence() after its share of rows and before the implicit barrier
// (a fence on the master thread alone would not order the other threads' stores). It moves
// fewer bytes than a plain kernel (no write-allocate), which the physical-floor check must
// allow for. Handles dims < 3. Expected: ok.
#include "glp_kernel.h"

#include <stdint.h>
#include <string.h>

#include <immintrin.h>

namespace {

inline double point(const double* __restrict u, int64_t c, int64_t sy, int64_t sz) {
  return (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
}

// Writes v[row+1 .. row+nx-2] (the interior of one row).
inline void interior_row(const double* __restrict u, double* __restrict v, int64_t row, int64_t nx, int64_t sy, int64_t sz,
                         bool can_stream) {
  int64_t i = 1;
  const int64_t end = nx - 1;
#if defined(__AVX512F__) || defined(__AVX2__)
#if defined(__AVX512F__)
  constexpr int64_t W = 8;
  constexpr uintptr_t A = 64;
#else
  constexpr int64_t W = 4;
  constexpr uintptr_t A = 32;
#endif
  if (can_stream) {
    while (i < end && (reinterpret_cast<uintptr_t>(v + row + i) & (A - 1)) != 0) {
      v[row + i] = point(u, row + i, sy, sz);
      ++i;
    }
#if defined(__AVX512F__)
    const __m512d c0 = _mm512_set1_pd(1.0 / 3.0), c1 = _mm512_set1_pd(1.0 / 9.0);
    for (; i + W <= end; i += W) {
      const double* p = u + row + i;
      __m512d s = _mm512_add_pd(_mm512_loadu_pd(p - 1), _mm512_loadu_pd(p + 1));
      s = _mm512_add_pd(s, _mm512_loadu_pd(p - sy));
      s = _mm512_add_pd(s, _mm512_loadu_pd(p + sy));
      s = _mm512_add_pd(s, _mm512_loadu_pd(p - sz));
      s = _mm512_add_pd(s, _mm512_loadu_pd(p + sz));
      const __m512d r = _mm512_add_pd(_mm512_mul_pd(c0, _mm512_loadu_pd(p)), _mm512_mul_pd(c1, s));
      _mm512_stream_pd(v + row + i, r);
    }
#else
    const __m256d c0 = _mm256_set1_pd(1.0 / 3.0), c1 = _mm256_set1_pd(1.0 / 9.0);
    for (; i + W <= end; i += W) {
      const double* p = u + row + i;
      __m256d s = _mm256_add_pd(_mm256_loadu_pd(p - 1), _mm256_loadu_pd(p + 1));
      s = _mm256_add_pd(s, _mm256_loadu_pd(p - sy));
      s = _mm256_add_pd(s, _mm256_loadu_pd(p + sy));
      s = _mm256_add_pd(s, _mm256_loadu_pd(p - sz));
      s = _mm256_add_pd(s, _mm256_loadu_pd(p + sz));
      const __m256d r = _mm256_add_pd(_mm256_mul_pd(c0, _mm256_loadu_pd(p)), _mm256_mul_pd(c1, s));
      _mm256_stream_pd(v + row + i, r);
    }
#endif
  }
#else
  (void)can_stream;
#endif
  for (; i < end; ++i) v[row + i] = point(u, row + i, sy, sz);
}

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs < 2 || sizes == nullptr) return 1;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx <= 0 || ny <= 0 || nz <= 0) return 1;
  const int64_t n = nx * ny * nz;
  if (args[0].count < n || args[1].count < n) return 2;
  const double* __restrict u = static_cast<const double*>(args[0].data);
  double* __restrict v = static_cast<double*>(args[1].data);
  const int64_t sy = nx, sz = nx * ny;

  if (nx < 3 || ny < 3 || nz < 3) {
    memcpy(v, u, static_cast<size_t>(n) * sizeof(double));
    return 0;
  }
  const bool can_stream = (reinterpret_cast<uintptr_t>(v) & (sizeof(double) - 1)) == 0;

#pragma omp parallel
  {
#pragma omp for collapse(2) schedule(static) nowait
    for (int64_t k = 0; k < nz; ++k) {
      for (int64_t j = 0; j < ny; ++j) {
        const int64_t row = (k * ny + j) * nx;
        if (k == 0 || k == nz - 1 || j == 0 || j == ny - 1) {
          memcpy(v + row, u + row, static_cast<size_t>(nx) * sizeof(double));
        } else {
          v[row] = u[row];
          interior_row(u, v, row, nx, sy, sz, can_stream);
          v[row + nx - 1] = u[row + nx - 1];
        }
      }
    }
    _mm_sfence();  // order this thread's streaming stores before the barrier
  }
  return 0;
}
