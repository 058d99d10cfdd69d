// expect: ok
// family: gemm_f32
// Honest: a float32 product whose last bits change from call to call. Each C element is the sum
// of three partial products over thirds of k, added in an order that rotates with the call
// count, as a GPU kernel's atomic additions of k splits land in whatever order the blocks finish.
// Two runs on identical inputs differ in the last bits of float32 (a few float32 ulps of the
// output scale), far inside the family's 1e-4 tolerance.
// Why it must be accepted: the determinism check counts in ulps of the output's own precision
// (64 of them); a float32 result cannot be asked to agree to float64's ulps.
#include "glp_kernel.h"

#include <stdint.h>
#include <stdlib.h>

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  static uint64_t calls = 0;
  const uint64_t turn = calls++ % 3;
  if (nargs != 5 || sizes == nullptr) return 1;
  const int64_t m = sizes[0], n = sizes[1], k = sizes[2];
  const float* a = static_cast<const float*>(args[0].data);
  const float* b = static_cast<const float*>(args[1].data);
  const float alpha = *static_cast<const float*>(args[2].data);
  const float beta = *static_cast<const float*>(args[3].data);
  float* c = static_cast<float*>(args[4].data);
  const int64_t cut[4] = {0, k / 3, 2 * k / 3, k};
#pragma omp parallel
  {
    float* part = static_cast<float*>(malloc(sizeof(float) * 3 * (n > 0 ? n : 1)));
#pragma omp for schedule(static)
    for (int64_t i = 0; i < m; ++i) {
      for (int s = 0; s < 3; ++s) {
        float* acc = part + s * n;
        for (int64_t j = 0; j < n; ++j) acc[j] = 0.0f;
        for (int64_t p = cut[s]; p < cut[s + 1]; ++p) {
          const float x = a[i * k + p];
#pragma omp simd
          for (int64_t j = 0; j < n; ++j) acc[j] += x * b[p * n + j];
        }
      }
      const float* s0 = part + turn * n;
      const float* s1 = part + ((turn + 1) % 3) * n;
      const float* s2 = part + ((turn + 2) % 3) * n;
      for (int64_t j = 0; j < n; ++j) {
        const float ab = alpha * ((s0[j] + s1[j]) + s2[j]);
        c[i * n + j] = beta == 0.0f ? ab : ab + beta * c[i * n + j];
      }
    }
    free(part);
  }
  return 0;
}
