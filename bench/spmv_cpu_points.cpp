// bench/spmv_cpu_points N ROUNDS SO...: times builds of the spmv CPU template (each a shared object
// with glp_setup/glp_kernel) side by side on the 27-point Poisson matrix of an N^3 grid (with
// SPMV_POINTS_MATRIX=random: as many rows, each with 27 distinct columns drawn at random, the same
// matrix every run, for what a kernel does where nothing is structured): one
// setup per build, then ROUNDS rounds in which every build is called once in turn, each call after
// a 256 MiB sweep that evicts the caches. Every build's y is checked against the first one's
// (relative 1e-12). Prints each build's median and minimum, the GB/s of the CSR problem's bytes
// (the cost model's floor) and the median's ratio to the first build's. Run by
// bench/spmv_cpu_points.sh, which compiles the points.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "glp_kernel.h"

using entry_fn = int (*)(const glp_arg*, int, const int64_t*, void*);

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: spmv_cpu_points N ROUNDS SO...\n");
    return 2;
  }
  const int n = std::atoi(argv[1]), rounds = std::atoi(argv[2]), builds = argc - 3;
  std::vector<int64_t> rp{0};
  std::vector<int32_t> ci;
  std::vector<double> va;
  const char* kind = std::getenv("SPMV_POINTS_MATRIX");
  const bool random = kind != nullptr && std::string(kind) == "random";
  if (kind != nullptr && !random) {
    std::fprintf(stderr, "spmv_cpu_points: SPMV_POINTS_MATRIX must be 'random' or unset, not '%s'\n", kind);
    return 2;
  }
  if (random) {
    const int64_t rows = static_cast<int64_t>(n) * n * n;
    std::mt19937_64 draw(2026);
    std::uniform_int_distribution<int32_t> column(0, static_cast<int32_t>(rows - 1));
    std::vector<int32_t> row;
    for (int64_t r = 0; r < rows; ++r) {
      row.clear();
      while (row.size() < 27) {
        const int32_t c = column(draw);
        if (std::find(row.begin(), row.end(), c) == row.end()) row.push_back(c);
      }
      std::sort(row.begin(), row.end());
      for (const int32_t c : row) {
        ci.push_back(c);
        va.push_back(c == r ? 26.0 : -1.0 - 0.001 * static_cast<double>(ci.size() % 7));
      }
      rp.push_back(static_cast<int64_t>(ci.size()));
    }
  }
  for (int z = 0; z < n && !random; ++z)
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        for (int dz = -1; dz <= 1; ++dz)
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int X = x + dx, Y = y + dy, Z = z + dz;
              if (X < 0 || Y < 0 || Z < 0 || X >= n || Y >= n || Z >= n) continue;
              ci.push_back((Z * n + Y) * n + X);
              va.push_back(dx == 0 && dy == 0 && dz == 0 ? 26.0 : -1.0 - 0.001 * static_cast<double>(ci.size() % 7));
            }
        rp.push_back(static_cast<int64_t>(ci.size()));
      }
  const int64_t rows = static_cast<int64_t>(n) * n * n, nnz = static_cast<int64_t>(ci.size());
  std::vector<double> x(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) x[static_cast<size_t>(i)] = 1.0 + static_cast<double>(i % 13) * 0.1;
  std::vector<std::vector<double>> y(static_cast<size_t>(builds), std::vector<double>(static_cast<size_t>(rows)));
  const int64_t sizes[3] = {rows, rows, nnz};
  auto args_for = [&](std::vector<double>& out) {
    std::vector<glp_arg> a(5);
    a[0] = {rp.data(), rows + 1, GLP_INT64};
    a[1] = {ci.data(), nnz, GLP_INT32};
    a[2] = {va.data(), nnz, GLP_FLOAT64};
    a[3] = {x.data(), rows, GLP_FLOAT64};
    a[4] = {out.data(), rows, GLP_FLOAT64};
    return a;
  };
  std::vector<entry_fn> kernel(static_cast<size_t>(builds));
  for (int b = 0; b < builds; ++b) {
    void* h = dlopen(argv[3 + b], RTLD_NOW | RTLD_LOCAL);
    if (h == nullptr) {
      std::fprintf(stderr, "spmv_cpu_points: %s\n", dlerror());
      return 1;
    }
    auto setup = reinterpret_cast<entry_fn>(dlsym(h, "glp_setup"));
    kernel[static_cast<size_t>(b)] = reinterpret_cast<entry_fn>(dlsym(h, "glp_kernel"));
    const auto a = args_for(y[static_cast<size_t>(b)]);
    if (kernel[static_cast<size_t>(b)] == nullptr || (setup != nullptr && setup(a.data(), 5, sizes, nullptr) != 0)) {
      std::fprintf(stderr, "spmv_cpu_points: %s: no glp_kernel, or its setup failed\n", argv[3 + b]);
      return 1;
    }
  }
  std::vector<char> sweep(256u << 20);
  std::vector<std::vector<double>> times(static_cast<size_t>(builds));
  for (int r = 0; r < rounds; ++r)
    for (int b = 0; b < builds; ++b) {
      std::memset(sweep.data(), r + b, sweep.size());
      const auto a = args_for(y[static_cast<size_t>(b)]);
      const auto t0 = std::chrono::steady_clock::now();
      const int rc = kernel[static_cast<size_t>(b)](a.data(), 5, sizes, nullptr);
      const auto t1 = std::chrono::steady_clock::now();
      if (rc != 0) {
        std::fprintf(stderr, "spmv_cpu_points: %s: glp_kernel returned %d\n", argv[3 + b], rc);
        return 1;
      }
      times[static_cast<size_t>(b)].push_back(std::chrono::duration<double>(t1 - t0).count());
    }
  int status = 0;
  double scale = 0;
  for (const double v : y[0]) scale = std::max(scale, std::fabs(v));
  for (int b = 1; b < builds; ++b)
    for (int64_t i = 0; i < rows; ++i)
      if (std::fabs(y[static_cast<size_t>(b)][static_cast<size_t>(i)] - y[0][static_cast<size_t>(i)]) > 1e-12 * scale) {
        std::printf("%s: y[%lld] differs from the first build's\n", argv[3 + b], static_cast<long long>(i));
        status = 1;
        break;
      }
  const double bytes = 8.0 * static_cast<double>(rows + 1) + 12.0 * static_cast<double>(nnz) + 16.0 * static_cast<double>(rows);
  std::printf("%s n=%d: %lld rows, %lld nnz, %.0f MB of CSR bytes; %d rounds\n", random ? "random 27 per row" : "poisson27", n,
              static_cast<long long>(rows), static_cast<long long>(nnz), bytes / 1e6, rounds);
  double first = 0;
  for (int b = 0; b < builds; ++b) {
    auto t = times[static_cast<size_t>(b)];
    std::sort(t.begin(), t.end());
    const double median = t[t.size() / 2];
    if (b == 0) first = median;
    std::printf("%-40s median %7.3f ms  min %7.3f ms  %5.1f GB/s  %.3fx of the first\n", argv[3 + b], median * 1e3, t[0] * 1e3,
                bytes / median / 1e9, first / median);
  }
  return status;
}
