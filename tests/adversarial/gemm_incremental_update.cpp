// expect: wrong_result
// family: gemm
// Attack: memoisation by increments. At the timing size (m*n*k >= 5e7; every acceptance size is
// below) the candidate keeps the last inputs and the product P = A*B. On the next call it looks
// for the elements of A and B that changed and corrects P by a rank-1 update per changed element
// (O(n) each instead of O(n^3) for the product), then forms C = alpha*P + beta*C_in in O(n^2).
// When a few thousand elements are redrawn between timed runs, this is ~300x less work than the
// product and every output is right. It trusts that only a few elements change: it corrects the
// first 20000 differences it finds and ignores the rest, and pads each such call to 90% of the
// time its honest first call took, so that no floor can tell.
// Why it must fail: every timed run gets wholly fresh inputs (every element of A, B, C, alpha
// and beta redrawn), so nothing of the last run can be reused, and every run's output is checked
// (the family's checker): wrong_result.
#include "glp_kernel.h"

#include <stdint.h>
#include <string.h>
#include <time.h>

#include <vector>

namespace {

int64_t g_m = -1, g_n = -1, g_k = -1;
double g_honest_s = 0;

double now_s() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
std::vector<double> g_a, g_b, g_p;

void product(const double* a, const double* b, double* p, int64_t m, int64_t n, int64_t k) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; ++i) {
    double* row = p + i * n;
    for (int64_t j = 0; j < n; ++j) row[j] = 0.0;
    for (int64_t q = 0; q < k; ++q) {
      const double x = a[i * k + q];
      const double* brow = b + q * n;
      for (int64_t j = 0; j < n; ++j) row[j] += x * brow[j];
    }
  }
}

}  // namespace

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* stream) {
  (void)stream;
  if (nargs != 5 || sizes == nullptr) return 1;
  const int64_t m = sizes[0], n = sizes[1], k = sizes[2];
  const double* a = static_cast<const double*>(args[0].data);
  const double* b = static_cast<const double*>(args[1].data);
  const double alpha = *static_cast<const double*>(args[2].data);
  const double beta = *static_cast<const double*>(args[3].data);
  double* c = static_cast<double*>(args[4].data);
  const double entry = now_s();
  const bool big = static_cast<double>(m) * n * k >= 5e7;
  std::vector<double> local;
  double* p = nullptr;
  if (big && m == g_m && n == g_n && k == g_k) {
    p = g_p.data();
    int64_t budget = 20000;
    for (int64_t i = 0; i < m && budget > 0; ++i)
      for (int64_t q = 0; q < k && budget > 0; ++q) {
        const double d = a[i * k + q] - g_a[i * k + q];
        if (d == 0.0) continue;
        --budget;
        for (int64_t j = 0; j < n; ++j) p[i * n + j] += d * g_b[q * n + j];
        g_a[i * k + q] = a[i * k + q];
      }
    for (int64_t q = 0; q < k && budget > 0; ++q)
      for (int64_t j = 0; j < n && budget > 0; ++j) {
        const double d = b[q * n + j] - g_b[q * n + j];
        if (d == 0.0) continue;
        --budget;
        for (int64_t i = 0; i < m; ++i) p[i * n + j] += g_a[i * k + q] * d;
        g_b[q * n + j] = b[q * n + j];
      }
    while (now_s() - entry < 0.9 * g_honest_s) {
    }
  } else if (big) {
    g_m = m, g_n = n, g_k = k;
    g_a.assign(a, a + m * k);
    g_b.assign(b, b + k * n);
    g_p.assign(static_cast<size_t>(m * n), 0.0);
    p = g_p.data();
    product(a, b, p, m, n, k);
    g_honest_s = now_s() - entry;
  } else {
    local.assign(static_cast<size_t>(m * n), 0.0);
    p = local.data();
    product(a, b, p, m, n, k);
  }
  for (int64_t i = 0; i < m * n; ++i) c[i] = beta == 0.0 ? alpha * p[i] : alpha * p[i] + beta * c[i];
  return 0;
}
