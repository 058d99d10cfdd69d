// stencil3d7 reference (trusted): one weighted-Jacobi sweep of the 7-point Laplacian, in double,
// written with Kokkos for clarity rather than speed. Loaded into a process that has already
// called Kokkos::initialize; it never initialises or finalises Kokkos itself.
//
//   c = (k*ny + j)*nx + i
//   interior (1<=i<=nx-2, 1<=j<=ny-2, 1<=k<=nz-2):
//     v[c] = (1/3)*u[c] + (1/9)*(u[c-1] + u[c+1] + u[c-nx] + u[c+nx] + u[c-nx*ny] + u[c+nx*ny])
//   every other point (and every point when a dimension is < 3): v[c] = u[c]
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "glp_kernel.h"
#include "glp_parallel.hpp"

namespace {
using host_space = Kokkos::HostSpace;
using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
using in_view = Kokkos::View<const double*, host_space, unmanaged>;
using out_view = Kokkos::View<double*, host_space, unmanaged>;
using exec_space = Kokkos::DefaultHostExecutionSpace;
using policy_3d = Kokkos::MDRangePolicy<exec_space, Kokkos::Rank<3>, Kokkos::IndexType<int64_t>>;
}  // namespace

GLP_EXPORT int glp_reference(const glp_arg* args, int nargs, const int64_t* sizes) {
  if (args == nullptr || sizes == nullptr || nargs != 2) return 1;
  if (args[0].dtype != GLP_FLOAT64 || args[1].dtype != GLP_FLOAT64) return 2;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx < 0 || ny < 0 || nz < 0) return 3;
  const int64_t n = nx * ny * nz;
  if (args[0].count != n || args[1].count != n) return 4;
  if (n == 0) return 0;
  if (args[0].data == nullptr || args[1].data == nullptr) return 5;
  if (!Kokkos::is_initialized()) return 6;

  const in_view u(static_cast<const double*>(args[0].data), n);
  const out_view v(static_cast<double*>(args[1].data), n);
  const int64_t sy = nx;       // stride of j
  const int64_t sz = nx * ny;  // stride of k

  Kokkos::parallel_for(
      "glp_reference_stencil3d7", policy_3d({0, 0, 0}, {nz, ny, nx}),
      KOKKOS_LAMBDA(const int64_t k, const int64_t j, const int64_t i) {
        const int64_t c = (k * ny + j) * nx + i;
        const bool interior = i >= 1 && i <= nx - 2 && j >= 1 && j <= ny - 2 && k >= 1 && k <= nz - 2;
        if (interior) {
          v(c) = (1.0 / 3.0) * u(c) + (1.0 / 9.0) * (u(c - 1) + u(c + 1) + u(c - sy) + u(c + sy) + u(c - sz) + u(c + sz));
        } else {
          v(c) = u(c);
        }
      });
  Kokkos::fence();
  return 0;
}

// The checker for timed runs (glp_check, docs/writing-a-family.md): the reference's own formula,
// point by point, compared on the spot with the candidate's v, on every core. It judges exactly
// what the reference comparison judges (max|v - ref| / max|ref| over every point: no sampling, no
// projection) without writing the reference's output and reading it back, and it needs no seed.
namespace {

// Running maxima of |v - ref| and |ref| in `lanes` partial results, so that the compiler
// vectorises the interior of a row without reordering any sum; `sum` adds every |v - ref|, so
// that a NaN anywhere (which no maximum keeps) still shows.
struct row_maxima {
  static constexpr int lanes = 8;
  double err[lanes] = {}, scale[lanes] = {}, sum[lanes] = {};
  void take(int lane, double ref, double got) {
    const double d = std::fabs(got - ref), r = std::fabs(ref);
    err[lane] = d > err[lane] ? d : err[lane];
    scale[lane] = r > scale[lane] ? r : scale[lane];
    sum[lane] += d;
  }
};

}  // namespace

GLP_EXPORT int glp_check(const glp_arg* inputs, const glp_arg* outputs, int nargs, const int64_t* sizes, uint64_t,
                         double* rel_error) {
  if (inputs == nullptr || outputs == nullptr || sizes == nullptr || rel_error == nullptr || nargs != 2) return 1;
  if (inputs[0].dtype != GLP_FLOAT64 || outputs[1].dtype != GLP_FLOAT64) return 2;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx < 0 || ny < 0 || nz < 0) return 3;
  const int64_t n = nx * ny * nz;
  if (inputs[0].count != n || outputs[1].count != n) return 4;
  *rel_error = 0;
  if (n == 0) return 0;
  const double* u = static_cast<const double*>(inputs[0].data);
  const double* v = static_cast<const double*>(outputs[1].data);
  if (u == nullptr || v == nullptr) return 5;
  const int64_t sy = nx, sz = nx * ny;
  constexpr int lanes = row_maxima::lanes;
  // Shares of whole (k, j) rows.
  const int parts = glp::parts_for(nz * ny, 64);
  std::vector<double> err(static_cast<size_t>(parts), 0.0), scale(static_cast<size_t>(parts), 0.0);
  glp::parallel_parts(parts, nz * ny, [&](int part, int64_t begin, int64_t end) {
    row_maxima m;
    for (int64_t row = begin; row < end; ++row) {
      const int64_t k = row / ny, j = row % ny, c0 = row * nx;
      if (!(j >= 1 && j <= ny - 2 && k >= 1 && k <= nz - 2 && nx >= 3)) {  // a boundary row: v = u
        for (int64_t i = 0; i < nx; ++i) m.take(0, u[c0 + i], v[c0 + i]);
        continue;
      }
      m.take(0, u[c0], v[c0]);
      m.take(0, u[c0 + nx - 1], v[c0 + nx - 1]);
      auto interior = [&](int64_t c) {
        return (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - sy] + u[c + sy] + u[c - sz] + u[c + sz]);
      };
      int64_t i = 1;
      for (; i + lanes <= nx - 1; i += lanes)
        for (int l = 0; l < lanes; ++l) m.take(l, interior(c0 + i + l), v[c0 + i + l]);
      for (; i < nx - 1; ++i) m.take(0, interior(c0 + i), v[c0 + i]);
    }
    double e = 0, s = 0, sum = 0;
    for (int l = 0; l < lanes; ++l) e = std::max(e, m.err[l]), s = std::max(s, m.scale[l]), sum += m.sum[l];
    err[static_cast<size_t>(part)] = std::isnan(sum) ? INFINITY : e;
    scale[static_cast<size_t>(part)] = s;
  });
  double e = 0, s = 0;
  for (int t = 0; t < parts; ++t) e = std::max(e, err[static_cast<size_t>(t)]), s = std::max(s, scale[static_cast<size_t>(t)]);
  *rel_error = s > 0 ? e / s : e;
  return 0;
}
