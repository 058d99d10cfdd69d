// bench/stencil3d7_cpu_points ROUNDS SO...: times builds of the stencil3d7 CPU template side by
// side at the `tune` size (320x240x200): ROUNDS rounds in which every build is called once in
// turn, each call after a 256 MiB sweep that evicts the caches. Every build's v must equal the
// first one's within rounding (x blocks add some edge points in another order). Prints each
// build's median and minimum and the median's ratio to the first build's. Run by bench/stencil3d7_cpu_points.sh.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "glp_kernel.h"

using kernel_fn = int (*)(const glp_arg*, int, const int64_t*, void*);

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: stencil3d7_cpu_points ROUNDS SO...\n");
    return 2;
  }
  const int rounds = std::atoi(argv[1]), builds = argc - 2;
  const int64_t sizes[3] = {320, 240, 200}, n = sizes[0] * sizes[1] * sizes[2];
  std::vector<double> u(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    u[static_cast<size_t>(i)] = std::sin(0.001 * static_cast<double>(i)) + 0.01 * static_cast<double>(i % 7);
  std::vector<std::vector<double>> v(static_cast<size_t>(builds), std::vector<double>(static_cast<size_t>(n)));
  std::vector<kernel_fn> kernel;
  for (int b = 0; b < builds; ++b) {
    void* h = dlopen(argv[2 + b], RTLD_NOW | RTLD_LOCAL);
    kernel.push_back(h != nullptr ? reinterpret_cast<kernel_fn>(dlsym(h, "glp_kernel")) : nullptr);
    if (kernel.back() == nullptr) {
      std::fprintf(stderr, "stencil3d7_cpu_points: %s: no glp_kernel (%s)\n", argv[2 + b], h == nullptr ? dlerror() : "");
      return 1;
    }
  }
  std::vector<char> sweep(256u << 20);
  std::vector<std::vector<double>> times(static_cast<size_t>(builds));
  for (int r = 0; r < rounds; ++r)
    for (int b = 0; b < builds; ++b) {
      const glp_arg args[2] = {{u.data(), n, GLP_FLOAT64, 0}, {v[static_cast<size_t>(b)].data(), n, GLP_FLOAT64, 0}};
      std::memset(sweep.data(), r + b, sweep.size());
      const auto t0 = std::chrono::steady_clock::now();
      const int rc = kernel[static_cast<size_t>(b)](args, 2, sizes, nullptr);
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (rc != 0) {
        std::fprintf(stderr, "stencil3d7_cpu_points: %s returned %d\n", argv[2 + b], rc);
        return 1;
      }
      times[static_cast<size_t>(b)].push_back(t);
    }
  int status = 0;
  double first = 0, scale = 1e-300;  // the largest |v| of the first build
  for (const double x : v[0]) scale = std::max(scale, std::fabs(x));
  for (int b = 0; b < builds; ++b) {
    // Blocked rows (TILE_X) add some of their edge points in another order than whole rows do:
    // a last-bit difference is rounding, anything larger a wrong kernel.
    double worst = 0;
    for (int64_t i = 0; i < n; ++i)
      worst = std::max(worst, std::fabs(v[static_cast<size_t>(b)][static_cast<size_t>(i)] - v[0][static_cast<size_t>(i)]));
    worst /= scale;
    const bool same = worst == 0, close = worst <= 4e-16;
    status |= close ? 0 : 1;
    char note[96] = "";
    if (!same)
      std::snprintf(note, sizeof note, "  v differs from the first build's by %.1e of max |v|%s", worst,
                    close ? " (rounding)" : ": WRONG");
    auto t = times[static_cast<size_t>(b)];
    std::sort(t.begin(), t.end());
    if (b == 0) first = t[t.size() / 2];
    std::printf("%-60s median %7.3f ms  min %7.3f ms  %.3fx of the first%s\n", argv[2 + b], t[t.size() / 2] * 1e3, t[0] * 1e3,
                first / t[t.size() / 2], note);
  }
  return status;
}
