// gemm / gemm_f32 reference (trusted): C = alpha*A*B + beta*C, row-major, written with Kokkos for
// clarity. Shared by both families; the element type is read from the arguments' dtype. Loaded
// into a process that has already called Kokkos::initialize; it never initialises or finalises
// Kokkos itself.
//
//   A: m x k, A(i,p) = A[i*k + p]     B: k x n, B(p,j) = B[p*n + j]     C: m x n, C[i*n + j]
//   C(i,j) = alpha * sum_p A(i,p)*B(p,j) + beta * C(i,j)      (beta == 0: C's input is not read)
//
// It must be more accurate than any candidate, whatever their summation order:
//   float64: each dot product is accumulated in double-double (Ogita-Rump-Oishi Dot2: the product
//            is split exactly with an FMA, the sum with TwoSum, the errors are summed separately).
//            Its error is about one rounding of the result plus O(k^2 eps^2) sum|a*b|, against
//            O(k eps) sum|a*b| for a plain double loop.
//   float32: the inputs are widened to double; products of two floats are exact in double and the
//            double sum loses at most ~k*2^-53 relative, far below float's 2^-24 rounding.
// Loop order: column blocks of JB columns (the parallel index), then rows, then p, then the JB
// columns of the block, so the k x JB panel of B is reused from cache across rows and the j loop
// vectorises.
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "glp_kernel.h"
#include "glp_parallel.hpp"

namespace {
using host_space = Kokkos::HostSpace;
using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
using exec_space = Kokkos::DefaultHostExecutionSpace;
using range = Kokkos::RangePolicy<exec_space, Kokkos::IndexType<int64_t>>;

constexpr int64_t JB = 64;  // columns per block

// float64: double-double accumulation of each dot product.
void gemm_f64(const double* a_ptr, const double* b_ptr, double alpha, double beta, double* c_ptr, int64_t m, int64_t n,
              int64_t k) {
  const Kokkos::View<const double*, host_space, unmanaged> A(a_ptr, m * k), B(b_ptr, k * n);
  const Kokkos::View<double*, host_space, unmanaged> C(c_ptr, m * n);
  const int64_t nblocks = (n + JB - 1) / JB;
  Kokkos::parallel_for(
      "glp_reference_gemm_f64", range(0, nblocks), KOKKOS_LAMBDA(const int64_t jb) {
        const int64_t j0 = jb * JB;
        const int64_t jn = n - j0 < JB ? n - j0 : JB;
        double s[JB], e[JB];  // running sum and accumulated rounding errors of each column
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < jn; ++j) s[j] = e[j] = 0.0;
          for (int64_t p = 0; p < k; ++p) {
            const double a = A(i * k + p);
            const double* b = &B(p * n + j0);
            for (int64_t j = 0; j < jn; ++j) {
              const double x = a * b[j];  // TwoProd: x + y == a*b exactly
              const double y = std::fma(a, b[j], -x);
              const double t = s[j] + x;  // TwoSum: t + w == s + x exactly
              const double z = t - s[j];
              const double w = (s[j] - (t - z)) + (x - z);
              s[j] = t;
              e[j] += w + y;
            }
          }
          for (int64_t j = 0; j < jn; ++j) {
            const double dot = s[j] + e[j];
            double& c = C(i * n + j0 + j);
            c = beta == 0.0 ? alpha * dot : alpha * dot + beta * c;
          }
        }
      });
  Kokkos::fence();
}

// float32: double accumulation (products of floats are exact in double).
void gemm_f32(const float* a_ptr, const float* b_ptr, float alpha_f, float beta_f, float* c_ptr, int64_t m, int64_t n,
              int64_t k) {
  const Kokkos::View<const float*, host_space, unmanaged> A(a_ptr, m * k), B(b_ptr, k * n);
  const Kokkos::View<float*, host_space, unmanaged> C(c_ptr, m * n);
  const double alpha = alpha_f, beta = beta_f;
  const int64_t nblocks = (n + JB - 1) / JB;
  Kokkos::parallel_for(
      "glp_reference_gemm_f32", range(0, nblocks), KOKKOS_LAMBDA(const int64_t jb) {
        const int64_t j0 = jb * JB;
        const int64_t jn = n - j0 < JB ? n - j0 : JB;
        double s[JB];
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < jn; ++j) s[j] = 0.0;
          for (int64_t p = 0; p < k; ++p) {
            const double a = A(i * k + p);
            const float* b = &B(p * n + j0);
            for (int64_t j = 0; j < jn; ++j) s[j] += a * static_cast<double>(b[j]);
          }
          for (int64_t j = 0; j < jn; ++j) {
            float& c = C(i * n + j0 + j);
            const double r = beta == 0.0 ? alpha * s[j] : alpha * s[j] + beta * static_cast<double>(c);
            c = static_cast<float>(r);
          }
        }
      });
  Kokkos::fence();
}

}  // namespace

GLP_EXPORT int glp_reference(const glp_arg* args, int nargs, const int64_t* sizes) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  const int32_t t = args[0].dtype;
  if (t != GLP_FLOAT64 && t != GLP_FLOAT32) return 2;
  for (int i = 1; i < 5; ++i)
    if (args[i].dtype != t) return 2;
  const int64_t m = sizes[0], n = sizes[1], k = sizes[2];
  if (m < 0 || n < 0 || k < 0) return 3;
  if (args[0].count != m * k || args[1].count != k * n || args[2].count != 1 || args[3].count != 1 || args[4].count != m * n)
    return 4;
  for (int i = 0; i < 5; ++i)
    if (args[i].data == nullptr && args[i].count > 0) return 5;
  if (!Kokkos::is_initialized()) return 6;
  if (m == 0 || n == 0) return 0;
  if (t == GLP_FLOAT64)
    gemm_f64(static_cast<const double*>(args[0].data), static_cast<const double*>(args[1].data),
             *static_cast<const double*>(args[2].data), *static_cast<const double*>(args[3].data),
             static_cast<double*>(args[4].data), m, n, k);
  else
    gemm_f32(static_cast<const float*>(args[0].data), static_cast<const float*>(args[1].data),
             *static_cast<const float*>(args[2].data), *static_cast<const float*>(args[3].data),
             static_cast<float*>(args[4].data), m, n, k);
  return 0;
}

// The checker for timed runs (glp_check, docs/writing-a-family.md): Freivalds' test. For a secret
// vector x of random signs, C_out*x must equal alpha*A*(B*x) + beta*C_in*x; both sides cost
// O(mn + kn + mk) instead of the product's O(mnk). float64 products are summed in long double
// (64-bit mantissa), float32 ones in double, so the check's own rounding (about n*eps of a row's
// size: ~1e-16 and ~1e-13 at the tune sizes) is far below either tolerance (1e-13, 1e-4). A wrong
// C gives (C_out - C)*x != 0 except for x in a set of measure zero; x is drawn after the
// candidate's run, from a seed it never sees.
// Error scale: with random signs |((C_out - C)*x)_i| is about the 2-norm of row i of the error,
// so it is divided by the largest row 2-norm of C_out (or by max|y| when that is larger): for
// rounding-sized errors spread over the row this is the family's max|C - C_ref| / max|C_ref|.
namespace {

// sum of a[j] * b[j] for j < n, in Acc: in 8 partial sums when Acc is double, which the compiler
// vectorises without reordering any one of them (long double has no vector instructions).
template <class Acc, class T, class U>
Acc dot(const T* a, const U* b, int64_t n) {
  constexpr int lanes = std::is_same_v<Acc, double> ? 8 : 1;
  Acc part[lanes] = {};
  int64_t j = 0;
  for (; j + lanes <= n; j += lanes)
    for (int l = 0; l < lanes; ++l) part[l] += static_cast<Acc>(a[j + l]) * static_cast<Acc>(b[j + l]);
  for (; j < n; ++j) part[0] += static_cast<Acc>(a[j]) * static_cast<Acc>(b[j]);
  Acc sum = 0;
  for (int l = 0; l < lanes; ++l) sum += part[l];
  return sum;
}

template <class T>
double freivalds(const T* a, const T* b, T alpha, T beta, const T* c_in, const T* c_out, int64_t m, int64_t n, int64_t k,
                 uint64_t seed) {
  using acc = std::conditional_t<std::is_same_v<T, float>, double, long double>;
  double worst = 0;
  std::vector<acc> x(static_cast<size_t>(n)), bx(static_cast<size_t>(k));
  // Both passes run on every core: shares of B's rows, then shares of C's rows.
  const int parts_k = glp::parts_for(k, 64), parts_m = glp::parts_for(m, 16);
  std::vector<acc> err(static_cast<size_t>(parts_m)), scale(static_cast<size_t>(parts_m));
  for (int round = 0; round < 2; ++round) {
    for (int64_t j = 0; j < n; ++j) {
      seed += 0x9e3779b97f4a7c15ull;  // splitmix64
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      x[static_cast<size_t>(j)] = ((z ^ (z >> 31)) & 1) ? acc(1) : acc(-1);
    }
    glp::parallel_parts(parts_k, k, [&](int, int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) bx[static_cast<size_t>(p)] = dot<acc>(b + p * n, x.data(), n);
    });
    glp::parallel_parts(parts_m, m, [&](int part, int64_t i0, int64_t i1) {
      acc e = 0, sc = 0;
      for (int64_t i = i0; i < i1; ++i) {
        const T* row = c_out + i * n;
        const acc abx = dot<acc>(a + i * k, bx.data(), k), cout = dot<acc>(row, x.data(), n), norm2 = dot<acc>(row, row, n);
        const acc cin = beta != T(0) ? dot<acc>(c_in + i * n, x.data(), n) : acc(0);
        const acc want = static_cast<acc>(alpha) * abx + (beta != T(0) ? static_cast<acc>(beta) * cin : acc(0));
        e = std::max(e, std::fabs(cout - want));
        sc = std::max({sc, std::sqrt(norm2), std::fabs(want)});
      }
      err[static_cast<size_t>(part)] = e;
      scale[static_cast<size_t>(part)] = sc;
    });
    acc e = 0, sc = 0;
    for (int t = 0; t < parts_m; ++t)
      e = std::max(e, err[static_cast<size_t>(t)]), sc = std::max(sc, scale[static_cast<size_t>(t)]);
    const double rel = sc > 0 ? static_cast<double>(e / sc) : static_cast<double>(e);
    worst = std::max(worst, std::isfinite(rel) ? rel : INFINITY);
  }
  return worst;
}

}  // namespace

GLP_EXPORT int glp_check(const glp_arg* inputs, const glp_arg* outputs, int nargs, const int64_t* sizes, uint64_t seed,
                         double* rel_error) {
  if (inputs == nullptr || outputs == nullptr || sizes == nullptr || rel_error == nullptr || nargs != 5) return 1;
  const int64_t m = sizes[0], n = sizes[1], k = sizes[2];
  if (m < 0 || n < 0 || k < 0 || inputs[0].count != m * k || inputs[1].count != k * n || outputs[4].count != m * n) return 4;
  for (int i = 0; i < 5; ++i)
    if (inputs[i].data == nullptr && inputs[i].count > 0) return 5;
  if (outputs[4].data == nullptr && m * n > 0) return 5;
  if (inputs[0].dtype == GLP_FLOAT64)
    *rel_error =
        freivalds(static_cast<const double*>(inputs[0].data), static_cast<const double*>(inputs[1].data),
                  *static_cast<const double*>(inputs[2].data), *static_cast<const double*>(inputs[3].data),
                  static_cast<const double*>(inputs[4].data), static_cast<const double*>(outputs[4].data), m, n, k, seed);
  else if (inputs[0].dtype == GLP_FLOAT32)
    *rel_error = freivalds(static_cast<const float*>(inputs[0].data), static_cast<const float*>(inputs[1].data),
                           *static_cast<const float*>(inputs[2].data), *static_cast<const float*>(inputs[3].data),
                           static_cast<const float*>(inputs[4].data), static_cast<const float*>(outputs[4].data), m, n, k, seed);
  else
    return 2;
  return 0;
}
