// spmv, GPU kernels shared by the CUDA (cuda/spmv.cu) and HIP (hip/spmv.hip) templates:
// y = A*x in float64, A in CSR (row_ptr int64, col_idx int32, values float64).
//
//   y[i] = sum_{k=row_ptr[i]}^{row_ptr[i+1]-1} values[k] * x[col_idx[k]]     (0 for an empty row)
//
// Plain CUDA/HIP-common device code: no runtime API calls here. The host part at the end (argument
// checks, the SELL-C-sigma layout computed from row_ptr) is plain C++; the launchers do the
// allocations, copies and launches with their own runtime.
//
// Tunable parameters (-DGLP_<NAME>=<int>; the defaults make the file compile on its own). Every
// combination is correct for every matrix; family constraints only drop duplicates.
//   GLP_FORMAT           0 CSR; 1 SELL-C-sigma, built by glp_setup (host computes the row order and
//                        slice widths from row_ptr, a device kernel scatters col_idx/values).
//   GLP_THREADS_PER_ROW  lanes that share one row (1, 2, 4, 8, 16, 32): 1 is CSR scalar (thread per
//                        row); more is CSR vector (lane t takes entries t, t+TPR, ..., the partial
//                        sums are added with warp/wavefront shuffles of width TPR). SELL: the lanes
//                        split the row's column steps the same way.
//   GLP_C                SELL slice height (rows per slice, entries stored column-major in the slice).
//   GLP_SIGMA            SELL sorting window: rows sorted by decreasing length inside windows of
//                        SIGMA rows (stable; 1 = no sorting, y is then written without permutation).
//   GLP_BLOCK            threads per block (a multiple of 64, so whole warps and wavefronts).
//   GLP_UNROLL           independent accumulators per lane (1, 2, 4): UNROLL entries in flight.
#ifndef GLP_SPMV_KERNELS_HPP
#define GLP_SPMV_KERNELS_HPP

#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "glp_kernel.h"

#ifndef GLP_FORMAT
#define GLP_FORMAT 1
#endif
#ifndef GLP_THREADS_PER_ROW
#define GLP_THREADS_PER_ROW 1
#endif
#ifndef GLP_C
#define GLP_C 32
#endif
#ifndef GLP_SIGMA
#define GLP_SIGMA 1
#endif
#ifndef GLP_BLOCK
#define GLP_BLOCK 256
#endif
#ifndef GLP_UNROLL
#define GLP_UNROLL 2
#endif

#if GLP_FORMAT != 0 && GLP_FORMAT != 1
#error "spmv: GLP_FORMAT must be 0 (CSR) or 1 (SELL-C-sigma)"
#endif
#if GLP_THREADS_PER_ROW != 1 && GLP_THREADS_PER_ROW != 2 && GLP_THREADS_PER_ROW != 4 && GLP_THREADS_PER_ROW != 8 && \
    GLP_THREADS_PER_ROW != 16 && GLP_THREADS_PER_ROW != 32
#error "spmv: GLP_THREADS_PER_ROW must be 1, 2, 4, 8, 16 or 32"
#endif
#if GLP_C < 1 || GLP_C > 1024
#error "spmv: GLP_C must be 1..1024"
#endif
#if GLP_SIGMA < 1
#error "spmv: GLP_SIGMA must be >= 1"
#endif
#if GLP_BLOCK < 64 || GLP_BLOCK > 1024 || GLP_BLOCK % 64 != 0
#error "spmv: GLP_BLOCK must be a multiple of 64 in 64..1024"
#endif
#if GLP_UNROLL < 1 || GLP_UNROLL > 8
#error "spmv: GLP_UNROLL must be 1..8"
#endif

// Shuffle down inside groups of `width` lanes. CUDA: every lane of the warp calls it (full mask);
// HIP (5.x) has only the mask-less form.
#if defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)
#define GLP_SPMV_SHFL_DOWN(v, d, w) __shfl_down((v), (d), (w))
#else
#define GLP_SPMV_SHFL_DOWN(v, d, w) __shfl_down_sync(0xffffffffu, (v), (d), (w))
#endif

namespace glp_spmv {

constexpr int TPR = GLP_THREADS_PER_ROW;
constexpr int C = GLP_C;
constexpr int BLOCK = GLP_BLOCK;
constexpr int U = GLP_UNROLL;
constexpr int64_t SIGMA = GLP_SIGMA;

// ------------------------------------------------------------------------------------------------
// Device helpers
// ------------------------------------------------------------------------------------------------

// Sum of the TPR lanes of a group (groups are TPR consecutive lanes, aligned). Every lane of the
// warp must call it; lane 0 of the group gets the total.
__device__ __forceinline__ double group_sum(double s) {
#pragma unroll
  for (int off = TPR / 2; off > 0; off /= 2) s += GLP_SPMV_SHFL_DOWN(s, off, TPR);
  return s;
}

// Lane t's part of one CSR row, entries [b, e): entries b+t, b+t+TPR, ..., U in flight.
__device__ __forceinline__ double csr_part(const int32_t* __restrict__ ci, const double* __restrict__ va,
                                           const double* __restrict__ x, int64_t b, int64_t e, int t) {
  double acc[U];
#pragma unroll
  for (int q = 0; q < U; ++q) acc[q] = 0.0;
  int64_t k = b + t;
  for (; k + (U - 1) * TPR < e; k += U * TPR) {
#pragma unroll
    for (int q = 0; q < U; ++q) acc[q] += va[k + q * TPR] * x[ci[k + q * TPR]];
  }
  for (; k < e; k += TPR) acc[0] += va[k] * x[ci[k]];
#pragma unroll
  for (int q = 1; q < U; ++q) acc[0] += acc[q];
  return acc[0];
}

// ------------------------------------------------------------------------------------------------
// CSR: TPR lanes per row (TPR = 1: thread per row). BLOCK/TPR rows per block, grid-stride.
// ------------------------------------------------------------------------------------------------
__global__ void __launch_bounds__(BLOCK) csr_kernel(int64_t nrows, const int64_t* __restrict__ rp,
                                                    const int32_t* __restrict__ ci, const double* __restrict__ va,
                                                    const double* __restrict__ x, double* __restrict__ y) {
  constexpr int RPB = BLOCK / TPR;  // rows per block
  const int t = threadIdx.x % TPR;
  // The loop bounds are the same for the whole block, so every lane reaches every shuffle.
  for (int64_t r0 = static_cast<int64_t>(blockIdx.x) * RPB; r0 < nrows; r0 += static_cast<int64_t>(gridDim.x) * RPB) {
    const int64_t row = r0 + threadIdx.x / TPR;
    int64_t b = 0, e = 0;
    if (row < nrows) {
      b = rp[row];
      e = rp[row + 1];
    }
    const double s = group_sum(csr_part(ci, va, x, b, e, t));
    if (row < nrows && t == 0) y[row] = s;
  }
}

#if GLP_FORMAT == 1
// ------------------------------------------------------------------------------------------------
// A fingerprint of A from 64 samples: row_ptr at 64 rows, col_idx and values at 64 entries, each
// sample hashed, the hashes summed (so the sum can be reduced in any order). Every thread of the
// block calls block_fingerprint (it has barriers); threads 0..63 take the samples; every thread
// gets the result. nrows >= 1.
// ------------------------------------------------------------------------------------------------
__device__ __forceinline__ unsigned long long mix64(unsigned long long z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

__device__ __forceinline__ unsigned long long sample_hash(int s, int64_t nrows, int64_t nnz, const int64_t* __restrict__ rp,
                                                          const int32_t* __restrict__ ci, const double* __restrict__ va) {
  const int64_t r = nrows * s / 64;  // < nrows
  unsigned long long h = mix64(static_cast<unsigned long long>(rp[r + 1]) ^ (static_cast<unsigned long long>(s) << 56));
  if (nnz > 0) {
    const int64_t k = nnz * (2 * s + 1) / 128;  // < nnz
    unsigned long long bits;
    const double v = va[k];
    memcpy(&bits, &v, sizeof bits);
    h = mix64(h ^ bits);
    h = mix64(h + static_cast<unsigned long long>(static_cast<uint32_t>(ci[k])));
  }
  return h;
}

__device__ unsigned long long block_fingerprint(int64_t nrows, int64_t nnz, const int64_t* __restrict__ rp,
                                                const int32_t* __restrict__ ci, const double* __restrict__ va) {
  __shared__ unsigned long long part[64];
  const int tid = threadIdx.x;
  if (tid < 64) part[tid] = sample_hash(tid, nrows, nnz, rp, ci, va);
  __syncthreads();
  for (int off = 32; off > 0; off >>= 1) {
    if (tid < off) part[tid] += part[tid + off];
    __syncthreads();
  }
  return part[0];
}

// setup: the fingerprint of A (one block of 64 threads).
__global__ void __launch_bounds__(64) fingerprint_kernel(int64_t nrows, int64_t nnz, const int64_t* __restrict__ rp,
                                                         const int32_t* __restrict__ ci, const double* __restrict__ va,
                                                         unsigned long long* out) {
  const unsigned long long f = block_fingerprint(nrows, nnz, rp, ci, va);
  if (threadIdx.x == 0) *out = f;
}

// ------------------------------------------------------------------------------------------------
// SELL-C-sigma. Position p = s*C + l (slice s, lane l) holds row perm[p] (p itself when SIGMA == 1)
// of length len[p] (0 for the padding positions p >= nrows); its entry j is at
// sptr[s] + j*C + l. Slice s has width (sptr[s+1]-sptr[s])/C = the longest row in it.
// A group of C*TPR threads works on one slice: thread q = l*TPR + t of the group takes the row at
// lane l and its entries j = t, t+TPR, ...; for one step the group reads C*TPR consecutive
// entries, so the loads are coalesced. Entries past a row's length are never read (the padding
// is never multiplied, whatever x holds).
//
// Stale-copy guard (glp_kernel may be called for a matrix that glp_setup did not see, at the same
// addresses and sizes): the last block to finish (a device counter, reset by that block) compares
// the fingerprint of A now in (rp, ci, va) with the one taken at setup (*fp_ref). On a mismatch it
// recomputes all of y from CSR, after every other block has written its SELL results (their
// writes are fenced before they are counted), so the CSR values are the ones that stay. The
// normal path pays one fenced atomic per block and one 64-sample fingerprint at the end.
// ------------------------------------------------------------------------------------------------
__global__ void __launch_bounds__(BLOCK) sell_kernel(int64_t nrows, int64_t nnz, int64_t nslices, const int64_t* __restrict__ sptr,
                                                     const int32_t* __restrict__ len, const int32_t* __restrict__ perm,
                                                     const int32_t* __restrict__ scol, const double* __restrict__ sval,
                                                     const unsigned long long* __restrict__ fp_ref, unsigned int* done,
                                                     const int64_t* __restrict__ rp, const int32_t* __restrict__ ci,
                                                     const double* __restrict__ va, const double* __restrict__ x,
                                                     double* __restrict__ y) {
  constexpr int G = C * TPR;  // threads per slice
  const int64_t total = nslices * G;
  for (int64_t g0 = static_cast<int64_t>(blockIdx.x) * BLOCK; g0 < total; g0 += static_cast<int64_t>(gridDim.x) * BLOCK) {
    const int64_t g = g0 + threadIdx.x;
    const int64_t s = g / G;
    const int q = static_cast<int>(g % G);
    const int l = q / TPR, t = q % TPR;
    const int64_t p = s * C + l;  // >= nrows for padding positions and threads past the end
    double sum = 0.0;
    if (p < nrows) {
      const int n = len[p];
      const int64_t base = sptr[s] + l;
      double acc[U];
#pragma unroll
      for (int u = 0; u < U; ++u) acc[u] = 0.0;
      int j = t;
      for (; j + (U - 1) * TPR < n; j += U * TPR) {
#pragma unroll
        for (int u = 0; u < U; ++u) {
          const int64_t e = base + static_cast<int64_t>(j + u * TPR) * C;
          acc[u] += sval[e] * x[scol[e]];
        }
      }
      for (; j < n; j += TPR) {
        const int64_t e = base + static_cast<int64_t>(j) * C;
        acc[0] += sval[e] * x[scol[e]];
      }
#pragma unroll
      for (int u = 1; u < U; ++u) acc[0] += acc[u];
      sum = acc[0];
    }
    sum = group_sum(sum);
    if (p < nrows && t == 0) {
#if GLP_SIGMA > 1
      y[perm[p]] = sum;
#else
      (void)perm;
      y[p] = sum;
#endif
    }
  }

  // The stale-copy guard (see above).
  __shared__ int last;
  __syncthreads();  // this block's y writes are issued
  if (threadIdx.x == 0) {
    __threadfence();  // ... and visible device-wide before the block is counted
    last = atomicAdd(done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;  // the whole block
  __threadfence();
  const bool same = block_fingerprint(nrows, nnz, rp, ci, va) == *fp_ref;
  if (threadIdx.x == 0) *done = 0;  // ready for the next launch
  if (same) return;
  constexpr int RPB = BLOCK / TPR;
  const int t = threadIdx.x % TPR;
  for (int64_t r0 = 0; r0 < nrows; r0 += RPB) {  // this block alone: every row from CSR
    const int64_t row = r0 + threadIdx.x / TPR;
    int64_t b = 0, e = 0;
    if (row < nrows) {
      b = rp[row];
      e = rp[row + 1];
    }
    const double v = group_sum(csr_part(ci, va, x, b, e, t));
    if (row < nrows && t == 0) y[row] = v;
  }
}

// setup: scatter CSR entries into the SELL layout, one thread per position (padding zeroed).
__global__ void __launch_bounds__(256) sell_fill_kernel(int64_t nrows, int64_t npos, const int64_t* __restrict__ sptr,
                                                        const int32_t* __restrict__ perm, const int64_t* __restrict__ rp,
                                                        const int32_t* __restrict__ ci, const double* __restrict__ va,
                                                        int32_t* __restrict__ scol, double* __restrict__ sval) {
  for (int64_t p = static_cast<int64_t>(blockIdx.x) * 256 + threadIdx.x; p < npos; p += static_cast<int64_t>(gridDim.x) * 256) {
    const int64_t s = p / C;
    const int l = static_cast<int>(p % C);
    const int64_t base = sptr[s] + l, w = (sptr[s + 1] - sptr[s]) / C;
    int64_t b = 0, n = 0;
    if (p < nrows) {
#if GLP_SIGMA > 1
      const int64_t r = perm[p];
#else
      (void)perm;
      const int64_t r = p;
#endif
      b = rp[r];
      n = rp[r + 1] - b;
    }
    for (int64_t j = 0; j < w; ++j) {
      const int64_t e = base + j * C;
      if (j < n) {
        scol[e] = ci[b + j];
        sval[e] = va[b + j];
      } else {
        scol[e] = 0;
        sval[e] = 0.0;
      }
    }
  }
}
#endif  // GLP_FORMAT == 1

// ------------------------------------------------------------------------------------------------
// Host side (no runtime calls).
// ------------------------------------------------------------------------------------------------
struct problem {
  int64_t nrows = 0, ncols = 0, nnz = 0;
  const int64_t* rp = nullptr;  // device pointers
  const int32_t* ci = nullptr;
  const double* va = nullptr;
  const double* x = nullptr;
  double* y = nullptr;
};

// The ABI checks that need no device access (row_ptr lives on the device). 0 or an error code.
inline int check_args(const glp_arg* args, int nargs, const int64_t* sizes, problem& P) {
  if (args == nullptr || sizes == nullptr || nargs != 5) return 1;
  if (args[0].dtype != GLP_INT64 || args[1].dtype != GLP_INT32 || args[2].dtype != GLP_FLOAT64 ||
      args[3].dtype != GLP_FLOAT64 || args[4].dtype != GLP_FLOAT64)
    return 2;
  const int64_t nrows = sizes[0], ncols = sizes[1], nnz = sizes[2];
  if (nrows < 0 || ncols < 0 || nnz < 0 || nrows > INT32_MAX || ncols > INT32_MAX) return 3;
  if (args[0].count != nrows + 1 || args[1].count != nnz || args[2].count != nnz || args[3].count != ncols ||
      args[4].count != nrows)
    return 4;
  if (args[0].data == nullptr || (nrows > 0 && args[4].data == nullptr)) return 5;
  if (nnz > 0 && (args[1].data == nullptr || args[2].data == nullptr || args[3].data == nullptr)) return 5;
  P.nrows = nrows;
  P.ncols = ncols;
  P.nnz = nnz;
  P.rp = static_cast<const int64_t*>(args[0].data);
  P.ci = static_cast<const int32_t*>(args[1].data);
  P.va = static_cast<const double*>(args[2].data);
  P.x = static_cast<const double*>(args[3].data);
  P.y = static_cast<double*>(args[4].data);
  return 0;
}

// Blocks of `per_block` threads for `threads` threads (1 .. 2^31-1; the kernels are grid-stride).
inline unsigned blocks_for(int64_t threads, int per_block) {
  const int64_t blocks = (threads + per_block - 1) / per_block;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 2147483647 ? 2147483647 : blocks));
}
inline unsigned grid_for(int64_t threads) { return blocks_for(threads, BLOCK); }

#if GLP_FORMAT == 1
// The SELL layout, computed on the host from a host copy of row_ptr.
struct sell_layout {
  int64_t nslices = 0, npos = 0, total = 0;  // slices, positions (nslices*C), stored entries
  std::vector<int64_t> sptr;                 // nslices+1
  std::vector<int32_t> len;                  // npos
  std::vector<int32_t> perm;                 // npos (SIGMA > 1 only); -1 for padding positions
};

// Returns false when row_ptr is not a valid CSR offset array for nnz entries.
inline bool build_layout(const std::vector<int64_t>& rp, int64_t nrows, int64_t nnz, sell_layout& L) {
  if (rp[0] != 0 || rp[static_cast<size_t>(nrows)] != nnz) return false;
  for (int64_t i = 0; i < nrows; ++i)
    if (rp[static_cast<size_t>(i) + 1] < rp[static_cast<size_t>(i)] || rp[static_cast<size_t>(i) + 1] - rp[static_cast<size_t>(i)] > INT32_MAX)
      return false;
  L.nslices = (nrows + C - 1) / C;
  L.npos = L.nslices * C;
  auto rowlen = [&rp](int64_t r) { return static_cast<int32_t>(rp[static_cast<size_t>(r) + 1] - rp[static_cast<size_t>(r)]); };
  L.len.assign(static_cast<size_t>(L.npos), 0);
  if (SIGMA > 1) {
    L.perm.assign(static_cast<size_t>(L.npos), -1);
    for (int64_t p = 0; p < nrows; ++p) L.perm[static_cast<size_t>(p)] = static_cast<int32_t>(p);
    for (int64_t w0 = 0; w0 < nrows; w0 += SIGMA) {
      const int64_t w1 = std::min(nrows, w0 + SIGMA);
      std::stable_sort(L.perm.begin() + w0, L.perm.begin() + w1,
                       [&rowlen](int32_t a, int32_t b) { return rowlen(a) > rowlen(b); });
    }
    for (int64_t p = 0; p < nrows; ++p) L.len[static_cast<size_t>(p)] = rowlen(L.perm[static_cast<size_t>(p)]);
  } else {
    for (int64_t p = 0; p < nrows; ++p) L.len[static_cast<size_t>(p)] = rowlen(p);
  }
  L.sptr.assign(static_cast<size_t>(L.nslices) + 1, 0);
  for (int64_t s = 0; s < L.nslices; ++s) {
    int32_t w = 0;
    for (int l = 0; l < C; ++l) w = std::max(w, L.len[static_cast<size_t>(s * C + l)]);
    L.sptr[static_cast<size_t>(s) + 1] = L.sptr[static_cast<size_t>(s)] + static_cast<int64_t>(w) * C;
  }
  L.total = L.sptr[static_cast<size_t>(L.nslices)];
  return true;
}

// What glp_setup built, on the device. Replaced by every setup; never freed at exit (the context
// may already be gone by then).
struct sell_state {
  bool valid = false;
  const void* rp = nullptr;  // identity of the CSR matrix it was built from
  const void* ci = nullptr;
  const void* va = nullptr;
  int64_t nrows = 0, ncols = 0, nnz = 0;
  int64_t nslices = 0;
  int64_t* sptr = nullptr;
  int32_t* len = nullptr;
  int32_t* perm = nullptr;  // SIGMA > 1 only
  int32_t* col = nullptr;
  double* val = nullptr;
  unsigned long long* fp = nullptr;  // [0] fingerprint of A at setup, [1] the sell_kernel block counter
  unsigned int* done = nullptr;      // (unsigned int*)(fp + 1)
  bool matches(const problem& P) const {
    return valid && rp == P.rp && ci == P.ci && va == P.va && nrows == P.nrows && ncols == P.ncols && nnz == P.nnz;
  }
};
#endif  // GLP_FORMAT == 1

}  // namespace glp_spmv

#endif  // GLP_SPMV_KERNELS_HPP
