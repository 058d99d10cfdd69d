// stencil3d7, GPU kernels shared by the CUDA (cuda/stencil3d7.cu) and HIP (hip/stencil3d7.hip)
// templates: one weighted-Jacobi sweep of the 7-point Laplacian on a float64 grid.
//
//   c = (k*ny + j)*nx + i, x fastest
//   interior (1<=i<=nx-2, 1<=j<=ny-2, 1<=k<=nz-2):
//     v[c] = (1/3)*u[c] + (1/9)*(u[c-1]+u[c+1]+u[c-nx]+u[c+nx]+u[c-nx*ny]+u[c+nx*ny])
//   every other point: v[c] = u[c]; a grid with a dimension < 3 is a plain copy (the launchers
//   do it with one device-to-device memcpy).
//
// Plain CUDA/HIP-common device code: no runtime API calls here. The host helpers at the end only
// check the arguments and compute the launch shape. Two kernels are compiled per parameter point,
// from one tile function: glp_stencil3d7::sweep (one tile per block) and sweep_strided (for grids
// beyond the launch limits; plan::strided says which to launch).
//
// Tunable parameters (-DGLP_<NAME>=<int>; the defaults make the file compile on its own). Every
// combination is correct for every shape; family.toml's constraints only drop duplicates and
// points that cannot be fast.
//   GLP_BLOCK_X  threads of a block in x (32, 64, 128, 256).
//   GLP_BLOCK_Y  threads of a block in y (1, 2, 4, 8, 16). BLOCK_X*BLOCK_Y <= 1024.
//   GLP_UNROLL   points per thread in x (1, 2, 4): thread tx of a block handles the columns
//                x0 + tx + q*BLOCK_X, q < UNROLL, so each of its accesses stays coalesced; a block
//                covers a BLOCK_X*UNROLL by BLOCK_Y tile of an xy plane.
//   GLP_Z_MARCH  0: one thread per point (per UNROLL points) of a 3-D grid of tiles, one plane
//                each; 1: 2.5-D blocking: a 2-D grid of xy tiles (times z chunks); each thread
//                marches up its z range, keeping u at k-1, k, k+1 of its points in registers, so
//                each plane is read from memory once for the z neighbours.
//   GLP_Z_CHUNK  planes per thread when marching (4..64); 0 = the whole column. Ignored when
//                Z_MARCH is 0.
//   GLP_SHARED   0: x and y neighbours read from global memory (L1/L2 catch the reuse);
//                1: the tile of the current plane plus a one-point halo is staged in shared
//                memory ((BLOCK_Y+2) x (BLOCK_X*UNROLL+2) doubles; double-buffered when
//                marching, so one barrier per plane suffices).
//   GLP_STREAM   1: v is written with streaming (evict-first / nontemporal) stores, 0: normal.
#ifndef GLP_STENCIL3D7_KERNELS_HPP
#define GLP_STENCIL3D7_KERNELS_HPP

#include <stdint.h>

#include "glp_kernel.h"

#ifndef GLP_BLOCK_X
#define GLP_BLOCK_X 64
#endif
#ifndef GLP_BLOCK_Y
#define GLP_BLOCK_Y 4
#endif
#ifndef GLP_UNROLL
#define GLP_UNROLL 1
#endif
#ifndef GLP_Z_MARCH
#define GLP_Z_MARCH 1
#endif
#ifndef GLP_Z_CHUNK
#define GLP_Z_CHUNK 16
#endif
#ifndef GLP_SHARED
#define GLP_SHARED 0
#endif
#ifndef GLP_STREAM
#define GLP_STREAM 0
#endif

#if GLP_BLOCK_X < 1 || GLP_BLOCK_Y < 1 || GLP_BLOCK_X * GLP_BLOCK_Y > 1024
#error "stencil3d7: need BLOCK_X >= 1, BLOCK_Y >= 1, BLOCK_X*BLOCK_Y <= 1024"
#endif
#if GLP_UNROLL < 1 || GLP_UNROLL > 8
#error "stencil3d7: GLP_UNROLL must be 1..8"
#endif
#if GLP_Z_MARCH != 0 && GLP_Z_MARCH != 1
#error "stencil3d7: GLP_Z_MARCH must be 0 or 1"
#endif
#if GLP_Z_CHUNK < 0
#error "stencil3d7: GLP_Z_CHUNK must be >= 0"
#endif
#if GLP_SHARED != 0 && GLP_SHARED != 1
#error "stencil3d7: GLP_SHARED must be 0 or 1"
#endif
#if GLP_STREAM != 0 && GLP_STREAM != 1
#error "stencil3d7: GLP_STREAM must be 0 or 1"
#endif

// Streaming store of one double: CUDA st.global.cs, AMD a nontemporal store.
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)
#define GLP_STENCIL_STORE_CS(p, x) __builtin_nontemporal_store((x), (p))
#else
#define GLP_STENCIL_STORE_CS(p, x) __stcs((p), (x))
#endif

namespace glp_stencil3d7 {

constexpr int BX = GLP_BLOCK_X;
constexpr int BY = GLP_BLOCK_Y;
constexpr int U = GLP_UNROLL;
constexpr int NT = BX * BY;  // threads per block
constexpr int TX = BX * U;   // tile width in x (points)
constexpr double kC = 1.0 / 3.0;
constexpr double kN = 1.0 / 9.0;

#if GLP_SHARED
// Bytes of shared memory per block: one tile with halo, two when marching.
constexpr int kSharedBytes = (GLP_Z_MARCH ? 2 : 1) * (BY + 2) * (TX + 2) * 8;
static_assert(kSharedBytes <= 48 * 1024, "stencil3d7: SHARED tile exceeds 48 KiB of static shared memory "
                                         "(BLOCK_Y, BLOCK_X*UNROLL too large)");
#endif

// Everything the kernel needs about the grid (passed by value). nx, ny, nz >= 3 here.
struct grid_info {
  int64_t nx, ny, nz;
  int64_t sy, sz;      // strides of j and k: nx, nx*ny
  int64_t ntx, nty;    // tiles in x and y
  int64_t nzb;         // blocks in z: planes (Z_MARCH 0) or chunks (Z_MARCH 1)
  int64_t zchunk;      // planes per chunk (Z_MARCH 1)
};

__device__ __forceinline__ void store_v(double* p, double x) {
#if GLP_STREAM
  GLP_STENCIL_STORE_CS(p, x);
#else
  *p = x;
#endif
}

__device__ __forceinline__ bool inside(int64_t a, int64_t n) { return a >= 1 && a <= n - 2; }

// Each variant below defines tile(u, v, g, bx, by, zc): the work of one block on the tile (bx, by)
// of the xy plane and the z step zc (a plane, or a chunk of planes when marching). Two kernels
// are built from it (after the variants): sweep, one tile per block, for every grid within the
// launch limits, and sweep_strided, whose blocks loop over the tiles, for grids beyond them. The
// loops and their 64-bit counters stay out of the common kernel: with the march's per-plane
// address multiplies they held it at 67% of the copy bandwidth on an H200, 88% without
// (docs/BENCHMARKS.md).

#if GLP_Z_MARCH == 0 && GLP_SHARED == 0
// ------------------------------------------------------------------------------------------------
// One thread per UNROLL points, one plane per block, every neighbour from global memory.
// ------------------------------------------------------------------------------------------------
__device__ __forceinline__ void tile(const double* __restrict__ u, double* __restrict__ v, const grid_info& g, int64_t bx,
                                     int64_t by, int64_t k) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t j = by * BY + ty;
  if (j >= g.ny) return;
  const bool jkin = inside(k, g.nz) && inside(j, g.ny);
  const int64_t row = (k * g.ny + j) * g.nx;
#pragma unroll
  for (int q = 0; q < U; ++q) {
    const int64_t i = bx * TX + q * BX + tx;
    if (i >= g.nx) continue;
    const int64_t c = row + i;
    const double uc = u[c];
    double r = uc;
    if (jkin && inside(i, g.nx)) r = kC * uc + kN * (u[c - 1] + u[c + 1] + u[c - g.sy] + u[c + g.sy] + u[c - g.sz] + u[c + g.sz]);
    store_v(v + c, r);
  }
}

#elif GLP_Z_MARCH == 0 && GLP_SHARED == 1
// ------------------------------------------------------------------------------------------------
// One plane per block; the xy tile with its halo is staged in shared memory, z neighbours come
// from global memory. plane[1 + y][1 + x] holds the point (x0 + x, j0 + y); row 0 / BY+1 and
// column 0 / TX+1 are the halo. Halo cells outside the grid are never loaded and never read:
// only interior points read neighbours, and an interior point's neighbours are all inside.
// ------------------------------------------------------------------------------------------------
__device__ __forceinline__ void tile(const double* __restrict__ u, double* __restrict__ v, const grid_info& g, int64_t bx,
                                     int64_t by, int64_t k) {
  __shared__ double plane[BY + 2][TX + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t j0 = by * BY, j = j0 + ty;
  const bool jin = j < g.ny;
  const bool jkin = inside(k, g.nz) && inside(j, g.ny);
  const int64_t row = (k * g.ny + j) * g.nx;  // only dereferenced when jin
  const int64_t x0 = bx * TX;
  double cur[U];
#pragma unroll
  for (int q = 0; q < U; ++q) {
    const int64_t i = x0 + q * BX + tx;
    cur[q] = (jin && i < g.nx) ? u[row + i] : 0.0;
    plane[ty + 1][q * BX + tx + 1] = cur[q];
  }
  if (jin) {
    if (tx == 0 && x0 > 0) plane[ty + 1][0] = u[row + x0 - 1];
    if (tx == BX - 1 && x0 + TX < g.nx) plane[ty + 1][TX + 1] = u[row + x0 + TX];
  }
  if (ty == 0 && j0 > 0) {  // row j0-1 (this thread's j is j0)
#pragma unroll
    for (int q = 0; q < U; ++q) {
      const int64_t i = x0 + q * BX + tx;
      if (i < g.nx) plane[0][q * BX + tx + 1] = u[row - g.sy + i];
    }
  }
  if (ty == BY - 1 && j0 + BY < g.ny) {  // row j0+BY (this thread's j is j0+BY-1 < ny)
#pragma unroll
    for (int q = 0; q < U; ++q) {
      const int64_t i = x0 + q * BX + tx;
      if (i < g.nx) plane[BY + 1][q * BX + tx + 1] = u[row + g.sy + i];
    }
  }
  __syncthreads();
  if (jin) {
#pragma unroll
    for (int q = 0; q < U; ++q) {
      const int64_t i = x0 + q * BX + tx;
      if (i >= g.nx) continue;
      const int64_t c = row + i;
      const int x = q * BX + tx + 1;
      double r = cur[q];
      if (jkin && inside(i, g.nx))
        r = kC * cur[q] + kN * (plane[ty + 1][x - 1] + plane[ty + 1][x + 1] + plane[ty][x] + plane[ty + 2][x] + u[c - g.sz] + u[c + g.sz]);
      store_v(v + c, r);
    }
  }
  __syncthreads();  // the tile is rewritten by the block's next tile (sweep_strided)
}

#elif GLP_Z_MARCH == 1 && GLP_SHARED == 0
// ------------------------------------------------------------------------------------------------
// 2.5-D blocking: each thread marches over the planes [k0, k1) of its chunk, keeping u at
// k-1 (below), k (cur) and k+1 (above) of its UNROLL points in registers; x and y neighbours
// come from global memory (L1 and L2 catch the reuse). Addresses step by one plane per step (no
// 64-bit multiply in the loop): on an H200 that, with no tile loops around it (sweep), takes the
// march from 67% to 88% of the copy bandwidth at 512x512x384.
// ------------------------------------------------------------------------------------------------
__device__ __forceinline__ void tile(const double* __restrict__ u, double* __restrict__ v, const grid_info& g, int64_t bx,
                                     int64_t by, int64_t zc) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t j = by * BY + ty;
  if (j >= g.ny) return;
  const bool jin = inside(j, g.ny);
  const int64_t k0 = zc * g.zchunk;
  const int64_t k1 = k0 + g.zchunk < g.nz ? k0 + g.zchunk : g.nz;
  const int64_t x0 = bx * TX + tx;
  bool in[U], iin[U];
  double below[U], cur[U], above[U];
  const double* p = u + (k0 * g.ny + j) * g.nx + x0;  // (x0, j, k) for the current plane k
  double* w = v + (p - u);
#pragma unroll
  for (int q = 0; q < U; ++q) {
    in[q] = x0 + q * BX < g.nx;
    iin[q] = jin && inside(x0 + q * BX, g.nx);
    cur[q] = in[q] ? p[q * BX] : 0.0;
    below[q] = (in[q] && k0 > 0) ? p[q * BX - g.sz] : 0.0;
  }
  for (int64_t k = k0; k < k1; ++k, p += g.sz, w += g.sz) {
    const bool kin = inside(k, g.nz);
    const bool up = k + 1 < g.nz;
#pragma unroll
    for (int q = 0; q < U; ++q) above[q] = (in[q] && up) ? p[q * BX + g.sz] : 0.0;
#pragma unroll
    for (int q = 0; q < U; ++q) {
      if (!in[q]) continue;
      const double* c = p + q * BX;
      double r = cur[q];
      if (kin && iin[q]) r = kC * cur[q] + kN * (c[-1] + c[1] + c[-g.sy] + c[g.sy] + below[q] + above[q]);
      store_v(w + q * BX, r);
    }
#pragma unroll
    for (int q = 0; q < U; ++q) {
      below[q] = cur[q];
      cur[q] = above[q];
    }
  }
}

#else  // GLP_Z_MARCH == 1 && GLP_SHARED == 1
// ------------------------------------------------------------------------------------------------
// 2.5-D blocking with the current plane's tile (plus halo) staged in shared memory. The tile is
// double-buffered: plane step t writes buffer t%2, waits at one barrier, then reads it. A thread
// can only write buffer t%2 again at step t+2, after the barrier of step t+1, which every thread
// reaches only after its reads of step t: one barrier per plane is enough. The barrier at the end
// keeps the block's next tile (sweep_strided) from writing a buffer still being read.
// ------------------------------------------------------------------------------------------------
__device__ __forceinline__ void tile(const double* __restrict__ u, double* __restrict__ v, const grid_info& g, int64_t bx,
                                     int64_t by, int64_t zc) {
  __shared__ double plane[2][BY + 2][TX + 2];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t k0 = zc * g.zchunk;
  const int64_t k1 = k0 + g.zchunk < g.nz ? k0 + g.zchunk : g.nz;
  const int64_t j0 = by * BY, j = j0 + ty;
  const bool jin = j < g.ny;
  const bool jint = inside(j, g.ny);
  const int64_t x0 = bx * TX;
  int64_t i[U];
  bool in[U], iin[U];
  double below[U], cur[U], above[U];
  const int64_t row0 = (k0 * g.ny + j) * g.nx;  // only dereferenced when jin
#pragma unroll
  for (int q = 0; q < U; ++q) {
    i[q] = x0 + q * BX + tx;
    in[q] = jin && i[q] < g.nx;
    iin[q] = jint && inside(i[q], g.nx);
    cur[q] = in[q] ? u[row0 + i[q]] : 0.0;
    below[q] = (in[q] && k0 > 0) ? u[row0 - g.sz + i[q]] : 0.0;
  }
  int b = 0;  // buffer of the current plane step
  for (int64_t k = k0; k < k1; ++k) {
    const int64_t row = (k * g.ny + j) * g.nx;
    const bool kin = inside(k, g.nz);
    const bool up = k + 1 < g.nz;
#pragma unroll
    for (int q = 0; q < U; ++q) above[q] = (in[q] && up) ? u[row + g.sz + i[q]] : 0.0;
    // stage plane k: the centre from registers, the halo from global memory
#pragma unroll
    for (int q = 0; q < U; ++q) plane[b][ty + 1][q * BX + tx + 1] = cur[q];
    if (jin) {
      if (tx == 0 && x0 > 0) plane[b][ty + 1][0] = u[row + x0 - 1];
      if (tx == BX - 1 && x0 + TX < g.nx) plane[b][ty + 1][TX + 1] = u[row + x0 + TX];
    }
    if (ty == 0 && j0 > 0) {  // row j0-1
#pragma unroll
      for (int q = 0; q < U; ++q)
        if (i[q] < g.nx) plane[b][0][q * BX + tx + 1] = u[row - g.sy + i[q]];
    }
    if (ty == BY - 1 && j0 + BY < g.ny) {  // row j0+BY
#pragma unroll
      for (int q = 0; q < U; ++q)
        if (i[q] < g.nx) plane[b][BY + 1][q * BX + tx + 1] = u[row + g.sy + i[q]];
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < U; ++q) {
      if (!in[q]) continue;
      const int x = q * BX + tx + 1;
      double r = cur[q];
      if (kin && iin[q])
        r = kC * cur[q] +
            kN * (plane[b][ty + 1][x - 1] + plane[b][ty + 1][x + 1] + plane[b][ty][x] + plane[b][ty + 2][x] + below[q] + above[q]);
      store_v(v + row + i[q], r);
    }
#pragma unroll
    for (int q = 0; q < U; ++q) {
      below[q] = cur[q];
      cur[q] = above[q];
    }
    b ^= 1;
  }
  __syncthreads();
}
#endif

// One tile per block: the grid is (tiles in x, tiles in y, z steps).
__global__ void __launch_bounds__(NT) sweep(const double* __restrict__ u, double* __restrict__ v, grid_info g) {
  tile(u, v, g, blockIdx.x, blockIdx.y, blockIdx.z);
}

// A grid beyond the launch limits: each block loops over the tiles its position stands for.
__global__ void __launch_bounds__(NT) sweep_strided(const double* __restrict__ u, double* __restrict__ v, grid_info g) {
  for (int64_t zc = blockIdx.z; zc < g.nzb; zc += gridDim.z)
    for (int64_t by = blockIdx.y; by < g.nty; by += gridDim.y)
      for (int64_t bx = blockIdx.x; bx < g.ntx; bx += gridDim.x) tile(u, v, g, bx, by, zc);
}

// ------------------------------------------------------------------------------------------------
// Host side (no runtime calls): argument checks and the launch shape.
// ------------------------------------------------------------------------------------------------
struct plan {
  const double* u = nullptr;
  double* v = nullptr;
  int64_t n = 0;           // points
  bool copy_only = false;  // a dimension < 3: v = u
  bool strided = false;    // the tiles exceed the launch limits: launch sweep_strided
  grid_info g{};
  dim3 grid, block;
};

// Returns 0 and fills p, or the ABI error code (1..5).
inline int make_plan(const glp_arg* args, int nargs, const int64_t* sizes, plan& p) {
  if (args == nullptr || sizes == nullptr || nargs != 2) return 1;
  if (args[0].dtype != GLP_FLOAT64 || args[1].dtype != GLP_FLOAT64) return 2;
  const int64_t nx = sizes[0], ny = sizes[1], nz = sizes[2];
  if (nx < 0 || ny < 0 || nz < 0) return 3;
  const int64_t n = nx * ny * nz;
  if (args[0].count != n || args[1].count != n) return 4;
  p.n = n;
  if (n == 0) return 0;
  p.u = static_cast<const double*>(args[0].data);
  p.v = static_cast<double*>(args[1].data);
  if (p.u == nullptr || p.v == nullptr) return 5;
  p.copy_only = nx < 3 || ny < 3 || nz < 3;
  if (p.copy_only) return 0;
  grid_info& g = p.g;
  g.nx = nx;
  g.ny = ny;
  g.nz = nz;
  g.sy = nx;
  g.sz = nx * ny;
  g.ntx = (nx + TX - 1) / TX;
  g.nty = (ny + BY - 1) / BY;
#if GLP_Z_MARCH
  g.zchunk = GLP_Z_CHUNK > 0 ? GLP_Z_CHUNK : nz;
  g.nzb = (nz + g.zchunk - 1) / g.zchunk;
#else
  g.zchunk = 1;
  g.nzb = nz;
#endif
  // Grid limits: x < 2^31, y and z <= 65535; beyond them sweep_strided loops over the tiles.
  // GLP_STENCIL3D7_GRID_LIMIT lowers every limit, so that a small grid takes that path too (tests).
#ifndef GLP_STENCIL3D7_GRID_LIMIT
#define GLP_STENCIL3D7_GRID_LIMIT 2147483647
#endif
  const int64_t limit = GLP_STENCIL3D7_GRID_LIMIT;
  const int64_t max_x = limit, max_yz = limit < 65535 ? limit : 65535;
  p.strided = g.ntx > max_x || g.nty > max_yz || g.nzb > max_yz;
  p.grid = dim3(static_cast<unsigned>(g.ntx < max_x ? g.ntx : max_x), static_cast<unsigned>(g.nty < max_yz ? g.nty : max_yz),
                static_cast<unsigned>(g.nzb < max_yz ? g.nzb : max_yz));
  p.block = dim3(BX, BY, 1);
  return 0;
}

}  // namespace glp_stencil3d7

#endif  // GLP_STENCIL3D7_KERNELS_HPP
