// spmv, the host side of the SELL-C-sigma copy, shared by the CUDA (cuda/spmv.cu) and HIP
// (hip/spmv.hip) templates: the device copy of A built by glp_setup (FORMAT 1), the launch grid
// of the SELL kernel, and the runtime calls both need, spelled once through GLP_RT(name): cuda*
// under nvcc (a .cu file, or a .hip file built with -include glp_hip_on_cuda.h), hip* under hipcc.
// Include it after spmv_kernels.hpp and the runtime's own header.
#ifndef GLP_SPMV_SELL_HPP
#define GLP_SPMV_SELL_HPP

#include <stdint.h>

#include <algorithm>
#include <vector>

#if defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)
#define GLP_RT(name) hip##name
#define GLP_RT_SM_COUNT hipDeviceAttributeMultiprocessorCount
#else
#define GLP_RT(name) cuda##name
#define GLP_RT_SM_COUNT cudaDevAttrMultiProcessorCount
#endif

namespace glp_spmv {

using stream_t = GLP_RT(Stream_t);

#if GLP_FORMAT == 1
namespace {

sell_state g_sell;  // the only state kept between calls: A in another format

template <class T>
void release_one(T*& p) {
  if (p != nullptr) (void)GLP_RT(Free)(p);
  p = nullptr;
}

void release() {
  release_one(g_sell.sptr);
  release_one(g_sell.len);
  release_one(g_sell.perm);
  release_one(g_sell.col);
  release_one(g_sell.val);
  release_one(g_sell.fp);
  g_sell = sell_state{};
}

template <class T>
bool alloc(T*& p, int64_t count) {
  const size_t bytes = static_cast<size_t>(count > 0 ? count : 1) * sizeof(T);
  if (GLP_RT(Malloc)(reinterpret_cast<void**>(&p), bytes) != GLP_RT(Success)) {
    p = nullptr;
    return false;
  }
  return true;
}

template <class T>
bool upload(T* dst, const std::vector<T>& src, stream_t s) {
  return src.empty() || GLP_RT(MemcpyAsync)(dst, src.data(), src.size() * sizeof(T), GLP_RT(MemcpyHostToDevice), s) == GLP_RT(Success);
}

}  // namespace

// Most blocks of the SELL kernel that can be resident at once on this device (queried once):
// the SELL kernel's grid is capped there and loops, so its per-block tail (one fenced atomic for
// the stale-copy guard) is paid once per resident block, not once per slice group.
inline unsigned sell_grid_cap() {
  static unsigned cap = 0;
  if (cap == 0) {
    int dev = 0, sms = 0, per_sm = 0;
    if (GLP_RT(GetDevice)(&dev) != GLP_RT(Success) || GLP_RT(DeviceGetAttribute)(&sms, GLP_RT_SM_COUNT, dev) != GLP_RT(Success) ||
        GLP_RT(OccupancyMaxActiveBlocksPerMultiprocessor)(&per_sm, sell_kernel, BLOCK, 0) != GLP_RT(Success) || sms < 1 ||
        per_sm < 1) {
      (void)GLP_RT(GetLastError)();
      return 65535;  // no answer: a fixed cap, asked again next call
    }
    cap = static_cast<unsigned>(sms) * static_cast<unsigned>(per_sm);
  }
  return cap;
}

// glp_setup's work for the matrix P: replaces whatever an earlier setup built with the SELL copy
// of P (or with nothing, when the device has no room for it: glp_kernel then uses CSR). Returns
// glp_setup's code: 0, or 6 (not a CSR matrix), 7 (row_ptr unreadable), 8 (building failed).
inline int build_sell(const problem& P, stream_t s) {
  release();  // whatever an earlier setup built belongs to another matrix
  if (P.nrows == 0) return 0;
  std::vector<int64_t> rp(static_cast<size_t>(P.nrows) + 1);
  if (GLP_RT(MemcpyAsync)(rp.data(), P.rp, rp.size() * sizeof(int64_t), GLP_RT(MemcpyDeviceToHost), s) != GLP_RT(Success) ||
      GLP_RT(StreamSynchronize)(s) != GLP_RT(Success))
    return 7;
  sell_layout L;
  if (!build_layout(rp, P.nrows, P.nnz, L)) return 6;
  sell_state& S = g_sell;
  const bool have = alloc(S.sptr, L.nslices + 1) && alloc(S.len, L.npos) && (SIGMA == 1 || alloc(S.perm, L.npos)) &&
                    alloc(S.col, L.total) && alloc(S.val, L.total) && alloc(S.fp, 2);
  if (!have) {  // no room for the SELL copy: glp_kernel computes from CSR
    (void)GLP_RT(GetLastError)();  // clear the allocation error: the call succeeded
    release();
    return 0;
  }
  S.done = reinterpret_cast<unsigned int*>(S.fp + 1);
  if (!upload(S.sptr, L.sptr, s) || !upload(S.len, L.len, s) || (SIGMA > 1 && !upload(S.perm, L.perm, s))) {
    release();
    return 8;
  }
  sell_fill_kernel<<<blocks_for(L.npos, 256), 256, 0, s>>>(P.nrows, L.npos, S.sptr, S.perm, P.rp, P.ci, P.va, S.col, S.val);
  fingerprint_kernel<<<1, 64, 0, s>>>(P.nrows, P.nnz, P.rp, P.ci, P.va, S.fp);
  if (GLP_RT(MemsetAsync)(S.fp + 1, 0, sizeof(unsigned long long), s) != GLP_RT(Success)) {
    release();
    return 8;
  }
  // The host vectors die here: wait for the copies (and the kernels) before returning.
  if (GLP_RT(GetLastError)() != GLP_RT(Success) || GLP_RT(StreamSynchronize)(s) != GLP_RT(Success)) {
    release();
    return 8;
  }
  S.rp = P.rp;
  S.ci = P.ci;
  S.va = P.va;
  S.nrows = P.nrows;
  S.ncols = P.ncols;
  S.nnz = P.nnz;
  S.nslices = L.nslices;
  S.valid = true;
  (void)sell_grid_cap();  // query the device here, outside the timed kernel calls
  return 0;
}

// The SELL copy glp_setup built, when it is one of P (the same arrays and sizes); else nullptr.
inline const sell_state* sell_copy_of(const problem& P) { return g_sell.matches(P) ? &g_sell : nullptr; }
#endif  // GLP_FORMAT == 1

// Whether the last launch on this thread failed.
inline bool launch_failed() { return GLP_RT(GetLastError)() != GLP_RT(Success); }

}  // namespace glp_spmv

#endif  // GLP_SPMV_SELL_HPP
