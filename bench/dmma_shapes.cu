// FP64 tensor-core instructions on this GPU: for each mma.sync shape with float64 operands, checks
// the fragment layout the gemm template assumes (one warp computes D = A*B + C on a known tile and
// the result is compared with the host's) and measures its issue rate (every warp of a full grid
// runs independent accumulator chains back to back). What the gemm family's MMA parameter
// chooses between; docs/BENCHMARKS.md quotes its output.
//
//   nvcc -std=c++17 -O3 -gencode=arch=compute_90,code=sm_90 bench/dmma_shapes.cu -o dmma_shapes && ./dmma_shapes
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

#define CHECK(x)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      return 1;                                                                        \
    }                                                                                  \
  } while (0)

// Shape S: M x 8 x K. Fragment layout (lane = 4*g + t): A element i of a thread is
// (row g + 8*(i%2) [M = 16 only], column t + 4*(i / (M/8))); B element i is (row t + 4*i, column g);
// D element i is (row g + 8*(i/2), column 2*t + i%2).
template <int M, int K>
struct shape {
  static constexpr int na = M * K / 32, nb = K * 8 / 32, nd = M * 8 / 32;
  __device__ static void mma(double (&d)[nd], const double (&a)[na], const double (&b)[nb]);
  __host__ __device__ static void a_pos(int lane, int i, int& r, int& c) {
    const int g = lane / 4, t = lane % 4;
    if (M == 8) {
      r = g;
      c = t + 4 * i;
    } else {
      r = g + 8 * (i % 2);
      c = t + 4 * (i / 2);
    }
  }
  __host__ __device__ static void b_pos(int lane, int i, int& r, int& c) { r = lane % 4 + 4 * i, c = lane / 4; }
  __host__ __device__ static void d_pos(int lane, int i, int& r, int& c) { r = lane / 4 + 8 * (i / 2), c = 2 * (lane % 4) + i % 2; }
};

template <>
__device__ void shape<8, 4>::mma(double (&d)[2], const double (&a)[1], const double (&b)[1]) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a[0]), "d"(b[0]));
}
template <>
__device__ void shape<16, 4>::mma(double (&d)[4], const double (&a)[2], const double (&b)[1]) {
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(b[0]));
}
template <>
__device__ void shape<16, 8>::mma(double (&d)[4], const double (&a)[4], const double (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}
template <>
__device__ void shape<16, 16>::mma(double (&d)[4], const double (&a)[8], const double (&b)[4]) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, "
      "{%0,%1,%2,%3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]), "d"(b[1]),
        "d"(b[2]), "d"(b[3]));
}

// One warp: D = A(M x K) * B(K x 8), both row-major, through the layout above.
template <int M, int K>
__global__ void layout_kernel(const double* A, const double* B, double* D) {
  using S = shape<M, K>;
  const int lane = threadIdx.x;
  double a[S::na], b[S::nb], d[S::nd];
  for (int i = 0; i < S::na; ++i) {
    int r, c;
    S::a_pos(lane, i, r, c);
    a[i] = A[r * K + c];
  }
  for (int i = 0; i < S::nb; ++i) {
    int r, c;
    S::b_pos(lane, i, r, c);
    b[i] = B[r * 8 + c];
  }
  for (int i = 0; i < S::nd; ++i) d[i] = 0;
  S::mma(d, a, b);
  for (int i = 0; i < S::nd; ++i) {
    int r, c;
    S::d_pos(lane, i, r, c);
    D[r * 8 + c] = d[i];
  }
}

// Every warp: CHAINS independent accumulators, ITER rounds.
template <int M, int K, int CHAINS>
__global__ void rate_kernel(double* sink, int iters) {
  using S = shape<M, K>;
  double a[S::na], b[S::nb], d[CHAINS][S::nd];
  for (int i = 0; i < S::na; ++i) a[i] = 1e-3 * (threadIdx.x + i);
  for (int i = 0; i < S::nb; ++i) b[i] = 1e-3 * (threadIdx.x - i);
  for (int c = 0; c < CHAINS; ++c)
    for (int i = 0; i < S::nd; ++i) d[c][i] = 0;
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) S::mma(d[c], a, b);
  double s = 0;
  for (int c = 0; c < CHAINS; ++c)
    for (int i = 0; i < S::nd; ++i) s += d[c][i];
  if (s == 12345.678) sink[0] = s;  // keeps the chains alive
}

template <int M, int K>
int probe(const char* name, int sms) {
  std::vector<double> A(M * K), B(K * 8), D(M * 8), want(M * 8, 0.0);
  for (int i = 0; i < M * K; ++i) A[i] = std::ldexp(1.0, -(i % 7)) * (i % 3 == 0 ? -1 : 1) + i;
  for (int i = 0; i < K * 8; ++i) B[i] = 0.25 * (i % 11) - 1.0 + i * 0.5;
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < 8; ++c)
      for (int p = 0; p < K; ++p) want[r * 8 + c] += A[r * K + p] * B[p * 8 + c];
  double *dA, *dB, *dD, *sink;
  CHECK(cudaMalloc(&dA, A.size() * 8));
  CHECK(cudaMalloc(&dB, B.size() * 8));
  CHECK(cudaMalloc(&dD, D.size() * 8));
  CHECK(cudaMalloc(&sink, 8));
  CHECK(cudaMemcpy(dA, A.data(), A.size() * 8, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dB, B.data(), B.size() * 8, cudaMemcpyHostToDevice));
  layout_kernel<M, K><<<1, 32>>>(dA, dB, dD);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(D.data(), dD, D.size() * 8, cudaMemcpyDeviceToHost));
  double err = 0;
  for (int i = 0; i < M * 8; ++i) err = std::fmax(err, std::fabs(D[i] - want[i]) / (std::fabs(want[i]) + 1));
  // Rate: 4 warps per block, 8 blocks per SM, 8 chains each.
  const int iters = 4096, blocks = sms * 8, threads = 128;
  rate_kernel<M, K, 8><<<blocks, threads>>>(sink, 16);
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  float best = 1e30f;
  for (int rep = 0; rep < 5; ++rep) {
    CHECK(cudaEventRecord(e0));
    rate_kernel<M, K, 8><<<blocks, threads>>>(sink, iters);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    best = ms < best ? ms : best;
  }
  const double flops = 2.0 * M * 8 * K * 8.0 * iters * (blocks * threads / 32.0);
  std::printf("%-12s layout %s (max rel err %.1e)  %6.1f TFLOP/s\n", name, err < 1e-12 ? "ok   " : "WRONG", err,
              flops / (best * 1e-3) / 1e12);
  cudaFree(dA);
  cudaFree(dB);
  cudaFree(dD);
  cudaFree(sink);
  return err < 1e-12 ? 0 : 1;
}

int main() {
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("%s, %d SMs, compute capability %d.%d\n", p.name, p.multiProcessorCount, p.major, p.minor);
  int bad = probe<8, 4>("m8n8k4", p.multiProcessorCount);
  if (p.major >= 9) {
    bad += probe<16, 4>("m16n8k4", p.multiProcessorCount);
    bad += probe<16, 8>("m16n8k8", p.multiProcessorCount);
    bad += probe<16, 16>("m16n8k16", p.multiProcessorCount);
  }
  return bad ? 1 : 0;
}
