// Incoherent dedispersion: for every trial dispersion measure (DM) and every output sample, the sum
// over all frequency channels of the channel's 8-bit sample delayed by that channel's dispersion
// delay. Our own implementation of the parameter semantics of Kernel Tuner's dedispersion
// benchmark (a port of the AMBER pipeline's kernel).
//
// The host prepends one "#define NAME VALUE" line per tuning parameter:
//   block_size_x                threads per block along the output samples
//   block_size_y                threads per block along the DMs
//   block_size_z                1
//   tile_size_x                 output samples per thread
//   tile_size_y                 DMs per thread
//   tile_stride_x               0: a thread's samples are consecutive (x = tx*tile_size_x + i);
//                               1: strided by the block (x = tx + i*block_size_x: a warp's loads of
//                               one channel are consecutive bytes)
//   tile_stride_y               the same for the DMs
//   loop_unroll_factor_channel  0: the channel loop is unrolled as the compiler sees fit; N > 0:
//                               #pragma unroll N
// and the problem: nr_dms, nr_samples, nr_channels, max_shift, dm_step.
//
// output[dm][s] = sum_c input[c][s + shift(c, dm)], shift(c, dm) = (int)((dm * dm_step) * shifts[c])
// with the products rounded as written (__fmul_rn: no contraction), as the reference computes them.
// input is nr_channels x (nr_samples + max_shift) bytes; sums of 8-bit values over the channels are
// exact in float (nr_channels * 255 < 2^24), so every order of summation gives the same result.

#define nr_samples_per_channel (nr_samples + max_shift)
#define tile_width (block_size_x * tile_size_x)
#define tile_height (block_size_y * tile_size_y)

extern "C" __global__ void dedispersion_kernel(float* output, const unsigned char* __restrict__ input,
                                               const float* __restrict__ shifts)
{
    const int x0 = blockIdx.x * tile_width, y0 = blockIdx.y * tile_height;
    int xs[tile_size_x], dms[tile_size_y];
#pragma unroll
    for (int i = 0; i < tile_size_x; i++)
        xs[i] = x0 + (tile_stride_x ? threadIdx.x + i * block_size_x : threadIdx.x * tile_size_x + i);
#pragma unroll
    for (int j = 0; j < tile_size_y; j++)
        dms[j] = y0 + (tile_stride_y ? threadIdx.y + j * block_size_y : threadIdx.y * tile_size_y + j);

    float sum[tile_size_y][tile_size_x];
#pragma unroll
    for (int j = 0; j < tile_size_y; j++)
#pragma unroll
        for (int i = 0; i < tile_size_x; i++)
            sum[j][i] = 0.0f;

#if loop_unroll_factor_channel > 0
#pragma unroll loop_unroll_factor_channel
#endif
    for (int c = 0; c < nr_channels; c++) {
        const float delay = shifts[c];
        const unsigned char* row = input + (size_t)c * nr_samples_per_channel;
#pragma unroll
        for (int j = 0; j < tile_size_y; j++) {
            // DMs past the last one read a valid row at shift 0; they are not written.
            const int dm = dms[j] < nr_dms ? dms[j] : 0;
            const int shift = (int)__fmul_rn(__fmul_rn((float)dm, dm_step), delay);
#pragma unroll
            for (int i = 0; i < tile_size_x; i++)
                if (xs[i] < nr_samples)
                    sum[j][i] += (float)row[xs[i] + shift];
        }
    }

#pragma unroll
    for (int j = 0; j < tile_size_y; j++)
#pragma unroll
        for (int i = 0; i < tile_size_x; i++)
            if (dms[j] < nr_dms && xs[i] < nr_samples)
                output[(size_t)dms[j] * nr_samples + xs[i]] = sum[j][i];
}
