// The GPU gemm template's work schedule, run on the host: kernels/gemm/cuda_hip/gemm_kernels.hpp
// (shared by the CUDA and HIP templates) compiled by the host compiler with the few CUDA names it
// uses defined here, its blocks stepped one after another in index order. Stream-K in k order
// (GLP_STREAMK 2 with turn counters) and plain stream-K (GLP_STREAMK 1: no counters, atomic
// additions after scale_c), on shapes that fill no tile and on grids from one block to more blocks
// than units: every tile's k slabs are covered exactly once and every block gets the same work; in
// k order each cut tile is written by the share holding slab 0 and then added into share after
// share in k order, a block's one share that waits comes last and never waits for a block after
// it (stepped in index order, its turn has always come: no grid can deadlock), and every counter
// is back at 0; C = alpha*A*B + beta*C comes out exact (small integers), also with beta = 0 over a
// C of NaN.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
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
unsigned atomicExch(unsigned* p, unsigned v) {
  const unsigned old = *p;
  *p = v;
  return old;
}
void __syncthreads() {}
void __threadfence() {}
}  // namespace
#define __host__
#define __device__
#define __global__
#define __forceinline__ inline
#define __launch_bounds__(...)
// A small tile that no test shape fills, the cp.async path's helpers (the register-staged kernel
// would need shared memory), stream-K in k order.
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

// One run of the schedule: scale_c (without turn counters) then every block of a grid of `blocks`,
// each tile share the blocks are given computed thread tile by thread tile and stored by the
// template's store_tile between await_turn and pass_turn.
struct run {
  std::vector<float> C;
  std::vector<int> slab_hits;                 // per (tile, k slab): blocks that covered it
  std::vector<std::vector<int64_t>> stores;   // per tile: the first k slab of each share, in store order
  std::vector<std::vector<bool>> store_adds;  // per tile: whether each share added
  std::vector<int64_t> block_units;           // per block: k slabs of tiles it multiplied
  std::vector<unsigned> turns;                // the counters after the run
  std::vector<std::string> faults;            // schedule faults seen while stepping
  int64_t mtiles = 0, ntiles = 0, kslabs = 0;
  bool scaled = false;
};

run schedule(const shape& s, int64_t blocks, bool in_order, const std::vector<float>& A, const std::vector<float>& B, float alpha,
             float beta, const std::vector<float>& C_in) {
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
  r.mtiles = g::row_tiles(P);
  r.ntiles = g::column_tiles(P);
  r.kslabs = g::k_slabs(P);
  const int64_t tiles = r.mtiles * r.ntiles;
  r.turns.assign(tiles, 0u);
  if (in_order) P.turns = r.turns.data();  // what the CUDA launcher does for GLP_STREAMK 2
  r.slab_hits.assign(tiles * r.kslabs, 0);
  r.stores.assign(tiles, {});
  r.store_adds.assign(tiles, {});
  r.block_units.assign(blocks, 0);

  if (g::ADDS && P.turns == nullptr) {  // the launcher's scaling pass: 256 threads per block
    r.scaled = true;
    const unsigned sb = g::scale_blocks(P);
    gridDim = dim3(sb);
    blockDim = dim3(256);
    for (unsigned x = 0; x < sb; ++x)
      for (unsigned t = 0; t < 256; ++t) {
        blockIdx = dim3(x, 0, 0);
        threadIdx = dim3(t, 0, 0);
        g::scale_c(r.C.data(), be.data(), P);
      }
  }

  gridDim = dim3(static_cast<unsigned>(blocks));
  threadIdx = dim3(0, 0, 0);  // the thread that waits for and passes the turns
  for (int64_t blk = 0; blk < blocks; ++blk) {
    blockIdx = dim3(static_cast<unsigned>(blk), 0, 0);
    bool waited = false;  // this block's share that waits for another block's has been stored
    g::for_each_tile(P, [&](int64_t m0, int64_t n0, int64_t first, int64_t last, bool add) {
      const int64_t tile = g::tile_index(P, m0, n0);
      for (int64_t q = first; q < last; ++q) ++r.slab_hits[tile * r.kslabs + q];
      r.block_units[blk] += last - first;
      if (waited) r.faults.push_back("block " + std::to_string(blk) + " took a share after the one that waits");
      if (in_order && first > 0) {
        waited = true;
        // Stepped in index order, every earlier block has finished: a turn not yet come here is
        // one that waits for a later block (a deadlock on a GPU) or one that never comes.
        if (r.turns[tile] != static_cast<unsigned>(first)) {
          r.faults.push_back("block " + std::to_string(blk) + " waits on tile " + std::to_string(tile) + " for slab " +
                             std::to_string(first) + ", counter at " + std::to_string(r.turns[tile]));
          return;
        }
      }
      g::await_turn(P, m0, n0, first);
      r.stores[tile].push_back(first);
      r.store_adds[tile].push_back(add);
      for (int64_t r0 = m0; r0 < m0 + g::BM; r0 += g::TM)
        for (int64_t c0 = n0; c0 < n0 + g::BN; c0 += g::TN) {
          float acc[g::TM][g::TN] = {};
          for (int i = 0; i < g::TM; ++i)
            for (int j = 0; j < g::TN; ++j)
              for (int64_t q = first * g::BK; q < std::min(last * g::BK, s.k); ++q)
                if (r0 + i < s.m && c0 + j < s.n) acc[i][j] += A[(r0 + i) * s.k + q] * B[q * s.n + c0 + j];
          g::store_tile(r.C.data(), acc, P, r0, c0, alpha, beta, add);
        }
      g::pass_turn(P, m0, n0, first, last);
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

void check(const shape& s, int64_t blocks, bool in_order, float beta) {
  SCOPED_TRACE(::testing::Message() << "m " << s.m << " n " << s.n << " k " << s.k << ", " << blocks << " blocks, "
                                    << (in_order ? "in k order" : "atomic additions") << ", beta " << beta);
  const auto A = small_integers(s.m * s.k, 1), B = small_integers(s.k * s.n, 2);
  auto C_in = small_integers(s.m * s.n, 3);
  if (beta == 0.0f) std::fill(C_in.begin(), C_in.end(), std::numeric_limits<float>::quiet_NaN());
  const float alpha = 2.0f;
  const run r = schedule(s, blocks, in_order, A, B, alpha, beta, C_in);
  const int64_t tiles = r.mtiles * r.ntiles;

  for (const std::string& f : r.faults) ADD_FAILURE() << f;
  // The work: every (tile, k slab) once, and the same amount for every block (runs within one slab).
  for (int64_t u = 0; u < tiles * r.kslabs; ++u)
    ASSERT_EQ(r.slab_hits[u], 1) << "tile " << u / r.kslabs << ", slab " << u % r.kslabs;
  const auto [lo, hi] = std::minmax_element(r.block_units.begin(), r.block_units.end());
  EXPECT_LE(*hi - *lo, 1);
  EXPECT_EQ(r.scaled, !in_order);
  for (int64_t t = 0; t < tiles; ++t) {
    const auto& firsts = r.stores[t];
    ASSERT_FALSE(firsts.empty()) << "tile " << t;
    if (in_order) {  // slab 0's share writes, the others add, one after another in k order
      EXPECT_TRUE(std::is_sorted(firsts.begin(), firsts.end())) << "tile " << t;
      EXPECT_EQ(firsts.front(), 0) << "tile " << t;
      for (size_t i = 0; i < firsts.size(); ++i) EXPECT_EQ(r.store_adds[t][i], i > 0) << "tile " << t << ", share " << i;
      EXPECT_EQ(r.turns[t], 0u) << "tile " << t << ": counter not reset for the next call";
    } else {
      for (size_t i = 0; i < firsts.size(); ++i) EXPECT_TRUE(r.store_adds[t][i]) << "tile " << t << ", share " << i;
    }
  }

  // The product, exact in small integers whatever the order of the additions.
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      float ab = 0.0f;
      for (int64_t q = 0; q < s.k; ++q) ab += A[i * s.k + q] * B[q * s.n + j];
      const float want = alpha * ab + (beta == 0.0f ? 0.0f : beta * C_in[i * s.n + j]);
      ASSERT_EQ(r.C[i * s.n + j], want) << "C(" << i << ", " << j << ")";
    }
}

TEST(GemmSchedule, InKOrderEveryTileIsWrittenOnceThenAddedShareAfterShare) {
  for (const shape& s : kShapes)
    for (int64_t blocks : kGrids) check(s, blocks, true, 3.0f);
}

TEST(GemmSchedule, AtomicStreamKAddsEverywhereAfterOneScalingPass) {
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

TEST(GemmSchedule, InKOrderTheSharesThatWaitComeLast) {
  // 97 x 131 x 40: 4 x 9 tiles of 32 x 16, 5 slabs each (180 units). On 7 blocks every run but the
  // first starts inside a tile; on 36 blocks every block holds one tile whole; on 1000 most blocks
  // hold nothing and the rest one slab, so a tile is cut into five shares.
  for (int64_t blocks : {int64_t{7}, int64_t{36}, int64_t{1000}}) check({97, 131, 40}, blocks, true, 3.0f);
  const auto A = small_integers(97 * 40, 1), B = small_integers(40 * 131, 2), C = small_integers(97 * 131, 3);
  const run cut = schedule({97, 131, 40}, 1000, true, A, B, 2.0f, 3.0f, C);
  for (int64_t t = 0; t < 36; ++t) EXPECT_EQ(cut.stores[t], (std::vector<int64_t>{0, 1, 2, 3, 4})) << "tile " << t;
  const run whole = schedule({97, 131, 40}, 36, true, A, B, 2.0f, 3.0f, C);
  for (int64_t t = 0; t < 36; ++t) EXPECT_EQ(whole.stores[t], (std::vector<int64_t>{0})) << "tile " << t;
}

}  // namespace
