// The GPU gemm template's work schedule, run on the host: kernels/gemm/cuda_hip/gemm_kernels.hpp
// (shared by the CUDA and HIP templates) compiled by the host compiler with the few CUDA names it
// uses defined here, its blocks and threads stepped one after another. Stream-K with the full
// waves' tiles whole (GLP_STREAMK 2) and, with no whole tiles, plain stream-K (what GLP_STREAMK 1
// schedules), on shapes that fill no tile and on grids from one block to more blocks than units:
// every tile's k slabs are covered exactly once, whole tiles are written and shared tiles added,
// every block gets the same work (no partial last wave), scale_c scales exactly the tiles blocks
// add into (the product would count beta twice or not at all otherwise), and C = alpha*A*B +
// beta*C comes out exact (small integers), also with beta = 0 over a C of NaN.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

// The CUDA names the shared header uses, for a host build.
struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct float2 {
  float x, y;
};
struct float4 {
  float x, y, z, w;
};
struct double2 {
  double x, y;
};
namespace {
dim3 blockIdx, gridDim, threadIdx, blockDim;  // the block and thread being stepped
template <class T>
T atomicAdd(T* p, T v) {
  const T old = *p;
  *p += v;
  return old;
}
}  // namespace
#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(...)
// A small tile that no test shape fills, the cp.async path's helpers (the register-staged kernel
// needs __syncthreads), stream-K with whole waves.
#define GLP_REAL float
#define GLP_BM 32
#define GLP_BN 16
#define GLP_BK 8
#define GLP_WM 32
#define GLP_WN 16
#define GLP_TM 4
#define GLP_TN 4
#define GLP_VEC 1
#define GLP_ASYNC 1
#define GLP_STREAMK 2
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#include "../../kernels/gemm/cuda_hip/gemm_kernels.hpp"
#pragma GCC diagnostic pop

namespace {

namespace g = glp_gemm;

struct shape {
  int64_t m, n, k;
};

// One run of the schedule: scale_c then every block of a grid of `blocks`, each tile the blocks
// are given computed thread tile by thread tile and stored by the template's store_tile.
struct run {
  std::vector<float> C;
  std::vector<int> slab_hits;           // per (tile, k slab): blocks that covered it
  std::vector<int> whole_writes, adds;  // per tile: whole-tile writes, shares added
  std::vector<int64_t> block_units;     // per block: k slabs of tiles it multiplied
  std::vector<int64_t> block_whole;     // per block: whole tiles
  int64_t mtiles = 0, ntiles = 0, kslabs = 0, whole = 0;
};

run schedule(const shape& s, int64_t blocks, bool whole_waves, const std::vector<float>& A, const std::vector<float>& B,
             float alpha, float beta, const std::vector<float>& C_in) {
  run r;
  r.C = C_in;
  std::vector<float> a = A, b = B, al{alpha}, be{beta};
  glp_arg args[5] = {{a.data(), s.m * s.k, GLP_FLOAT32, GLP_IN},
                     {b.data(), s.k * s.n, GLP_FLOAT32, GLP_IN},
                     {al.data(), 1, GLP_FLOAT32, GLP_IN},
                     {be.data(), 1, GLP_FLOAT32, GLP_IN},
                     {r.C.data(), s.m * s.n, GLP_FLOAT32, GLP_INOUT}};
  const int64_t sizes[3] = {s.m, s.n, s.k};
  g::plan p;
  EXPECT_EQ(g::make_plan(args, 5, sizes, p), 0);
  g::problem P = p.P;
  if (whole_waves) P.whole_tiles = g::whole_wave_tiles(P, blocks);
  r.mtiles = (s.m + g::BM - 1) / g::BM;
  r.ntiles = (s.n + g::BN - 1) / g::BN;
  r.kslabs = (s.k + g::BK - 1) / g::BK;
  r.whole = P.whole_tiles;
  const int64_t tiles = r.mtiles * r.ntiles;
  r.slab_hits.assign(tiles * r.kslabs, 0);
  r.whole_writes.assign(tiles, 0);
  r.adds.assign(tiles, 0);
  r.block_units.assign(blocks, 0);
  r.block_whole.assign(blocks, 0);

  // The launcher's scaling pass: 256 threads per block.
  const unsigned sb = g::scale_blocks(P, P.whole_tiles);
  gridDim = dim3(sb);
  blockDim = dim3(256);
  for (unsigned x = 0; x < sb; ++x)
    for (unsigned t = 0; t < 256; ++t) {
      blockIdx = dim3(x, 0, 0);
      threadIdx = dim3(t, 0, 0);
      g::scale_c(r.C.data(), be.data(), P, P.whole_tiles);
    }

  gridDim = dim3(static_cast<unsigned>(blocks));
  for (int64_t blk = 0; blk < blocks; ++blk) {
    blockIdx = dim3(static_cast<unsigned>(blk), 0, 0);
    g::for_each_tile(P, [&](int64_t m0, int64_t n0, int64_t first, int64_t last, bool add) {
      const int64_t tile = m0 / g::BM * r.ntiles + n0 / g::BN;
      for (int64_t q = first; q < last; ++q) ++r.slab_hits[tile * r.kslabs + q];
      (add ? r.adds : r.whole_writes)[tile]++;
      r.block_units[blk] += last - first;
      if (!add) ++r.block_whole[blk];
      for (int64_t r0 = m0; r0 < m0 + g::BM; r0 += g::TM)
        for (int64_t c0 = n0; c0 < n0 + g::BN; c0 += g::TN) {
          float acc[g::TM][g::TN] = {};
          for (int i = 0; i < g::TM; ++i)
            for (int j = 0; j < g::TN; ++j)
              for (int64_t q = first * g::BK; q < std::min(last * g::BK, s.k); ++q)
                if (r0 + i < s.m && c0 + j < s.n) acc[i][j] += A[(r0 + i) * s.k + q] * B[q * s.n + c0 + j];
          g::store_tile(r.C.data(), acc, P, r0, c0, alpha, beta, add);
        }
    });
  }
  return r;
}

std::vector<float> small_integers(int64_t count, int seed) {
  std::vector<float> v(count);
  for (int64_t i = 0; i < count; ++i) v[i] = static_cast<float>((i * 7 + seed * 13 + i / 5) % 7 - 3);
  return v;
}

const shape kShapes[] = {{1, 1, 1}, {7, 5, 3}, {33, 65, 17}, {100, 3, 257}, {97, 131, 40}, {64, 48, 16}, {130, 190, 9}};
const int64_t kGrids[] = {1, 2, 3, 7, 12, 40, 1000};

void check(const shape& s, int64_t blocks, bool whole_waves, float beta) {
  SCOPED_TRACE(::testing::Message() << "m " << s.m << " n " << s.n << " k " << s.k << ", " << blocks << " blocks, "
                                    << (whole_waves ? "whole waves" : "stream-K over every tile") << ", beta " << beta);
  const auto A = small_integers(s.m * s.k, 1), B = small_integers(s.k * s.n, 2);
  auto C_in = small_integers(s.m * s.n, 3);
  if (beta == 0.0f) std::fill(C_in.begin(), C_in.end(), std::numeric_limits<float>::quiet_NaN());
  const float alpha = 2.0f;
  const run r = schedule(s, blocks, whole_waves, A, B, alpha, beta, C_in);
  const int64_t tiles = r.mtiles * r.ntiles;

  // The work: every (tile, k slab) once; whole tiles below whole_tiles, shared ones above it.
  EXPECT_EQ(r.whole, whole_waves ? tiles - tiles % blocks : 0);
  for (int64_t u = 0; u < tiles * r.kslabs; ++u)
    ASSERT_EQ(r.slab_hits[u], 1) << "tile " << u / r.kslabs << ", slab " << u % r.kslabs;
  for (int64_t t = 0; t < tiles; ++t) {
    EXPECT_EQ(r.whole_writes[t], t < r.whole ? 1 : 0) << "tile " << t;
    EXPECT_EQ(r.adds[t] > 0, t >= r.whole) << "tile " << t;
  }
  // The balance: the same whole tiles per block and runs of the shared units that differ by one.
  const auto [lo, hi] = std::minmax_element(r.block_units.begin(), r.block_units.end());
  EXPECT_LE(*hi - *lo, 1);
  for (int64_t blk = 0; blk < blocks; ++blk) EXPECT_EQ(r.block_whole[blk], r.whole / blocks) << "block " << blk;

  // The product, exact in small integers whatever the order of the additions.
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      float ab = 0.0f;
      for (int64_t q = 0; q < s.k; ++q) ab += A[i * s.k + q] * B[q * s.n + j];
      const float want = alpha * ab + (beta == 0.0f ? 0.0f : beta * C_in[i * s.n + j]);
      ASSERT_EQ(r.C[i * s.n + j], want) << "C(" << i << ", " << j << ")";
    }
}

TEST(GemmSchedule, WholeWavesCoverEveryTileOnceAndAddOnlyIntoTheScaledTiles) {
  for (const shape& s : kShapes)
    for (int64_t blocks : kGrids) check(s, blocks, true, 3.0f);
}

TEST(GemmSchedule, StreamKOverEveryTileAddsEverywhereAfterOneScalingPass) {
  for (const shape& s : kShapes)
    for (int64_t blocks : kGrids) check(s, blocks, false, 3.0f);
}

TEST(GemmSchedule, BetaZeroNeverReadsC) {
  for (const shape& s : kShapes)
    for (int64_t blocks : {int64_t{1}, int64_t{7}, int64_t{40}}) {
      check(s, blocks, true, 0.0f);
      check(s, blocks, false, 0.0f);
    }
}

TEST(GemmSchedule, EveryTileWholeLeavesNoScalingPass) {
  // 4 x 3 tiles of 32 x 16 on 12 or 4 blocks: full waves only, nothing shared, scale_c not launched.
  const g::problem P{128, 48, 16, false, false, false, 2, 0};
  for (int64_t blocks : {int64_t{12}, int64_t{4}, int64_t{6}}) {
    EXPECT_EQ(g::whole_wave_tiles(P, blocks), 12);
    EXPECT_EQ(g::scale_blocks(P, g::whole_wave_tiles(P, blocks)), 0u);
  }
  EXPECT_EQ(g::whole_wave_tiles(P, 5), 10);
  EXPECT_EQ(g::scale_blocks(P, 10), 32u);  // tiles 10 and 11: the last row of tiles, 32 rows
  EXPECT_EQ(g::whole_wave_tiles(P, 13), 0);
  EXPECT_EQ(g::scale_blocks(P, 0), 128u);
  check({128, 48, 16}, 12, true, 3.0f);
}

}  // namespace
