// CUDA driver helpers and the workloads: inputs, reference outputs and launch set-up per space.
// Part of measure_kt_spaces.cpp (one translation unit; see its head comment).
#pragma once

#include "spaces.hpp"

namespace kt {

// ---------------------------------------------------------------------------------------------
// CUDA driver helpers (used only by the measuring thread)

const char* cu_error_name(CUresult r)
{
    const char* name = nullptr;
    cuGetErrorName(r, &name);
    return name ? name : "unknown CUDA error";
}

void cu_check(CUresult r, const char* what)
{
    if (r != CUDA_SUCCESS)
        die(4, std::string(what) + ": " + cu_error_name(r));
}
#define CU(call) cu_check((call), #call)

// Launch-configuration errors leave the context usable: the configuration merely cannot run.
bool is_launch_config_error(CUresult r)
{
    return r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES || r == CUDA_ERROR_INVALID_VALUE;
}

struct DeviceBuffer {
    CUdeviceptr ptr = 0;
    size_t bytes = 0;
    void alloc(size_t n)
    {
        bytes = n;
        CU(cuMemAlloc(&ptr, n));
    }
    void upload(const void* src) { CU(cuMemcpyHtoD(ptr, src, bytes)); }
};

// The reference/compare module (kernels/reference.cu), compiled once.
struct ReferenceModule {
    CUmodule module = nullptr;
    CUfunction compare_float = nullptr, compare_int = nullptr;
    CUfunction get(const char* name)
    {
        CUfunction f;
        CU(cuModuleGetFunction(&f, module, name));
        return f;
    }
};

void launch_sync(CUfunction f, Dim3 grid, Dim3 block, void** args, const char* what)
{
    CUresult r = cuLaunchKernel(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0, nullptr, args, nullptr);
    if (r == CUDA_SUCCESS)
        r = cuCtxSynchronize();
    cu_check(r, what);
}

// ---------------------------------------------------------------------------------------------
// Workloads: the inputs of a space, its reference output, and per-module set-up.

struct Workload {
    virtual ~Workload() = default;
    // Allocates and uploads the inputs and computes the reference output (once).
    virtual void setup(ReferenceModule& ref) = 0;
    // Kernel arguments of the tuned kernel (pointers stay valid for the whole run).
    virtual void** args() = 0;
    // Copies constant-memory data into a freshly loaded module of the tuned kernel.
    virtual void prepare_module(CUmodule) {}
    DeviceBuffer output, reference;   // the tuned kernel's output and the reference output
    size_t elements = 0;              // number of output elements (float or int)
    bool int_output = false;          // compare exactly as int (pnpoly) or as float
    float tolerance = 0;              // relative tolerance of compare_float
};

void copy_to_global(CUmodule mod, const char* name, const void* src, size_t bytes)
{
    CUdeviceptr p;
    size_t size = 0;
    CU(cuModuleGetGlobal(&p, &size, mod, name));
    if (size != bytes)
        die(4, std::string("constant ") + name + " has an unexpected size");
    CU(cuMemcpyHtoD(p, src, bytes));
}

// Convolution: inputs and filter are small integers in float, so every summation order gives
// exactly the reference's result (|sums| <= 225*8*4 = 7200 < 2^24).
struct ConvolutionWorkload : Workload {
    static constexpr int fw = 15, fh = 15;
    const int in_w = kConvWidth + fw - 1, in_h = kConvHeight + fh - 1;
    DeviceBuffer input, filter_global;
    std::vector<float> h_input, h_filter;
    void* arg_ptrs[2];

    void setup(ReferenceModule& ref) override
    {
        Rng rng(20260101);
        h_input.resize(size_t(in_w) * in_h);
        for (auto& v : h_input)
            v = float(rng.integer(-8, 8));
        h_filter.resize(fw * fh);
        for (auto& v : h_filter)
            v = float(rng.integer(-4, 4));
        input.alloc(h_input.size() * 4);
        input.upload(h_input.data());
        filter_global.alloc(h_filter.size() * 4);
        filter_global.upload(h_filter.data());
        elements = size_t(kConvWidth) * kConvHeight;
        output.alloc(elements * 4);
        reference.alloc(elements * 4);
        tolerance = 1e-5f;

        int w = kConvWidth, h = kConvHeight, fwi = fw, fhi = fh;
        void* a[] = {&reference.ptr, &input.ptr, &filter_global.ptr, &w, &h, &fwi, &fhi};
        launch_sync(ref.get("convolution_reference"), Dim3{ceil_div(w, 32), ceil_div(h, 8), 1}, Dim3{32, 8, 1}, a,
                    "convolution reference");
        check_reference();
        arg_ptrs[0] = &output.ptr;
        arg_ptrs[1] = &input.ptr;
    }

    // Checks the GPU reference at sample points against a host computation.
    void check_reference()
    {
        std::vector<float> out(elements);
        CU(cuMemcpyDtoH(out.data(), reference.ptr, elements * 4));
        Rng rng(7);
        for (int s = 0; s < 4000; s++) {
            const int x = s < 4 ? (s & 1) * (kConvWidth - 1) : rng.integer(0, kConvWidth - 1);
            const int y = s < 4 ? (s >> 1) * (kConvHeight - 1) : rng.integer(0, kConvHeight - 1);
            double sum = 0;
            for (int i = 0; i < fh; i++)
                for (int j = 0; j < fw; j++)
                    sum += double(h_input[size_t(y + i) * in_w + x + j]) * h_filter[i * fw + j];
            if (double(out[size_t(y) * kConvWidth + x]) != sum)
                die(4, "convolution reference kernel disagrees with the host at (" + std::to_string(x) + ", " +
                           std::to_string(y) + ")");
        }
        std::vector<float>().swap(h_input);
    }

    void** args() override { return arg_ptrs; }
    void prepare_module(CUmodule mod) override { copy_to_global(mod, "d_filter", h_filter.data(), h_filter.size() * 4); }
};

// Point in polygon. The polygon is a star around the origin: vertex i at angle 2*pi*i/600 and a
// random radius in [0.45, 1); points are uniform in [-1.05, 1.05]^2. Points closer than 1e-3 to
// an edge, or with a y equal to a vertex's y, are redrawn, so that every formulation of the test
// (division, precomputed slope, cross product; four 'between' tests) decides every point the
// same way in float: their rounding errors are below 1e-6. The bitmap check is therefore exact.
struct PnpolyWorkload : Workload {
    static constexpr double kMinEdgeDistance = 1e-3;
    DeviceBuffer points, vertices_global;
    std::vector<float> h_vertices;   // x0, y0, x1, y1, ...
    std::vector<float> h_slopes;     // slope of edge k -> k+1
    std::vector<float> h_points;
    void* arg_ptrs[2];

    static double segment_distance(double px, double py, double ax, double ay, double bx, double by)
    {
        const double dx = bx - ax, dy = by - ay;
        double t = ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy);
        t = std::min(1.0, std::max(0.0, t));
        return std::hypot(px - (ax + t * dx), py - (ay + t * dy));
    }

    void make_polygon()
    {
        Rng rng(424242);
        h_vertices.resize(2 * kVertices);
        for (int i = 0; i < kVertices; i++) {
            const double theta = 2.0 * M_PI * i / kVertices;
            const double r = 0.45 + 0.55 * rng.uniform();
            h_vertices[2 * i] = float(r * std::cos(theta));
            h_vertices[2 * i + 1] = float(r * std::sin(theta));
        }
        // No horizontal edges (their dy would be 0): nudge a vertex's y by one ulp if needed.
        for (int k = 0; k < kVertices; k++) {
            const int j = (k + 1) % kVertices;
            if (h_vertices[2 * j + 1] == h_vertices[2 * k + 1])
                h_vertices[2 * j + 1] = std::nextafter(h_vertices[2 * j + 1], 2.0f);
        }
        h_slopes.resize(kVertices);
        for (int k = 0; k < kVertices; k++) {
            const int j = (k + 1) % kVertices;
            h_slopes[k] = (h_vertices[2 * j] - h_vertices[2 * k]) / (h_vertices[2 * j + 1] - h_vertices[2 * k + 1]);
        }
    }

    // Draws points chunk by chunk (each chunk has its own seed: the result does not depend on
    // the number of threads).
    void make_points()
    {
        std::vector<float> vy(kVertices);
        for (int i = 0; i < kVertices; i++)
            vy[i] = h_vertices[2 * i + 1];
        std::sort(vy.begin(), vy.end());
        h_points.resize(size_t(2) * kPoints);
        constexpr int kChunk = 1 << 20;
        const int chunks = (kPoints + kChunk - 1) / kChunk;
        std::atomic<int> next{0};
        auto work = [&]() {
            for (int ch; (ch = next.fetch_add(1)) < chunks;) {
                Rng rng(0x5eed0000ULL + ch);
                const int end = std::min(kPoints, (ch + 1) * kChunk);
                for (int i = ch * kChunk; i < end;) {
                    const float x = float(-1.05 + 2.1 * rng.uniform());
                    const float y = float(-1.05 + 2.1 * rng.uniform());
                    if (std::binary_search(vy.begin(), vy.end(), y))
                        continue;
                    if (near_edge(x, y))
                        continue;
                    h_points[2 * size_t(i)] = x;
                    h_points[2 * size_t(i) + 1] = y;
                    i++;
                }
            }
        };
        const unsigned n = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < n; t++)
            pool.emplace_back(work);
        for (auto& t : pool)
            t.join();
    }

    // Within kMinEdgeDistance of an edge? Every edge is at least 0.449 from the origin, so only
    // points beyond radius 0.4 can be that close, and for those the nearest edge point is less
    // than 0.003 rad away in angle: only the edges of the point's angular sector and its two
    // neighbours (each 2*pi/600 = 0.0105 rad wide) need checking.
    bool near_edge(double x, double y) const
    {
        if (std::hypot(x, y) <= 0.4)
            return false;
        double phi = std::atan2(y, x);
        if (phi < 0)
            phi += 2.0 * M_PI;
        const int sector = std::min(kVertices - 1, int(phi / (2.0 * M_PI / kVertices)));
        for (int d = -1; d <= 1; d++) {
            const int k = (sector + d + kVertices) % kVertices, j = (k + 1) % kVertices;
            if (segment_distance(x, y, h_vertices[2 * k], h_vertices[2 * k + 1], h_vertices[2 * j],
                                 h_vertices[2 * j + 1]) < kMinEdgeDistance)
                return true;
        }
        return false;
    }

    bool host_inside(double px, double py) const
    {
        bool c = false;
        for (int j = 0, k = kVertices - 1; j < kVertices; k = j++) {
            const double xj = h_vertices[2 * j], yj = h_vertices[2 * j + 1];
            const double xk = h_vertices[2 * k], yk = h_vertices[2 * k + 1];
            if ((yj > py) != (yk > py) && px < xj + (xk - xj) * (py - yj) / (yk - yj))
                c = !c;
        }
        return c;
    }

    void setup(ReferenceModule& ref) override
    {
        make_polygon();
        make_points();
        points.alloc(h_points.size() * 4);
        points.upload(h_points.data());
        vertices_global.alloc(h_vertices.size() * 4);
        vertices_global.upload(h_vertices.data());
        elements = kPoints;
        int_output = true;
        output.alloc(elements * 4);
        reference.alloc(elements * 4);

        int n = kPoints, nv = kVertices;
        void* a[] = {&reference.ptr, &points.ptr, &n, &vertices_global.ptr, &nv};
        launch_sync(ref.get("pnpoly_reference"), Dim3{ceil_div(n, 256), 1, 1}, Dim3{256, 1, 1}, a, "pnpoly reference");

        std::vector<int> out(elements);
        CU(cuMemcpyDtoH(out.data(), reference.ptr, elements * 4));
        Rng rng(11);
        for (int s = 0; s < 20000; s++) {
            const size_t i = rng.next() % kPoints;
            if (out[i] != int(host_inside(h_points[2 * i], h_points[2 * i + 1])))
                die(4, "pnpoly reference kernel disagrees with the host at point " + std::to_string(i));
        }
        size_t inside = 0;
        for (int v : out)
            inside += v == 1;
        std::fprintf(stderr, "pnpoly data: %d points, %d vertices, %.1f%% inside\n", kPoints, kVertices,
                     100.0 * inside / kPoints);
        std::vector<float>().swap(h_points);
        arg_ptrs[0] = &output.ptr;
        arg_ptrs[1] = &points.ptr;
    }

    void** args() override { return arg_ptrs; }
    void prepare_module(CUmodule mod) override
    {
        copy_to_global(mod, "d_vertices", h_vertices.data(), h_vertices.size() * 4);
        copy_to_global(mod, "d_slopes", h_slopes.data(), h_slopes.size() * 4);
    }
};

// GEMM: A and B hold small integers in float (|sums| <= k*16, 65536 at k = 4096, < 2^24: exact in any order).
struct GemmWorkload : Workload {
    DeviceBuffer a, b;
    std::vector<float> h_a, h_b;
    void* arg_ptrs[3];

    void setup(ReferenceModule& ref) override
    {
        const size_t n = size_t(kGemmSize) * kGemmSize;
        Rng rng(31337);
        h_a.resize(n);
        h_b.resize(n);
        for (auto& v : h_a)
            v = float(rng.integer(-4, 4));
        for (auto& v : h_b)
            v = float(rng.integer(-4, 4));
        a.alloc(n * 4);
        a.upload(h_a.data());
        b.alloc(n * 4);
        b.upload(h_b.data());
        elements = n;
        output.alloc(n * 4);
        reference.alloc(n * 4);
        tolerance = 1e-5f;

        int m = kGemmSize, nn = kGemmSize, k = kGemmSize;
        void* args[] = {&a.ptr, &b.ptr, &reference.ptr, &m, &nn, &k};
        launch_sync(ref.get("gemm_reference"), Dim3{ceil_div(m, 32), ceil_div(nn, 8), 1}, Dim3{32, 8, 1}, args,
                    "gemm reference");

        std::vector<float> out(n);
        CU(cuMemcpyDtoH(out.data(), reference.ptr, n * 4));
        Rng srng(5);
        for (int s = 0; s < 1000; s++) {
            const int mi = srng.integer(0, kGemmSize - 1), ni = srng.integer(0, kGemmSize - 1);
            double sum = 0;
            for (int kk = 0; kk < kGemmSize; kk++)
                sum += double(h_a[size_t(kk) * kGemmSize + mi]) * h_b[size_t(kk) * kGemmSize + ni];
            if (double(out[size_t(ni) * kGemmSize + mi]) != sum)
                die(4, "gemm reference kernel disagrees with the host at (" + std::to_string(mi) + ", " +
                           std::to_string(ni) + ")");
        }
        std::vector<float>().swap(h_a);
        std::vector<float>().swap(h_b);
        arg_ptrs[0] = &a.ptr;
        arg_ptrs[1] = &b.ptr;
        arg_ptrs[2] = &output.ptr;
    }

    void** args() override { return arg_ptrs; }
};

// Dedispersion: random 8-bit samples; every sum is exact in float, so the check is strict. The
// host recomputes sample outputs with the same float products as the kernels.
struct DedispersionWorkload : Workload {
    DeviceBuffer input, delays;
    std::vector<unsigned char> h_input;
    std::vector<float> h_delays;
    void* arg_ptrs[3];

    void setup(ReferenceModule& ref) override
    {
        const int row = kDedispSamples + dedispersion_max_shift();
        h_delays = dedispersion_delays();
        Rng rng(8675309);
        h_input.resize(size_t(kDedispChannels) * row);
        for (auto& v : h_input)
            v = static_cast<unsigned char>(rng.next() & 0xff);
        input.alloc(h_input.size());
        input.upload(h_input.data());
        delays.alloc(h_delays.size() * 4);
        delays.upload(h_delays.data());
        elements = size_t(kDedispDms) * kDedispSamples;
        output.alloc(elements * 4);
        reference.alloc(elements * 4);
        tolerance = 0.0f;

        int dms = kDedispDms, samples = kDedispSamples, channels = kDedispChannels, rl = row;
        float step = kDedispDmStep;
        void* a[] = {&reference.ptr, &input.ptr, &delays.ptr, &dms, &samples, &channels, &rl, &step};
        launch_sync(ref.get("dedispersion_reference"), Dim3{ceil_div(samples, 128), ceil_div(dms, 2), 1},
                    Dim3{128, 2, 1}, a, "dedispersion reference");

        std::vector<float> out(elements);
        CU(cuMemcpyDtoH(out.data(), reference.ptr, elements * 4));
        Rng srng(3);
        for (int k = 0; k < 4000; k++) {
            const int dm = k < 4 ? (k & 1) * (kDedispDms - 1) : srng.integer(0, kDedispDms - 1);
            const int s = k < 4 ? (k >> 1) * (kDedispSamples - 1) : srng.integer(0, kDedispSamples - 1);
            const volatile float dm_value = float(dm) * kDedispDmStep;   // rounded to float, as on the GPU
            double sum = 0;
            for (int c = 0; c < kDedispChannels; c++) {
                const volatile float delay = dm_value * h_delays[c];
                sum += h_input[size_t(c) * row + s + int(delay)];
            }
            if (double(out[size_t(dm) * kDedispSamples + s]) != sum)
                die(4, "dedispersion reference kernel disagrees with the host at DM " + std::to_string(dm) +
                           ", sample " + std::to_string(s));
        }
        std::vector<unsigned char>().swap(h_input);
        arg_ptrs[0] = &output.ptr;
        arg_ptrs[1] = &input.ptr;
        arg_ptrs[2] = &delays.ptr;
    }

    void** args() override { return arg_ptrs; }
};

// Hotspot: random temperatures in [300, 340) and powers in [0, 1). Every configuration performs
// the reference's float operations on every cell in the same order (explicitly rounded
// intrinsics), so the check is exact. The reference advances the grid one step per launch; the
// host recomputes sample cells from their (2S+1) x (2S+1) neighbourhood with the same float
// operations (std::fma is the correctly rounded fused multiply-add, as __fmaf_rn).
struct HotspotWorkload : Workload {
    static constexpr int S = kHotspotSteps;
    const int n = kHotspotSize;
    DeviceBuffer temp, power, scratch, sync;
    std::vector<float> h_temp, h_power;
    void* arg_ptrs[5];

    static float update(float t, float no, float s, float e, float w, float p)
    {
        float r = std::fma(kHotspotCp, p, t);
        r = std::fma(kHotspotCx, std::fma(-2.0f, t, e + w), r);
        r = std::fma(kHotspotCy, std::fma(-2.0f, t, no + s), r);
        return std::fma(kHotspotCz, kHotspotAmb - t, r);
    }

    // The temperature of cell (x, y) after S steps, from its neighbourhood only.
    float host_cell(int x, int y) const
    {
        constexpr int W = 2 * S + 1;
        std::vector<float> cur(W * W, 0.0f), nxt(W * W, 0.0f);
        auto in = [&](int gx, int gy) { return gx >= 0 && gx < n && gy >= 0 && gy < n; };
        for (int j = 0; j < W; j++)
            for (int i = 0; i < W; i++)
                if (in(x - S + i, y - S + j))
                    cur[j * W + i] = h_temp[size_t(y - S + j) * n + x - S + i];
        for (int s = 1; s <= S; s++) {
            for (int j = s; j < W - s; j++)
                for (int i = s; i < W - s; i++) {
                    const int gx = x - S + i, gy = y - S + j;
                    if (!in(gx, gy))
                        continue;
                    const float t = cur[j * W + i];
                    const float w = gx > 0 ? cur[j * W + i - 1] : t;
                    const float e = gx < n - 1 ? cur[j * W + i + 1] : t;
                    const float no = gy > 0 ? cur[(j - 1) * W + i] : t;
                    const float so = gy < n - 1 ? cur[(j + 1) * W + i] : t;
                    nxt[j * W + i] = update(t, no, so, e, w, h_power[size_t(gy) * n + gx]);
                }
            std::swap(cur, nxt);
        }
        return cur[S * W + S];
    }

    void setup(ReferenceModule& ref) override
    {
        const size_t cells = size_t(n) * n;
        Rng rng(1234567);
        h_temp.resize(cells);
        h_power.resize(cells);
        for (auto& v : h_temp)
            v = float(300.0 + 40.0 * rng.uniform());
        for (auto& v : h_power)
            v = float(rng.uniform());
        temp.alloc(cells * 4);
        temp.upload(h_temp.data());
        power.alloc(cells * 4);
        power.upload(h_power.data());
        scratch.alloc(2 * cells * 4);
        sync.alloc((4 + cells) * 4);   // counters and one progress word per tile (at most one tile per cell)
        CU(cuMemsetD32(sync.ptr, 0, 4 + cells));
        elements = cells;
        output.alloc(cells * 4);
        reference.alloc(cells * 4);
        tolerance = 0.0f;

        // S single steps, alternating between the reference buffer and the first half of scratch,
        // the last one into the reference buffer.
        int nn = n;
        float cx = kHotspotCx, cy = kHotspotCy, cz = kHotspotCz, cp = kHotspotCp, amb = kHotspotAmb;
        CUdeviceptr in = temp.ptr;
        for (int s = 1; s <= S; s++) {
            CUdeviceptr out = (S - s) % 2 == 0 ? reference.ptr : scratch.ptr;
            void* a[] = {&out, &in, &power.ptr, &nn, &cx, &cy, &cz, &cp, &amb};
            launch_sync(ref.get("hotspot_reference_step"), Dim3{ceil_div(n, 32), ceil_div(n, 8), 1}, Dim3{32, 8, 1}, a,
                        "hotspot reference");
            in = out;
        }

        std::vector<float> out(cells);
        CU(cuMemcpyDtoH(out.data(), reference.ptr, cells * 4));
        Rng srng(17);
        for (int k = 0; k < 4000; k++) {
            const int x = k < 4 ? (k & 1) * (n - 1) : srng.integer(0, n - 1);
            const int y = k < 4 ? (k >> 1) * (n - 1) : srng.integer(0, n - 1);
            const float h = host_cell(x, y);
            if (out[size_t(y) * n + x] != h)
                die(4, "hotspot reference kernel disagrees with the host at (" + std::to_string(x) + ", " +
                           std::to_string(y) + ")");
        }
        double mean = 0, change = 0;
        for (size_t i = 0; i < cells; i++) {
            mean += out[i];
            change += std::fabs(double(out[i]) - h_temp[i]);
        }
        std::fprintf(stderr, "hotspot data: %d x %d cells, %d steps per launch, mean %.3f, mean change %.3f\n", n, n, S,
                     mean / cells, change / cells);
        std::vector<float>().swap(h_temp);
        std::vector<float>().swap(h_power);
        arg_ptrs[0] = &output.ptr;
        arg_ptrs[1] = &temp.ptr;
        arg_ptrs[2] = &power.ptr;
        arg_ptrs[3] = &scratch.ptr;
        arg_ptrs[4] = &sync.ptr;
    }

    void** args() override { return arg_ptrs; }
    // A fresh ticket counter, generation and progress words for every configuration.
    void prepare_module(CUmodule) override
    {
        CU(cuMemsetD32(sync.ptr, 0, sync.bytes / 4));
        CU(cuCtxSynchronize());   // the memset runs on the legacy stream, the launches on another
    }
};

// Expdist: points uniform in a disc of radius 0.5, the scales v = 2 sigma^2 growing with the
// point's index from 2 to 4, so every term lies in [0.78, 1] and each point contributes about
// 1/N of the sum: leaving out any point (or any tile of points) moves the sum by far more than
// the tolerance. Every configuration sums the same float terms (explicitly rounded intrinsics);
// only the order differs: float sums of at most 64 terms per thread and tile, then double. The
// relative error of such a float sum is below 63 * 2^-24 = 3.8e-6 of its terms' sum, so the
// check allows 5e-6 relative. The reference sums every row in double; the host recomputes
// sample rows in double with exp (the GPU's __expf and __fdividef differ from it by a few ulp).
struct ExpdistWorkload : Workload {
    const int n = kExpdistPoints;
    DeviceBuffer a, b, slots, sync, rows;
    std::vector<float> h_a, h_b;   // x, y, v, 0 per point
    void* arg_ptrs[5];

    static void make_points(std::vector<float>& p, int count, uint64_t seed)
    {
        Rng rng(seed);
        p.assign(size_t(4) * count, 0.0f);
        for (int i = 0; i < count; i++) {
            double x, y;
            do {
                x = rng.uniform() - 0.5;
                y = rng.uniform() - 0.5;
            } while (x * x + y * y > 0.25);
            p[4 * size_t(i)] = float(x);
            p[4 * size_t(i) + 1] = float(y);
            p[4 * size_t(i) + 2] = float(2.0 + 2.0 * i / count);
        }
    }

    void setup(ReferenceModule& ref) override
    {
        make_points(h_a, n, 99991);
        make_points(h_b, n, 77773);
        a.alloc(h_a.size() * 4);
        a.upload(h_a.data());
        b.alloc(h_b.size() * 4);
        b.upload(h_b.data());
        slots.alloc(size_t(kExpdistSlots) * 8);
        CU(cuMemsetD32(slots.ptr, 0, slots.bytes / 4));
        sync.alloc(16);
        CU(cuMemsetD32(sync.ptr, 0, 4));
        rows.alloc(size_t(n) * 8);
        elements = 1;
        output.alloc(4);
        reference.alloc(4);
        tolerance = 5e-6f;

        int m = n, nb = n;
        void* ra[] = {&rows.ptr, &a.ptr, &b.ptr, &m, &nb};
        launch_sync(ref.get("expdist_reference_rows"), Dim3{ceil_div(m, 128), 1, 1}, Dim3{128, 1, 1}, ra,
                    "expdist reference rows");
        void* ta[] = {&reference.ptr, &rows.ptr, &m};
        launch_sync(ref.get("expdist_reference_total"), Dim3{1, 1, 1}, Dim3{256, 1, 1}, ta, "expdist reference total");

        std::vector<double> h_rows(n);
        CU(cuMemcpyDtoH(h_rows.data(), rows.ptr, size_t(n) * 8));
        float total = 0;
        CU(cuMemcpyDtoH(&total, reference.ptr, 4));
        Rng srng(23);
        for (int k = 0; k < 64; k++) {
            const int i = k < 2 ? k * (n - 1) : srng.integer(0, n - 1);
            double sum = 0;
            for (int j = 0; j < n; j++) {
                const double dx = double(h_a[4 * size_t(i)]) - h_b[4 * size_t(j)];
                const double dy = double(h_a[4 * size_t(i) + 1]) - h_b[4 * size_t(j) + 1];
                sum += std::exp(-(dx * dx + dy * dy) / (double(h_a[4 * size_t(i) + 2]) + h_b[4 * size_t(j) + 2]));
            }
            if (!(std::fabs(h_rows[i] - sum) <= 1e-5 * sum))
                die(4, "expdist reference kernel disagrees with the host at row " + std::to_string(i));
        }
        double host_total = 0, smallest = h_rows[0];
        for (double r : h_rows) {
            host_total += r;
            smallest = std::min(smallest, r);
        }
        if (!(std::fabs(double(total) - host_total) <= 1e-6 * host_total))
            die(4, "expdist reference total disagrees with the sum of its rows");
        std::fprintf(stderr, "expdist data: %d x %d points, sum %.9g, smallest row %.6g of the sum\n", n, n,
                     double(total), smallest / host_total);
        std::vector<float>().swap(h_a);
        std::vector<float>().swap(h_b);
        arg_ptrs[0] = &output.ptr;
        arg_ptrs[1] = &a.ptr;
        arg_ptrs[2] = &b.ptr;
        arg_ptrs[3] = &slots.ptr;
        arg_ptrs[4] = &sync.ptr;
    }

    void** args() override { return arg_ptrs; }
    // Cleared partial sums and ticket counter for every configuration.
    void prepare_module(CUmodule) override
    {
        CU(cuMemsetD32(slots.ptr, 0, slots.bytes / 4));
        CU(cuMemsetD32(sync.ptr, 0, 4));
        CU(cuCtxSynchronize());   // the memsets run on the legacy stream, the launches on another
    }
};


}  // namespace kt
