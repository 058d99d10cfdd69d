// Single-precision matrix product C = A * B in the style of CLBlast's xgemm kernel, our own
// implementation of the parameter semantics tuned in Kernel Tuner's gemm example.
//
// Layouts (all with the m index contiguous for A and C, the n index contiguous for B, as CLBlast's
// kernel sees its operands):
//   A: K x M   element (m, k) at A[k*gemm_m + m]
//   B: K x N   element (k, n) at B[k*gemm_n + n]
//   C: N x M   element (m, n) at C[n*gemm_m + m]
//
// The host prepends one "#define NAME VALUE" line per tuning parameter:
//   MWG, NWG      tile of C computed by one thread block (m and n)
//   KWG           k-tile loaded per iteration of the outer loop
//   MDIMC, NDIMC  thread block of MDIMC x NDIMC threads; a thread computes MWI x NWI outputs
//                 (MWI = MWG/MDIMC, NWI = NWG/NDIMC) in registers
//   MDIMA, NDIMB  the block's threads re-shaped to MDIMA x KDIMA (KDIMA = MDIMC*NDIMC/MDIMA) to load
//                 the A tile, and to NDIMB x KDIMB to load the B tile, into shared memory
//   KWI           unroll factor of the inner k loop
//   VWM, VWN      vector width (1, 2, 4, 8 floats) of loads/stores along m and along n
//   STRM, STRN    0: each thread accesses a contiguous range of m (n) (only 0 is supported)
//   SA, SB        1: stage the A (B) tile in shared memory; 0: threads read A (B) from global memory
//   PRECISION     32 (float)
// and the problem size gemm_m, gemm_n, gemm_k. The space's restrictions guarantee every division
// below is exact, and gemm_m (gemm_n) is a multiple of MWG (NWG), gemm_k of KWG.

#if STRM != 0 || STRN != 0
#error "only STRM = STRN = 0 (contiguous per-thread access) is implemented"
#endif
#if PRECISION != 32
#error "only PRECISION = 32 is implemented"
#endif

#define MWI (MWG / MDIMC)
#define NWI (NWG / NDIMC)
#define KDIMA ((MDIMC * NDIMC) / MDIMA)
#define KDIMB ((MDIMC * NDIMC) / NDIMB)
#define MWA (MWG / MDIMA)   // m extent loaded by one thread into the A tile
#define KWA (KWG / KDIMA)   // k extent loaded by one thread into the A tile
#define NWB (NWG / NDIMB)
#define KWB (KWG / KDIMB)

// Eight floats, loaded and stored as two 16-byte accesses.
struct __align__(32) float8 {
    float4 lo, hi;
};

template <int W> struct Vec;
template <> struct Vec<1> { typedef float type; };
template <> struct Vec<2> { typedef float2 type; };
template <> struct Vec<4> { typedef float4 type; };
template <> struct Vec<8> { typedef float8 type; };
typedef Vec<VWM>::type realM;
typedef Vec<VWN>::type realN;

// A vector viewed as its floats (register-only after full unrolling).
template <typename V, int W> union Lanes {
    V v;
    float s[W];
};
typedef Lanes<realM, VWM> LanesM;
typedef Lanes<realN, VWN> LanesN;

extern "C" __global__ void gemm_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                       float* __restrict__ C)
{
    const int tidm = threadIdx.x;                  // 0 .. MDIMC-1
    const int tidn = threadIdx.y;                  // 0 .. NDIMC-1
    const int tid = tidn * MDIMC + tidm;           // 0 .. MDIMC*NDIMC-1
    const int m0 = blockIdx.x * MWG;               // first row of C (m) of this block
    const int n0 = blockIdx.y * NWG;               // first column of C (n) of this block
    const int mt = tidm * MWI;                     // this thread's m offset inside the tile
    const int nt = tidn * NWI;                     // this thread's n offset inside the tile

#if SA == 1
    __shared__ __align__(32) float a_tile[KWG * MWG];   // [k][m]
    const int la_m = (tid % MDIMA) * MWA;               // loader position in the A tile
    const int la_k = (tid / MDIMA) * KWA;
#endif
#if SB == 1
    __shared__ __align__(32) float b_tile[KWG * NWG];   // [k][n]
    const int lb_n = (tid % NDIMB) * NWB;
    const int lb_k = (tid / NDIMB) * KWB;
#endif

    float acc[MWI][NWI];
#pragma unroll
    for (int mi = 0; mi < MWI; mi++)
#pragma unroll
        for (int ni = 0; ni < NWI; ni++)
            acc[mi][ni] = 0.0f;

#pragma unroll 1
    for (int k0 = 0; k0 < gemm_k; k0 += KWG) {
#if SA == 1
        // Each thread copies a KWA x MWA block of the A tile, VWM floats at a time.
#pragma unroll
        for (int ka = 0; ka < KWA; ka++)
#pragma unroll
            for (int ma = 0; ma < MWA; ma += VWM)
                *reinterpret_cast<realM*>(&a_tile[(la_k + ka) * MWG + la_m + ma]) =
                    *reinterpret_cast<const realM*>(&A[(size_t)(k0 + la_k + ka) * gemm_m + m0 + la_m + ma]);
#endif
#if SB == 1
#pragma unroll
        for (int kb = 0; kb < KWB; kb++)
#pragma unroll
            for (int nb = 0; nb < NWB; nb += VWN)
                *reinterpret_cast<realN*>(&b_tile[(lb_k + kb) * NWG + lb_n + nb]) =
                    *reinterpret_cast<const realN*>(&B[(size_t)(k0 + lb_k + kb) * gemm_n + n0 + lb_n + nb]);
#endif
#if SA == 1 || SB == 1
        __syncthreads();
#endif

        // Inner k loop over the tile, unrolled by KWI.
#pragma unroll 1
        for (int kw = 0; kw < KWG; kw += KWI) {
#pragma unroll
            for (int ki = 0; ki < KWI; ki++) {
                const int k = kw + ki;
                float a[MWI];
                float b[NWI];
#pragma unroll
                for (int mv = 0; mv < MWI; mv += VWM) {
                    LanesM l;
#if SA == 1
                    l.v = *reinterpret_cast<const realM*>(&a_tile[k * MWG + mt + mv]);
#else
                    l.v = *reinterpret_cast<const realM*>(&A[(size_t)(k0 + k) * gemm_m + m0 + mt + mv]);
#endif
#pragma unroll
                    for (int w = 0; w < VWM; w++)
                        a[mv + w] = l.s[w];
                }
#pragma unroll
                for (int nv = 0; nv < NWI; nv += VWN) {
                    LanesN l;
#if SB == 1
                    l.v = *reinterpret_cast<const realN*>(&b_tile[k * NWG + nt + nv]);
#else
                    l.v = *reinterpret_cast<const realN*>(&B[(size_t)(k0 + k) * gemm_n + n0 + nt + nv]);
#endif
#pragma unroll
                    for (int w = 0; w < VWN; w++)
                        b[nv + w] = l.s[w];
                }
#pragma unroll
                for (int mi = 0; mi < MWI; mi++)
#pragma unroll
                    for (int ni = 0; ni < NWI; ni++)
                        acc[mi][ni] = fmaf(a[mi], b[ni], acc[mi][ni]);
            }
        }
#if SA == 1 || SB == 1
        __syncthreads();   // the tiles are overwritten in the next iteration
#endif
    }

    // Store the thread's MWI x NWI outputs, VWM floats at a time along m.
#pragma unroll
    for (int ni = 0; ni < NWI; ni++) {
#pragma unroll
        for (int mv = 0; mv < MWI; mv += VWM) {
            LanesM l;
#pragma unroll
            for (int w = 0; w < VWM; w++)
                l.s[w] = acc[mv + w][ni];
            *reinterpret_cast<realM*>(&C[(size_t)(n0 + nt + ni) * gemm_m + m0 + mt + mv]) = l.v;
        }
    }
}
