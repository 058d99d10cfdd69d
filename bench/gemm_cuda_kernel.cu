// bench/gemm_cuda_kernel MODE: the gemm CUDA template, built with one point's -D flags by
// bench/gemm_cuda_kernel.sh, timed against cublasDgemm at the `tune` shape (1733 x 1669 x 1601):
// four input sets taken in turn, 8 calls per timing, 11 rounds alternating which goes first,
// medians of the device's events; the template's C is checked against cuBLAS's first (exit 5 beyond
// 1e-12 of max|C|). MODE time (default) prints one line; prof-cand and prof-cublas make two
// calls of one side only, for a profiler.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include "glp_kernel.h"
#define CK(x)                                                        \
  do {                                                               \
    cudaError_t e_ = (x);                                            \
    if (e_ != cudaSuccess) {                                         \
      printf("CUDA %s line %d\n", cudaGetErrorString(e_), __LINE__); \
      return 3;                                                      \
    }                                                                \
  } while (0)
__global__ void fill(double* p, long n, unsigned seed) {
  for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x) {
    unsigned long long x = (i + 1) * 0x9E3779B97F4A7C15ull ^ seed * 0xD1B54A32D192ED03ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    p[i] = (double)(x >> 11) / 9007199254740992.0 * 2.0 - 1.0;
  }
}
int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "time";
  const long m = 1733, n = 1669, k = 1601;
  const int S = 4;
  double *A[S], *B[S], *C[S], *R;
  for (int s = 0; s < S; ++s) {
    CK(cudaMalloc(&A[s], m * k * 8));
    CK(cudaMalloc(&B[s], k * n * 8));
    CK(cudaMalloc(&C[s], m * n * 8));
    fill<<<1024, 256>>>(A[s], m * k, 11 + s);
    fill<<<1024, 256>>>(B[s], k * n, 101 + s);
    fill<<<1024, 256>>>(C[s], m * n, 7 + s);
  }
  CK(cudaMalloc(&R, m * n * 8));
  double h1 = 1, h0 = 0, *dab;
  CK(cudaMalloc(&dab, 16));
  double hab[2] = {1, 0};
  CK(cudaMemcpy(dab, hab, 16, cudaMemcpyHostToDevice));
  cublasHandle_t hd;
  cublasCreate(&hd);
  auto cand = [&](int s) {
    glp_arg a[5] = {{A[s], m * k, GLP_FLOAT64, GLP_IN},
                    {B[s], k * n, GLP_FLOAT64, GLP_IN},
                    {dab, 1, GLP_FLOAT64, GLP_IN},
                    {dab + 1, 1, GLP_FLOAT64, GLP_IN},
                    {C[s], m * n, GLP_FLOAT64, GLP_INOUT}};
    int64_t sz[3] = {m, n, k};
    return glp_kernel(a, 5, sz, nullptr);
  };
  auto cub = [&](int s, double* c) {
    return (int)cublasDgemm(hd, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &h1, B[s], n, A[s], k, &h0, c, n);
  };
  if (!strcmp(mode, "prof-cand")) {
    cand(0);
    cand(1);
    CK(cudaDeviceSynchronize());
    return 0;
  }
  if (!strcmp(mode, "prof-cublas")) {
    cub(0, C[0]);
    cub(1, C[1]);
    CK(cudaDeviceSynchronize());
    return 0;
  }
  // check
  if (int rc = cand(0)) {
    printf("cand rc %d\n", rc);
    return 4;
  }
  cub(0, R);
  CK(cudaDeviceSynchronize());
  std::vector<double> hc(m * n), hr(m * n);
  CK(cudaMemcpy(hc.data(), C[0], m * n * 8, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hr.data(), R, m * n * 8, cudaMemcpyDeviceToHost));
  double md = 0, mr = 0;
  for (long i = 0; i < m * n; ++i) {
    md = std::max(md, std::fabs(hc[i] - hr[i]));
    mr = std::max(mr, std::fabs(hr[i]));
  }
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  const int calls = 8, rounds = 11;
  std::vector<double> tc, tk;
  for (int w = 0; w < 3; ++w) {
    cand(w % S);
    cub(w % S, C[w % S]);
  }
  for (int r = 0; r < rounds; ++r) {
    for (int who = 0; who < 2; ++who) {
      const bool is_cand = (who + r) % 2 == 0;
      cudaEventRecord(e0);
      for (int c = 0; c < calls; ++c) is_cand ? cand(c % S) : cub(c % S, C[c % S]);
      cudaEventRecord(e1);
      CK(cudaEventSynchronize(e1));
      float ms;
      cudaEventElapsedTime(&ms, e0, e1);
      (is_cand ? tk : tc).push_back(1e3 * ms / calls);
    }
  }
  std::sort(tc.begin(), tc.end());
  std::sort(tk.begin(), tk.end());
  printf("cublas %.1f us  cand %.1f us  ratio %.3f  (cand min %.1f max %.1f)  maxdiff/max %.2e\n", tc[rounds / 2], tk[rounds / 2],
         tc[rounds / 2] / tk[rounds / 2], tk[0], tk.back(), md / mr);
  return md / mr < 1e-12 ? 0 : 5;
}
