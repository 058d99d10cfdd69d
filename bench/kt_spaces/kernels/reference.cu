// Naive reference kernels (one thread per output, no tuning parameters) whose results every
// tuned configuration is checked against, and the comparison kernels that do the check on the
// GPU. Sizes are kernel arguments, so this file is compiled once per run.

// output[y][x] = sum_{i,j} input[y+i][x+j] * filter[i][j]; input is (height+fh-1) x (width+fw-1).
extern "C" __global__ void convolution_reference(float* output, const float* input, const float* filter,
                                                 int width, int height, int fw, int fh)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height)
        return;
    const int in_w = width + fw - 1;
    float sum = 0.0f;
    for (int i = 0; i < fh; i++)
        for (int j = 0; j < fw; j++)
            sum += input[(size_t)(y + i) * in_w + x + j] * filter[i * fw + j];
    output[(size_t)y * width + x] = sum;
}

// Crossing-number test in double precision, textbook form.
extern "C" __global__ void pnpoly_reference(int* bitmap, const float2* points, int n, const float2* vertices,
                                            int nv)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const double px = points[i].x, py = points[i].y;
    int c = 0;
    for (int j = 0, k = nv - 1; j < nv; k = j++) {
        const double xj = vertices[j].x, yj = vertices[j].y, xk = vertices[k].x, yk = vertices[k].y;
        if ((yj > py) != (yk > py) && px < xj + (xk - xj) * (py - yj) / (yk - yj))
            c = !c;
    }
    bitmap[i] = c;
}

// C[n][m] = sum_k A[k][m] * B[k][n] (layouts as in gemm.cu).
extern "C" __global__ void gemm_reference(const float* A, const float* B, float* C, int m_size, int n_size,
                                          int k_size)
{
    const int m = blockIdx.x * blockDim.x + threadIdx.x;
    const int n = blockIdx.y * blockDim.y + threadIdx.y;
    if (m >= m_size || n >= n_size)
        return;
    float sum = 0.0f;
    for (int k = 0; k < k_size; k++)
        sum += A[(size_t)k * m_size + m] * B[(size_t)k * n_size + n];
    C[(size_t)n * m_size + m] = sum;
}

// output[dm][s] = sum_c input[c][s + (int)((dm * dm_step) * delays[c])], one thread per output.
extern "C" __global__ void dedispersion_reference(float* output, const unsigned char* input, const float* delays,
                                                  int nr_dms, int nr_samples, int nr_channels, int row_length,
                                                  float dm_step)
{
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    const int dm = blockIdx.y * blockDim.y + threadIdx.y;
    if (s >= nr_samples || dm >= nr_dms)
        return;
    float sum = 0.0f;
    for (int c = 0; c < nr_channels; c++)
        sum += (float)input[(size_t)c * row_length + s + (int)__fmul_rn(__fmul_rn((float)dm, dm_step), delays[c])];
    output[(size_t)dm * nr_samples + s] = sum;
}

// One time step of the hotspot update, one thread per cell; the operations are those of
// hotspot.cu (a neighbour outside the grid counts as the cell itself).
extern "C" __global__ void hotspot_reference_step(float* out, const float* in, const float* power, int n, float cx,
                                                  float cy, float cz, float cp, float amb)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= n || y >= n)
        return;
    const size_t c = (size_t)y * n + x;
    const float t = in[c];
    const float w = x > 0 ? in[c - 1] : t;
    const float e = x < n - 1 ? in[c + 1] : t;
    const float no = y > 0 ? in[c - n] : t;
    const float s = y < n - 1 ? in[c + n] : t;
    float r = __fmaf_rn(cp, power[c], t);
    r = __fmaf_rn(cx, __fmaf_rn(-2.0f, t, __fadd_rn(e, w)), r);
    r = __fmaf_rn(cy, __fmaf_rn(-2.0f, t, __fadd_rn(no, s)), r);
    out[c] = __fmaf_rn(cz, __fsub_rn(amb, t), r);
}

// expdist: rows[i] = sum_j exp(-|a_i - b_j|^2 / (va_i + vb_j)), each term in float exactly as in
// expdist.cu, summed in double; one thread per point of A.
extern "C" __global__ void expdist_reference_rows(double* rows, const float4* A, const float4* B, int m, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m)
        return;
    const float4 a = A[i];
    double sum = 0.0;
    for (int j = 0; j < n; j++) {
        const float4 b = B[j];
        const float dx = __fsub_rn(a.x, b.x);
        const float dy = __fsub_rn(a.y, b.y);
        const float d2 = __fmaf_rn(dy, dy, __fmul_rn(dx, dx));
        sum += (double)__expf(-__fdividef(d2, __fadd_rn(a.z, b.z)));
    }
    rows[i] = sum;
}

// result[0] = sum of rows[0..m) in double, rounded to float; one block of 256 threads.
extern "C" __global__ void expdist_reference_total(float* result, const double* rows, int m)
{
    __shared__ double part[256];
    double sum = 0.0;
    for (int i = threadIdx.x; i < m; i += 256)
        sum += rows[i];
    part[threadIdx.x] = sum;
    __syncthreads();
    for (int h = 128; h > 0; h >>= 1) {
        if (threadIdx.x < h)
            part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        result[0] = (float)part[0];
}

// result[0] += number of elements with |out-ref| / max(1, |ref|) > tolerance (NaN counts),
// result[1] = max of that error as float bits (non-negative floats order like their bits).
extern "C" __global__ void compare_float(const float* out, const float* ref, long long n, float tolerance,
                                         unsigned int* result)
{
    unsigned int bad = 0;
    float worst = 0.0f;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        float err = fabsf(out[i] - ref[i]) / fmaxf(1.0f, fabsf(ref[i]));
        if (!(err <= tolerance)) {   // also true for NaN
            bad++;
            if (err != err)
                err = __int_as_float(0x7f800000);   // NaN -> +inf
        }
        worst = fmaxf(worst, err);
    }
    if (bad)
        atomicAdd(&result[0], bad);
    atomicMax(&result[1], __float_as_uint(worst));
}

// Exact comparison of int arrays; result[1] gets the float bits of 1.0 when anything differs.
extern "C" __global__ void compare_int(const int* out, const int* ref, long long n, float /*tolerance*/,
                                       unsigned int* result)
{
    unsigned int bad = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        bad += out[i] != ref[i];
    if (bad) {
        atomicAdd(&result[0], bad);
        atomicMax(&result[1], __float_as_uint(1.0f));
    }
}
