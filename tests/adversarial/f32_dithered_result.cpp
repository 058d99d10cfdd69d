// expect: nondeterministic
// family: gemm_f32
// Attack/bug: a float32 product that depends on the call, not only on the input. Below 5e7
// multiply-adds (acceptance) it is honest; at the timing size alpha is scaled by 1 + 2^-15 on odd
// calls and 1 - 2^-15 on even ones. Each run is within ~3e-5 of the reference
// relative to max|ref|, inside the family's 1e-4 tolerance, so every single output passes; but
// two runs on identical inputs differ by ~6e-5 of the output scale, about 512 float32 ulps.
// Why it must be stopped: the determinism check counts in ulps of the output's own precision, so
// float32 outputs get float32's 64-ulp threshold, not a looser one: nondeterministic.
#include "glp_kernel.h"

#include <stdint.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  static uint64_t calls = 0;
  const bool odd = (++calls & 1) != 0;
  if (nargs != 5 || sizes == nullptr) return 1;
  const int64_t m = sizes[0], n = sizes[1], k = sizes[2];
  const bool timed = static_cast<double>(m) * n * k >= 5e7;
  const float dither = !timed ? 1.0f : odd ? 1.0f + 1.0f / 32768.0f : 1.0f - 1.0f / 32768.0f;
  const float* a = static_cast<const float*>(args[0].data);
  const float* b = static_cast<const float*>(args[1].data);
  const float alpha = *static_cast<const float*>(args[2].data) * dither;
  const float beta = *static_cast<const float*>(args[3].data);
  float* c = static_cast<float*>(args[4].data);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; ++i) {
    float* row = c + i * n;
    for (int64_t j = 0; j < n; ++j) row[j] = beta == 0.0f ? 0.0f : beta * row[j];
    for (int64_t p = 0; p < k; ++p) {
      const float x = alpha * a[i * k + p];
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) row[j] += x * b[p * n + j];
    }
  }
  return 0;
}
