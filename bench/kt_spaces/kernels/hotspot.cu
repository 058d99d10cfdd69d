// Two-dimensional thermal simulation in the style of Rodinia's hotspot: at every time step each
// cell's new temperature follows from its own temperature, its four neighbours', the power
// dissipated in it and the ambient temperature. Our own implementation of the parameter semantics
// of Kernel Tuner's hotspot benchmark (temporal tiling in shared memory).
//
// The host prepends one "#define NAME VALUE" line per tuning parameter:
//   block_size_x, block_size_y   thread block dimensions
//   tile_size_x, tile_size_y     output cells per thread in x and y; a block owns an output tile of
//                                (block_size_x*tile_size_x) x (block_size_y*tile_size_y) cells,
//                                a thread's cells strided by the block (x = tx + i*block_size_x)
//   temporal_tiling_factor       time steps per pass: a pass loads the tile plus a halo of that
//                                many cells into shared memory and computes that many steps there,
//                                the valid region shrinking by one cell per step
//   loop_unroll_factor_t         0: no unroll pragma on the time loop of a pass (the compiler
//                                decides); N > 0: #pragma unroll N
//   sh_power                     1: the power of the block's region is staged in shared memory;
//                                0: it is read from global memory at every step
//   blocks_per_sm                0: __launch_bounds__(threads); N > 0: __launch_bounds__(threads, N)
// and the problem: grid_size (the grid is grid_size x grid_size cells, row-major), total_steps (the
// time steps of one launch, a multiple of temporal_tiling_factor) and the coefficients hs_cx, hs_cy,
// hs_cz, hs_cp, hs_amb of the update
//   t' = t + cp*p + cx*(e + w - 2t) + cy*(n + s - 2t) + cz*(amb - t)
// where a neighbour outside the grid counts as the cell itself (no flow across the border). Every
// operation is an explicitly rounded intrinsic, so every configuration and the reference compute
// bit-identical temperatures.
//
// One launch advances the grid by total_steps steps in total_steps / temporal_tiling_factor
// passes. Between passes the temperatures go through global memory (pass p reads the result of
// pass p-1), so a block may start pass p of its tile only when pass p-1 is complete on every tile
// its region overlaps. Blocks therefore take work items in order from a ticket counter (item =
// pass * tiles + tile): an item waits only for items with smaller tickets, which blocks already
// running hold, so the waits always end, whatever the number of resident blocks. Completion is
// published per tile in sync[], stamped with a per-launch generation so that no reset is needed
// between launches: the last block to finish restarts the ticket counter and advances the
// generation.
//   sync[0]   ticket counter              sync[1]   finished blocks
//   sync[2]   generation of this launch   sync[4+k] generation*16 + passes completed on tile k
// Intermediate results alternate between the two halves of scratch (2 x grid_size^2 floats); the
// last pass writes output. The grid is one-dimensional: tiles * passes blocks.

#define threads (block_size_x * block_size_y)
#define out_w (block_size_x * tile_size_x)
#define out_h (block_size_y * tile_size_y)
#define halo temporal_tiling_factor
#define reg_w (out_w + 2 * halo)   // region held in shared memory: the tile and its halo
#define reg_h (out_h + 2 * halo)
#define cells_x ((reg_w + block_size_x - 1) / block_size_x)   // region cells per thread in x
#define tiles_x ((grid_size + out_w - 1) / out_w)
#define tiles_y ((grid_size + out_h - 1) / out_h)
#define n_tiles (tiles_x * tiles_y)
#define n_passes (total_steps / temporal_tiling_factor)

#if total_steps % temporal_tiling_factor != 0
#error "total_steps must be a multiple of temporal_tiling_factor"
#endif
#if n_passes > 15
#error "at most 15 passes per launch (the progress stamp keeps 4 bits for them)"
#endif

#if blocks_per_sm > 0
#define LAUNCH_BOUNDS __launch_bounds__(threads, blocks_per_sm)
#else
#define LAUNCH_BOUNDS __launch_bounds__(threads)
#endif

__device__ __forceinline__ float hotspot_update(float t, float n, float s, float e, float w, float p)
{
    float r = __fmaf_rn(hs_cp, p, t);
    r = __fmaf_rn(hs_cx, __fmaf_rn(-2.0f, t, __fadd_rn(e, w)), r);
    r = __fmaf_rn(hs_cy, __fmaf_rn(-2.0f, t, __fadd_rn(n, s)), r);
    return __fmaf_rn(hs_cz, __fsub_rn(hs_amb, t), r);
}

__device__ __forceinline__ bool in_grid(int gx, int gy)
{
    return gx >= 0 && gx < grid_size && gy >= 0 && gy < grid_size;
}

extern "C" __global__ void LAUNCH_BOUNDS hotspot_kernel(float* output, const float* temp_in,
                                                        const float* __restrict__ power, float* scratch,
                                                        unsigned int* sync)
{
    __shared__ float sh_temp[2][reg_h][reg_w];
#if sh_power == 1
    __shared__ float sh_pow[reg_h][reg_w];
#endif
    __shared__ unsigned int sh_item, sh_gen;

    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * block_size_x + tx;
    volatile unsigned int* progress = sync + 4;

    if (tid == 0) {
        sh_item = atomicAdd(&sync[0], 1u);
        sh_gen = *(volatile unsigned int*)&sync[2];
    }
    __syncthreads();
    const unsigned int gen = sh_gen;
    const int pass = int(sh_item / n_tiles);
    const int tile = int(sh_item % n_tiles);
    const int x0 = (tile % tiles_x) * out_w - halo;   // grid position of region cell (0, 0)
    const int y0 = (tile / tiles_x) * out_h - halo;

    if (pass > 0) {
        // Wait until pass-1 is complete on every tile that the region (clipped to the grid) overlaps.
        const int tx0 = max(x0, 0) / out_w, tx1 = min(x0 + reg_w - 1, grid_size - 1) / out_w;
        const int ty0 = max(y0, 0) / out_h, ty1 = min(y0 + reg_h - 1, grid_size - 1) / out_h;
        const int nx = tx1 - tx0 + 1, count = nx * (ty1 - ty0 + 1);
        const unsigned int target = gen * 16u + unsigned(pass);
        for (int q = tid; q < count; q += threads) {
            const int k = (ty0 + q / nx) * tiles_x + tx0 + q % nx;
            while (progress[k] < target)
                ;
        }
        __threadfence();
    }
    __syncthreads();

    const size_t plane = (size_t)grid_size * grid_size;
    const float* src = pass == 0 ? temp_in : scratch + size_t((pass - 1) & 1) * plane;
    float* dst = pass == n_passes - 1 ? output : scratch + size_t(pass & 1) * plane;

    // Load the region; cells outside the grid are never used (their neighbours take their own
    // temperature instead). Loads bypass L1: scratch is rewritten by other blocks within the launch.
    for (int ry = ty; ry < reg_h; ry += block_size_y) {
        const int gy = y0 + ry;
#pragma unroll
        for (int i = 0; i < cells_x; i++) {
            const int rx = tx + i * block_size_x, gx = x0 + rx;
            if (rx < reg_w) {
                const bool in = in_grid(gx, gy);
                const size_t g = (size_t)gy * grid_size + gx;
                sh_temp[0][ry][rx] = in ? __ldcg(src + g) : 0.0f;
#if sh_power == 1
                sh_pow[ry][rx] = in ? power[g] : 0.0f;
#endif
            }
        }
    }
    __syncthreads();

    // Step s computes the region less s cells on every side, from step s-1's values. A thread's
    // columns are unrolled (cells_x of them); its rows form a loop.
#if loop_unroll_factor_t > 0
#pragma unroll loop_unroll_factor_t
#endif
    for (int s = 1; s <= temporal_tiling_factor; s++) {
        float(*cur)[reg_w] = sh_temp[(s - 1) & 1];
        float(*nxt)[reg_w] = sh_temp[s & 1];
#pragma unroll 1
        for (int ry = s + ty; ry < reg_h - s; ry += block_size_y) {
            const int gy = y0 + ry;
            if (gy < 0 || gy >= grid_size)
                continue;
#pragma unroll
            for (int i = 0; i < cells_x; i++) {
                const int rx = tx + i * block_size_x, gx = x0 + rx;
                if (rx >= s && rx < reg_w - s && gx >= 0 && gx < grid_size) {
                    const float t = cur[ry][rx];
                    const float w = gx > 0 ? cur[ry][rx - 1] : t;
                    const float e = gx < grid_size - 1 ? cur[ry][rx + 1] : t;
                    const float n = gy > 0 ? cur[ry - 1][rx] : t;
                    const float so = gy < grid_size - 1 ? cur[ry + 1][rx] : t;
#if sh_power == 1
                    const float p = sh_pow[ry][rx];
#else
                    const float p = power[(size_t)gy * grid_size + gx];
#endif
                    nxt[ry][rx] = hotspot_update(t, n, so, e, w, p);
                }
            }
        }
        __syncthreads();
    }

    // Store the tile (the region less the halo).
#pragma unroll
    for (int j = 0; j < tile_size_y; j++) {
        const int ry = halo + ty + j * block_size_y, gy = y0 + ry;
#pragma unroll
        for (int i = 0; i < tile_size_x; i++) {
            const int rx = halo + tx + i * block_size_x, gx = x0 + rx;
            if (gx < grid_size && gy < grid_size)
                dst[(size_t)gy * grid_size + gx] = sh_temp[temporal_tiling_factor & 1][ry][rx];
        }
    }

    // Publish: every thread's stores are made visible before the tile's progress moves on.
    __threadfence();
    __syncthreads();
    if (tid == 0) {
        if (pass < n_passes - 1)
            atomicExch(&sync[4 + tile], gen * 16u + unsigned(pass + 1));
        if (atomicAdd(&sync[1], 1u) == gridDim.x - 1) {
            // The last block of the launch: every ticket is taken and every block done.
            atomicExch(&sync[0], 0u);
            atomicExch(&sync[1], 0u);
            atomicExch(&sync[2], gen + 1u);
        }
    }
}
