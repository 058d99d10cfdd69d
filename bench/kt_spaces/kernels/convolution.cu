// 2-D convolution (correlation form) of a float image with a filter_width x filter_height filter.
// Our own implementation of the parameter semantics of Kernel Tuner's convolution example.
//
// The host prepends one "#define NAME VALUE" line per tuning parameter:
//   filter_width, filter_height   filter size (15 x 15)
//   block_size_x, block_size_y    thread block dimensions
//   tile_size_x, tile_size_y      outputs per thread in x and y; a block computes
//                                 (block_size_x*tile_size_x) x (block_size_y*tile_size_y) outputs
//   use_padding                   1: pad each shared-memory row by one float when block_size_x is a
//                                 multiple of 32 (bank-conflict padding)
//   read_only                     1: read the input through the read-only data cache (__ldg on a
//                                 const __restrict__ pointer)
// and the problem size: image_width, image_height (output size).
//
// output[y][x] = sum_{i<filter_height, j<filter_width} input[y+i][x+j] * filter[i][j]
// input is (image_height+filter_height-1) x (image_width+filter_width-1), row-major.
//
// A thread's outputs are strided by the block size (x = tx + xi*block_size_x), so that a warp's
// shared-memory reads are consecutive words. The shared tile is static: tiles over 48 KiB fail
// to compile (ptxas "too much shared data"), which the tool records as CompilationFailedConfig.

#define input_width (image_width + filter_width - 1)
#define input_height (image_height + filter_height - 1)
#define tile_width (block_size_x * tile_size_x)
#define tile_height (block_size_y * tile_size_y)
#define sh_cols (tile_width + filter_width - 1)
#define sh_rows (tile_height + filter_height - 1)
#if use_padding == 1 && (block_size_x % 32) == 0
#define sh_pitch (sh_cols + 1)
#else
#define sh_pitch sh_cols
#endif

__constant__ float d_filter[filter_height * filter_width];

#if read_only == 1
typedef const float* __restrict__ input_ptr;
#define LOAD_INPUT(ptr) __ldg(ptr)
#else
typedef const float* input_ptr;
#define LOAD_INPUT(ptr) (*(ptr))
#endif

extern "C" __global__ void convolution_kernel(float* output, input_ptr input)
{
    __shared__ float sh_input[sh_rows][sh_pitch];

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int x0 = blockIdx.x * tile_width;    // first output column of this block
    const int y0 = blockIdx.y * tile_height;   // first output row of this block

    // Cooperative load of the block's input tile plus halo; zero outside the input image
    // (only edge blocks whose tile overhangs the image read there, and those outputs are not
    // written).
    for (int i = ty; i < sh_rows; i += block_size_y) {
        const int gy = y0 + i;
        for (int j = tx; j < sh_cols; j += block_size_x) {
            const int gx = x0 + j;
            float v = 0.0f;
            if (gy < input_height && gx < input_width)
                v = LOAD_INPUT(input + (size_t)gy * input_width + gx);
            sh_input[i][j] = v;
        }
    }
    __syncthreads();

    float sum[tile_size_y][tile_size_x];
#pragma unroll
    for (int yi = 0; yi < tile_size_y; yi++)
#pragma unroll
        for (int xi = 0; xi < tile_size_x; xi++)
            sum[yi][xi] = 0.0f;

    // Filter rows are not unrolled (keeps code size and NVRTC time bounded); the filter columns
    // and the per-thread tile are, so that sum[][] stays in registers.
#pragma unroll 1
    for (int fi = 0; fi < filter_height; fi++) {
#pragma unroll
        for (int fj = 0; fj < filter_width; fj++) {
            const float f = d_filter[fi * filter_width + fj];
#pragma unroll
            for (int yi = 0; yi < tile_size_y; yi++)
#pragma unroll
                for (int xi = 0; xi < tile_size_x; xi++)
                    sum[yi][xi] += sh_input[ty + yi * block_size_y + fi][tx + xi * block_size_x + fj] * f;
        }
    }

#pragma unroll
    for (int yi = 0; yi < tile_size_y; yi++) {
        const int y = y0 + ty + yi * block_size_y;
#pragma unroll
        for (int xi = 0; xi < tile_size_x; xi++) {
            const int x = x0 + tx + xi * block_size_x;
            if (y < image_height && x < image_width)
                output[(size_t)y * image_width + x] = sum[yi][xi];
        }
    }
}
