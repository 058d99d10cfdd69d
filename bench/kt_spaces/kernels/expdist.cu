// The sum over all pairs (i, j) of two sets of 2-D points with per-point scales,
//   D = sum_{i<size_a, j<size_b} exp(-|a_i - b_j|^2 / (va_i + vb_j)),   v = 2 sigma^2,
// a Bhattacharyya-like overlap of two sets of localisations. Our own implementation of the
// parameter semantics of Kernel Tuner's expdist benchmark.
//
// The host prepends one "#define NAME VALUE" line per tuning parameter:
//   block_size_x, block_size_y   thread block dimensions; x runs over the points of A, y over B
//   tile_size_x, tile_size_y     points of A and of B per thread: a block pairs
//                                block_size_x*tile_size_x points of A (held in registers) with
//                                tiles of block_size_y*tile_size_y points of B, a thread's points
//                                strided by the block (i = tx + k*block_size_x)
//   use_shared_mem               0: every thread reads its B points from global memory;
//                                1: the block stages each B tile in shared memory;
//                                2: the same, double-buffered: the next tile is loaded into
//                                   registers before the current one is used, then stored into the
//                                   other buffer (one barrier per tile; only with use_column = 1)
//   loop_unroll_factor_x         0: the loop over a thread's A points has no unroll pragma (the
//                                compiler unrolls it fully); N > 0: #pragma unroll N (1: not
//                                unrolled, the points then live in local memory)
//   loop_unroll_factor_y         the same for the loop over a thread's B points of a tile
//   use_column                   0: one block per pair of an A tile and a B tile (a 2-D grid of
//                                ceil(size_a/(block_size_x*tile_size_x)) x
//                                ceil(size_b/(block_size_y*tile_size_y)) blocks);
//                                1: a column of n_y_blocks blocks per A tile, each going through
//                                every n_y_blocks-th B tile
//   n_y_blocks                   blocks per column (use_column = 1)
// and the problem: size_a, size_b, n_slots.
//
// Points are float4 (x, y, v, unused). Each term is computed with explicitly rounded
// intrinsics in the same order as the reference, so every configuration sums the same float
// terms. A thread adds the terms of one tile (at most tile_size_x*tile_size_y of them) in float
// and accumulates the tile sums in double; the block's sum goes by one double atomicAdd into one
// of n_slots partial sums. The last block of the launch (by a ticket counter in sync[0]) adds the
// partial sums in order, writes result[0] as float, and clears the partial sums and the counter
// for the next launch. Points past the end of A are placed at (+inf, +inf) and those past the end
// of B at (-inf, -inf), so that any term with one of them is exactly 0: no bounds checks in the
// inner loops.

#define threads (block_size_x * block_size_y)
#define warps (threads / 32)
#define tile_a (block_size_x * tile_size_x)   // points of A per block
#define tile_b (block_size_y * tile_size_y)   // points of B per tile
#define loads_b ((tile_b + threads - 1) / threads)   // staging loads per thread and tile

#if threads % 32 != 0
#error "the block must hold whole warps"
#endif
#if use_column == 0 && use_shared_mem == 2
#error "double-buffered staging needs the column kernel"
#endif

__device__ __forceinline__ float pair_term(float4 a, float4 b)
{
    const float dx = __fsub_rn(a.x, b.x);
    const float dy = __fsub_rn(a.y, b.y);
    const float d2 = __fmaf_rn(dy, dy, __fmul_rn(dx, dx));
    return __expf(-__fdividef(d2, __fadd_rn(a.z, b.z)));
}

__device__ __forceinline__ float4 far_a() { return make_float4(__int_as_float(0x7f800000), __int_as_float(0x7f800000), 1.0f, 0.0f); }
__device__ __forceinline__ float4 far_b() { return make_float4(__int_as_float(0xff800000), __int_as_float(0xff800000), 1.0f, 0.0f); }

__device__ __forceinline__ float4 load_b(const float4* B, int j) { return j < size_b ? B[j] : far_b(); }

// Sum of v over the block, valid in thread 0 (fixed order for given inputs).
__device__ __forceinline__ double block_sum(double v, double* sh_warp, int tid)
{
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if (warps > 1) {
        if ((tid & 31) == 0)
            sh_warp[tid >> 5] = v;
        __syncthreads();
        if (tid < 32) {
            v = tid < warps ? sh_warp[tid] : 0.0;
#pragma unroll
            for (int o = 16; o > 0; o >>= 1)
                v += __shfl_down_sync(0xffffffffu, v, o);
        }
    }
    return v;
}

extern "C" __global__ void __launch_bounds__(threads) expdist_kernel(float* result, const float4* __restrict__ A,
                                                                    const float4* __restrict__ B, double* slots,
                                                                    unsigned int* sync)
{
    __shared__ double sh_warp[warps];
    __shared__ bool sh_last;
#if use_shared_mem == 1
    __shared__ float4 sh_b[tile_b];
#elif use_shared_mem == 2
    __shared__ float4 sh_b[2][tile_b];
#endif

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * block_size_x + tx;

    float4 a[tile_size_x];
#pragma unroll
    for (int k = 0; k < tile_size_x; k++) {
        const int i = blockIdx.x * tile_a + tx + k * block_size_x;
        a[k] = i < size_a ? A[i] : far_a();
    }

    double acc = 0.0;
#if use_column == 1
    const int stride = n_y_blocks * tile_b;
#if use_shared_mem == 2
    int buf = 0;
    for (int q = 0; q < loads_b; q++) {
        const int idx = tid + q * threads;
        if (idx < tile_b)
            sh_b[0][idx] = load_b(B, blockIdx.y * tile_b + idx);
    }
    __syncthreads();
#endif
    for (int jb = blockIdx.y * tile_b; jb < size_b; jb += stride)
#else
    const int jb = blockIdx.y * tile_b;
#endif
    {
#if use_shared_mem == 1
        for (int q = 0; q < loads_b; q++) {
            const int idx = tid + q * threads;
            if (idx < tile_b)
                sh_b[idx] = load_b(B, jb + idx);
        }
        __syncthreads();
#elif use_shared_mem == 2
        float4 next[loads_b];
#pragma unroll
        for (int q = 0; q < loads_b; q++)
            next[q] = load_b(B, jb + stride + tid + q * threads);   // beyond the last tile: unused
#endif
        float part = 0.0f;
#if loop_unroll_factor_y > 0
#pragma unroll loop_unroll_factor_y
#endif
        for (int l = 0; l < tile_size_y; l++) {
#if use_shared_mem == 0
            const float4 b = load_b(B, jb + ty + l * block_size_y);
#elif use_shared_mem == 1
            const float4 b = sh_b[ty + l * block_size_y];
#else
            const float4 b = sh_b[buf][ty + l * block_size_y];
#endif
#if loop_unroll_factor_x > 0
#pragma unroll loop_unroll_factor_x
#endif
            for (int k = 0; k < tile_size_x; k++)
                part += pair_term(a[k], b);
        }
        acc += (double)part;
#if use_shared_mem == 1 && use_column == 1
        __syncthreads();   // the tile is overwritten in the next iteration
#elif use_shared_mem == 2
#pragma unroll
        for (int q = 0; q < loads_b; q++) {
            const int idx = tid + q * threads;
            if (idx < tile_b)
                sh_b[buf ^ 1][idx] = next[q];
        }
        buf ^= 1;
        __syncthreads();
#endif
    }

    const double block_total = block_sum(acc, sh_warp, tid);
    if (tid == 0) {
        const unsigned int block = blockIdx.y * gridDim.x + blockIdx.x;
        atomicAdd(&slots[block % n_slots], block_total);
        __threadfence();
        sh_last = atomicAdd(&sync[0], 1u) == gridDim.x * gridDim.y - 1;
    }
    __syncthreads();
    if (!sh_last)
        return;

    // The last block: every other block's partial sum has arrived.
    __threadfence();
    double v = 0.0;
    for (int q = tid; q < n_slots; q += threads) {
        v += __ldcg(&slots[q]);
        slots[q] = 0.0;
    }
    __syncthreads();   // sh_warp is reused
    v = block_sum(v, sh_warp, tid);
    if (tid == 0) {
        result[0] = (float)v;
        sync[0] = 0;
    }
}
