#include "family_scaffold.hpp"

#include <unistd.h>

#include <fstream>
#include <system_error>

#include "util/error.hpp"

namespace galapagos::cli {

namespace {

const char* family_toml = R"(name = "@NAME@"
description = "y = alpha * x on float64 vectors of n elements; alpha is a one-element array (a scalar argument). Every element of y must be written; x and alpha are read only. Any n >= 1 is valid."
symbols = ["n"]
# max|y - y_ref| / max|y_ref|: one multiplication per element, exact in float64 up to rounding.
tolerance = 1e-14

[[args]]
name = "x"
dtype = "float64"
shape = "n"
intent = "in"
distributions = ["uniform", "signed", "heavy_tailed"]

[[args]]
name = "alpha"  # a scalar: a one-element array, drawn like every input
dtype = "float64"
shape = "1"
intent = "in"
distributions = ["uniform", "signed"]

[[args]]
name = "y"
dtype = "float64"
shape = "n"
intent = "out"

[sizes]
# Fitness sizes: above 500 000 elements and several times the last-level cache in all.
tune = { n = 8000000 }
small = { n = 600000 }
# Acceptance sizes: the smallest, tiny and odd ones no unroll factor divides, one medium.
accept = [
  { n = 1 },
  { n = 2 },
  { n = 3 },
  { n = 7 },
  { n = 17 },
  { n = 1001 },
  { n = 4099 },
  { n = 65537 },
]

[cost]
bytes = "16*n"
flops = "n"

[reference]
source = "reference.cpp"

[cpu]
template = "cpu/@NAME@.cpp"
flags = ["-std=c++17", "-O3", "-march=native", "-fopenmp"]
libs = []
constraints = []

[[cpu.params]]
name = "UNROLL"
values = [1, 2, 4, 8]

[[cpu.baselines]]
name = "openmp_plain"
source = "baselines/openmp_plain.cpp"
)";

const char* reference_cpp = R"(// @NAME@ reference (trusted): y = alpha * x in double, written with Kokkos for clarity. Loaded
// into a process that has already called Kokkos::initialize; it never initialises or finalises it.
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "glp_kernel.h"

namespace {
using unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
using in_view = Kokkos::View<const double*, Kokkos::HostSpace, unmanaged>;
using out_view = Kokkos::View<double*, Kokkos::HostSpace, unmanaged>;
using policy = Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace, Kokkos::IndexType<int64_t>>;
}  // namespace

GLP_EXPORT int glp_reference(const glp_arg* args, int nargs, const int64_t* sizes) {
  if (args == nullptr || sizes == nullptr || nargs != 3) return 1;
  for (int a = 0; a < 3; ++a)
    if (args[a].dtype != GLP_FLOAT64) return 2;
  const int64_t n = sizes[0];
  if (n < 0 || args[0].count != n || args[1].count != 1 || args[2].count != n) return 3;
  if (!Kokkos::is_initialized()) return 4;
  const in_view x(static_cast<const double*>(args[0].data), n);
  const double alpha = *static_cast<const double*>(args[1].data);
  const out_view y(static_cast<double*>(args[2].data), n);
  Kokkos::parallel_for("glp_reference_@NAME@", policy(0, n), KOKKOS_LAMBDA(const int64_t i) { y(i) = alpha * x(i); });
  Kokkos::fence();
  return 0;
}
)";

const char* template_cpp = R"(// @NAME@ template: y = alpha * x with OpenMP, the inner loop unrolled GLP_UNROLL times.
// Parameters arrive as -DGLP_<NAME>=<value>; each has a default so the file builds on its own.
#include <cstdint>

#include "glp_kernel.h"

#ifndef GLP_UNROLL
#define GLP_UNROLL 1
#endif
#if GLP_UNROLL != 1 && GLP_UNROLL != 2 && GLP_UNROLL != 4 && GLP_UNROLL != 8
#error "@NAME@: GLP_UNROLL must be 1, 2, 4 or 8"
#endif

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  if (args == nullptr || sizes == nullptr || nargs != 3) return 1;
  for (int a = 0; a < 3; ++a)
    if (args[a].dtype != GLP_FLOAT64) return 2;
  const int64_t n = sizes[0];
  if (n < 0 || args[0].count != n || args[1].count != 1 || args[2].count != n) return 3;
  const double* x = static_cast<const double*>(args[0].data);
  const double alpha = *static_cast<const double*>(args[1].data);
  double* y = static_cast<double*>(args[2].data);
  const int64_t blocks = n / GLP_UNROLL;
#pragma omp parallel
  {
#pragma omp for schedule(static) nowait
    for (int64_t b = 0; b < blocks; ++b)
      for (int64_t u = 0; u < GLP_UNROLL; ++u) y[b * GLP_UNROLL + u] = alpha * x[b * GLP_UNROLL + u];
#pragma omp single nowait
    for (int64_t i = blocks * GLP_UNROLL; i < n; ++i) y[i] = alpha * x[i];  // the remainder
  }
  return 0;
}
)";

const char* baseline_cpp = R"(// @NAME@ baseline: the plain OpenMP loop a user would write.
#include <cstdint>

#include "glp_kernel.h"

GLP_EXPORT int glp_kernel(const glp_arg* args, int nargs, const int64_t* sizes, void* /*stream*/) {
  if (args == nullptr || sizes == nullptr || nargs != 3) return 1;
  const int64_t n = sizes[0];
  if (n < 0 || args[0].count != n || args[1].count != 1 || args[2].count != n) return 3;
  const double* x = static_cast<const double*>(args[0].data);
  const double alpha = *static_cast<const double*>(args[1].data);
  double* y = static_cast<double*>(args[2].data);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < n; ++i) y[i] = alpha * x[i];
  return 0;
}
)";

std::string with_name(std::string text, const std::string& name) {
  for (auto pos = text.find("@NAME@"); pos != std::string::npos; pos = text.find("@NAME@", pos + name.size()))
    text.replace(pos, 6, name);
  return text;
}

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw error(file.string(), "cannot write");
}

}  // namespace

std::filesystem::path write_family_scaffold(const std::string& name, const std::filesystem::path& dir) {
  // The folder name is the family's name, a C identifier's shape in lower case: it also names
  // the template file and the reference's Kokkos label.
  bool valid = !name.empty() && name.size() <= 64 && name[0] >= 'a' && name[0] <= 'z';
  for (const char ch : name) valid = valid && ((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_');
  if (!valid) throw error("family new " + name, "a family name is a lower-case letter followed by a-z, 0-9 or _");
  if (!std::filesystem::is_directory(dir)) throw error(dir.string(), "no such folder (give an existing --dir)");
  const auto target = dir / name;
  if (std::filesystem::exists(std::filesystem::symlink_status(target)))
    throw error(target.string(), "already exists: galapagos never replaces a family");
  // Written into a hidden folder beside the target, then renamed: whole or not at all.
  const auto work = dir / ("." + name + ".new-" + std::to_string(getpid()));
  try {
    write_text(work / "family.toml", with_name(family_toml, name));
    write_text(work / "reference.cpp", with_name(reference_cpp, name));
    write_text(work / "cpu" / (name + ".cpp"), with_name(template_cpp, name));
    write_text(work / "baselines" / "openmp_plain.cpp", with_name(baseline_cpp, name));
    std::filesystem::rename(work, target);
  } catch (const std::exception&) {
    std::error_code ignored;
    std::filesystem::remove_all(work, ignored);
    throw;
  }
  return target;
}

}  // namespace galapagos::cli
