// measure_kt_spaces: measures three published Kernel Tuner parameter spaces (convolution, pnpoly,
// gemm) on the local NVIDIA GPU and writes each as a Kernel Tuner cache file (schema 1.0.0).
//
//   measure_kt_spaces SPACE OUT.json [--kernels DIR] [--limit N] [--stride K]
//                     [--deadline UNIX_SECONDS] [--threads T]
//   measure_kt_spaces SPACE --compile-only [--arch XY] [--kernels DIR] [--limit N] [--stride K]
//                     [--threads T]
//
// The parameter lists, their order and the restrictions are exactly those of
// tools/synthetic_kt_cache.py (gemm_space, convolution_space, pnpoly_space); only the times are
// measured instead of modelled. The kernels (kernels/*.cu) are our own implementations of the
// published parameter semantics.
//
// How it works:
//  * every valid configuration becomes one source text: "#define NAME VALUE" per parameter, the
//    problem-size defines, then the kernel file; NVRTC compiles it to a CUBIN for the device's own
//    architecture. T compiles run in parallel, each in a worker process (this binary re-executed
//    with --compile-worker) driven by one feeder thread: NVRTC is thread-safe but serialises most
//    of a compilation inside one process, so threads alone do not scale. The CUBINs are queued.
//  * the main thread alone owns the CUDA context and measures the queued configurations one at a
//    time, as Kernel Tuner does: load the module, one warm-up launch, 7 launches each bracketed
//    by events and synchronised; "time" is the mean of the 7. Never two kernels at once.
//  * every configuration's output is checked on the GPU against a naive reference kernel's output
//    (kernels/reference.cu). Inputs are deterministic pseudo-random small integers stored as
//    float, so all summation orders give exactly the same float result and the check can be
//    strict; pnpoly's data are built so that every formulation gives the same bitmap.
//
// Exit status: 0 all fine; 2 usage or set-up error; 3 the cache was written but some
// configurations show a bug in our kernels (wrong results or an unexpected compile error);
// 4 a fatal CUDA error (e.g. illegal address: a kernel bug), nothing written.

#include <cuda.h>
#include <nvrtc.h>

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

using ordered_json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

namespace {

// ---------------------------------------------------------------------------------------------
// Small utilities

double ms_since(Clock::time_point t0)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double unix_now()
{
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Kernel Tuner's timestamp format: str(datetime.now(timezone.utc)).
std::string utc_timestamp()
{
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    const long us = static_cast<long>(
        std::chrono::duration_cast<std::chrono::microseconds>(now.time_since_epoch()).count() % 1000000);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    char out[96];
    std::snprintf(out, sizeof out, "%s.%06ld+00:00", buf, us);
    return out;
}

// Exits at once (no destructors: compile feeder threads may still be running; the worker
// processes see their pipes close and exit too).
[[noreturn]] void quit(int status)
{
    std::fflush(nullptr);
    std::_Exit(status);
}

[[noreturn]] void die(int status, const std::string& msg)
{
    std::fprintf(stderr, "measure_kt_spaces: %s\n", msg.c_str());
    quit(status);
}

std::string read_file(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    if (!f)
        die(2, "cannot read " + path);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// Deterministic pseudo-random numbers (splitmix64): the same data on every machine and library.
struct Rng {
    uint64_t state;
    explicit Rng(uint64_t seed) : state(seed) {}
    uint64_t next()
    {
        uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    double uniform() { return (next() >> 11) * (1.0 / 9007199254740992.0); }   // [0, 1)
    int integer(int lo, int hi) { return lo + static_cast<int>(next() % uint64_t(hi - lo + 1)); }
};

// ---------------------------------------------------------------------------------------------
// Parameter spaces (mirror tools/synthetic_kt_cache.py exactly: names, value lists, key order,
// restrictions; enumeration in itertools.product order, the last key varying fastest).

struct Param {
    std::string name;
    std::vector<int> values;
};

struct Config {
    const std::vector<Param>* params = nullptr;
    std::vector<int> values;   // one per param, in key order
    size_t id = 0;             // position among all valid configurations of the space
    int operator()(const char* name) const
    {
        for (size_t i = 0; i < params->size(); i++)
            if ((*params)[i].name == name)
                return values[i];
        die(2, std::string("internal: no parameter ") + name);
    }
    std::string key() const   // Kernel Tuner's cache key: ",".join(str(v) for v in values)
    {
        std::string k;
        for (size_t i = 0; i < values.size(); i++)
            k += (i ? "," : "") + std::to_string(values[i]);
        return k;
    }
    std::string describe() const
    {
        std::string s;
        for (size_t i = 0; i < values.size(); i++)
            s += (i ? " " : "") + (*params)[i].name + "=" + std::to_string(values[i]);
        return s;
    }
};

struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
};

struct Space {
    std::string name;
    std::vector<long long> problem_size;
    std::vector<Param> params;
    std::function<bool(const Config&)> valid;
    std::string kernel_file;                       // in the kernels directory
    std::string kernel_name;                       // extern "C" entry point
    std::string problem_defines;                   // appended after the parameter defines
    std::function<Dim3(const Config&)> block, grid;
};

constexpr int kConvWidth = 4096, kConvHeight = 4096;
constexpr int kPoints = 20000000, kVertices = 600;
constexpr int kGemmSize = 2048;   // m = n = k

std::vector<int> range_values(int first, int last, int step)
{
    std::vector<int> v;
    for (int i = first; i <= last; i += step)
        v.push_back(i);
    return v;
}

unsigned ceil_div(long long a, long long b) { return static_cast<unsigned>((a + b - 1) / b); }

Space gemm_space()
{
    Space s;
    s.name = "gemm";
    s.problem_size = {kGemmSize, kGemmSize};
    s.params = {{"MWG", {16, 32, 64, 128}}, {"NWG", {16, 32, 64, 128}}, {"KWG", {32}},
                {"MDIMC", {8, 16, 32}},     {"NDIMC", {8, 16, 32}},     {"MDIMA", {8, 16, 32}},
                {"NDIMB", {8, 16, 32}},     {"KWI", {2}},               {"VWM", {1, 2, 4, 8}},
                {"VWN", {1, 2, 4, 8}},      {"STRM", {0}},              {"STRN", {0}},
                {"SA", {0, 1}},             {"SB", {0, 1}},             {"PRECISION", {32}}};
    s.valid = [](const Config& c) {
        return c("KWG") % c("KWI") == 0 && c("MWG") % (c("MDIMC") * c("VWM")) == 0 &&
               c("NWG") % (c("NDIMC") * c("VWN")) == 0 && c("MWG") % (c("MDIMA") * c("VWM")) == 0 &&
               c("NWG") % (c("NDIMB") * c("VWN")) == 0 &&
               c("KWG") % ((c("MDIMC") * c("NDIMC")) / c("MDIMA")) == 0 &&
               c("KWG") % ((c("MDIMC") * c("NDIMC")) / c("NDIMB")) == 0;
    };
    s.kernel_file = "gemm.cu";
    s.kernel_name = "gemm_kernel";
    s.problem_defines = "#define gemm_m " + std::to_string(kGemmSize) + "\n#define gemm_n " +
                        std::to_string(kGemmSize) + "\n#define gemm_k " + std::to_string(kGemmSize) + "\n";
    s.block = [](const Config& c) { return Dim3{unsigned(c("MDIMC")), unsigned(c("NDIMC")), 1}; };
    s.grid = [](const Config& c) {
        return Dim3{unsigned(kGemmSize / c("MWG")), unsigned(kGemmSize / c("NWG")), 1};
    };
    return s;
}

Space convolution_space()
{
    Space s;
    s.name = "convolution";
    s.problem_size = {kConvWidth, kConvHeight};
    s.params = {{"filter_width", {15}},
                {"filter_height", {15}},
                {"block_size_x", {1, 2, 4, 8, 16, 32, 48, 64, 80, 96, 112, 128}},
                {"block_size_y", {1, 2, 4, 8, 16, 32}},
                {"tile_size_x", range_values(1, 8, 1)},
                {"tile_size_y", range_values(1, 8, 1)},
                {"use_padding", {0, 1}},
                {"read_only", {0, 1}}};
    s.valid = [](const Config& c) {
        const int threads = c("block_size_x") * c("block_size_y");
        return threads >= 64 && c("tile_size_x") * c("tile_size_y") < 30 && threads <= 1024;
    };
    s.kernel_file = "convolution.cu";
    s.kernel_name = "convolution_kernel";
    s.problem_defines = "#define image_width " + std::to_string(kConvWidth) + "\n#define image_height " +
                        std::to_string(kConvHeight) + "\n";
    s.block = [](const Config& c) { return Dim3{unsigned(c("block_size_x")), unsigned(c("block_size_y")), 1}; };
    s.grid = [](const Config& c) {
        return Dim3{ceil_div(kConvWidth, c("block_size_x") * c("tile_size_x")),
                    ceil_div(kConvHeight, c("block_size_y") * c("tile_size_y")), 1};
    };
    return s;
}

Space pnpoly_space()
{
    Space s;
    s.name = "pnpoly";
    s.problem_size = {kPoints, 1};
    std::vector<int> tiles = {1};
    for (int i = 1; i <= 10; i++)
        tiles.push_back(2 * i);
    s.params = {{"block_size_x", range_values(32, 32 * 31, 32)},
                {"tile_size", tiles},
                {"between_method", {0, 1, 2, 3}},
                {"use_precomputed_slopes", {0, 1}},
                {"use_method", {0, 1}}};
    s.valid = [](const Config&) { return true; };
    s.kernel_file = "pnpoly.cu";
    s.kernel_name = "pnpoly_kernel";
    s.problem_defines = "#define num_points " + std::to_string(kPoints) + "\n#define num_vertices " +
                        std::to_string(kVertices) + "\n";
    s.block = [](const Config& c) { return Dim3{unsigned(c("block_size_x")), 1, 1}; };
    s.grid = [](const Config& c) { return Dim3{ceil_div(kPoints, (long long)c("block_size_x") * c("tile_size")), 1, 1}; };
    return s;
}

// All valid configurations in itertools.product order.
std::vector<Config> enumerate(const Space& s)
{
    std::vector<Config> out;
    std::vector<size_t> idx(s.params.size(), 0);
    while (true) {
        Config c;
        c.params = &s.params;
        for (size_t i = 0; i < idx.size(); i++)
            c.values.push_back(s.params[i].values[idx[i]]);
        if (s.valid(c)) {
            c.id = out.size();
            out.push_back(std::move(c));
        }
        size_t d = idx.size();
        while (d > 0) {   // odometer: last key fastest
            --d;
            if (++idx[d] < s.params[d].values.size())
                break;
            idx[d] = 0;
            if (d == 0)
                return out;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// NVRTC compilation

struct CompileResult {
    bool ok = false;
    std::string cubin;     // binary image when ok
    std::string log;       // NVRTC log when not ok
    double ms = 0;         // wall time of create + compile + get CUBIN
};

CompileResult nvrtc_compile(const std::string& source, const std::string& file_name, int arch)
{
    CompileResult r;
    const auto t0 = Clock::now();
    nvrtcProgram prog;
    if (nvrtcCreateProgram(&prog, source.c_str(), file_name.c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS) {
        r.log = "nvrtcCreateProgram failed";
        r.ms = ms_since(t0);
        return r;
    }
    const std::string arch_opt = "--gpu-architecture=sm_" + std::to_string(arch);
    // -minimal leaves out declarations the kernels do not use (texture/surface functions, the
    // device runtime, CUDA runtime types): a faster front end, the same code.
    const char* opts[] = {arch_opt.c_str(), "-default-device", "--std=c++17", "-minimal"};
    const nvrtcResult res = nvrtcCompileProgram(prog, 4, opts);
    if (res == NVRTC_SUCCESS) {
        size_t size = 0;
        nvrtcGetCUBINSize(prog, &size);
        r.cubin.resize(size);
        if (size > 0 && nvrtcGetCUBIN(prog, &r.cubin[0]) == NVRTC_SUCCESS)
            r.ok = true;
        else
            r.log = "nvrtcGetCUBIN failed";
    } else {
        size_t size = 0;
        nvrtcGetProgramLogSize(prog, &size);
        std::string log(size, '\0');
        if (size > 0)
            nvrtcGetProgramLog(prog, &log[0]);
        r.log = std::string(nvrtcGetErrorString(res)) + ": " + log.c_str();
    }
    nvrtcDestroyProgram(&prog);
    r.ms = ms_since(t0);
    return r;
}

std::string config_source(const Config& c, const Space& s, const std::string& kernel_text)
{
    std::string src;
    for (size_t i = 0; i < c.values.size(); i++)
        src += "#define " + (*c.params)[i].name + " " + std::to_string(c.values[i]) + "\n";
    src += s.problem_defines;
    src += "#line 1 \"" + s.kernel_file + "\"\n";
    src += kernel_text;
    return src;
}

// Compile failures by cause: static shared memory over 48 KiB is expected for big convolution
// tiles; anything else is a bug in our kernels.
bool expected_compile_failure(const std::string& log) { return log.find("too much shared data") != std::string::npos; }

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
    static constexpr int in_w = kConvWidth + fw - 1, in_h = kConvHeight + fh - 1;
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

// GEMM: A and B hold small integers in float (|sums| <= 2048*16 = 32768 < 2^24: exact in any order).
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

// ---------------------------------------------------------------------------------------------
// Measuring one configuration (main thread, owns the context)

struct Measurement {
    enum Kind { Ok, RuntimeFailed, VerificationFailed } kind = Ok;
    std::vector<double> times;   // ms, the 7 timed launches
    double benchmark_ms = 0, verification_ms = 0, framework_ms = 0;
    float max_error = 0;
    unsigned mismatches = 0;
    std::string why;             // for RuntimeFailed
};

// Times kernels like Kernel Tuner (event, launch, event, synchronise; once per run), with one
// safeguard: the compile processes keep every core busy, so the measuring thread can be
// preempted between recording the start event and launching. On an idle stream the start event
// would then time that host delay too. Each timed launch is therefore enqueued behind a "gate"
// (cuStreamWaitValue32 on a host-mapped word) that the host opens only after the start event,
// the launch and the stop event are all enqueued: the events time the kernel alone.
class Measurer {
public:
    Measurer(const Space& s, Workload& w, ReferenceModule& ref, int max_shared)
        : space_(s), work_(w), ref_(ref), max_shared_(max_shared)
    {
        CU(cuStreamCreate(&stream_, CU_STREAM_NON_BLOCKING));
        CU(cuEventCreate(&start_, CU_EVENT_BLOCKING_SYNC));
        CU(cuEventCreate(&stop_, CU_EVENT_BLOCKING_SYNC));
        CU(cuMemAlloc(&result_, 8));
        void* gate = nullptr;
        CU(cuMemHostAlloc(&gate, sizeof(uint32_t), CU_MEMHOSTALLOC_DEVICEMAP));
        gate_host_ = static_cast<volatile uint32_t*>(gate);
        *gate_host_ = 0;
        CU(cuMemHostGetDevicePointer(&gate_dev_, gate, 0));
        // Stream memory operations are supported on current drivers; if not, time without gate.
        const CUresult r = cuStreamWaitValue32(stream_, gate_dev_, 0, CU_STREAM_WAIT_VALUE_GEQ);
        use_gate_ = r == CUDA_SUCCESS;
        CU(cuStreamSynchronize(stream_));
        if (!use_gate_)
            std::fprintf(stderr, "warning: cuStreamWaitValue32 unavailable (%s): timing without the launch gate\n",
                         cu_error_name(r));
    }

    Measurement measure(const Config& c, const std::string& cubin)
    {
        Measurement m;
        const auto t0 = Clock::now();
        CUmodule mod;
        CUresult r = cuModuleLoadData(&mod, cubin.data());
        if (r != CUDA_SUCCESS)
            fatal(c, "cuModuleLoadData", r);
        CUfunction f;
        check(c, cuModuleGetFunction(&f, mod, space_.kernel_name.c_str()), "cuModuleGetFunction");
        work_.prepare_module(mod);   // synchronous copies into the module's constant memory

        const Dim3 block = space_.block(c), grid = space_.grid(c);
        int max_threads = 0, shared = 0;
        check(c, cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f), "cuFuncGetAttribute");
        check(c, cuFuncGetAttribute(&shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f), "cuFuncGetAttribute");
        const int threads = int(block.x * block.y * block.z);
        if (threads > max_threads || shared > max_shared_) {
            // Too many registers per thread for this block size, or too much shared memory:
            // the launch would fail, so do not try.
            m.kind = Measurement::RuntimeFailed;
            m.why = threads > max_threads ? "more threads per block than the kernel's registers allow"
                                          : "static shared memory above the device's limit per block";
            check(c, cuModuleUnload(mod), "cuModuleUnload");
            m.framework_ms = ms_since(t0);
            return m;
        }

        // Poison the output so that a kernel that skips elements cannot pass on stale data.
        check(c, cuMemsetD32Async(work_.output.ptr, 0xFFFFFFFFu, work_.elements, stream_), "cuMemsetD32Async");

        const auto tb = Clock::now();
        r = launch(f, grid, block);   // warm-up, not timed
        if (r == CUDA_SUCCESS)
            r = cuStreamSynchronize(stream_);
        if (r != CUDA_SUCCESS) {
            if (!is_launch_config_error(r))
                fatal(c, "warm-up launch", r);
            m.kind = Measurement::RuntimeFailed;
            m.why = cu_error_name(r);
            check(c, cuModuleUnload(mod), "cuModuleUnload");
            m.framework_ms = ms_since(t0);
            return m;
        }
        for (int i = 0; i < 7; i++) {
            if (use_gate_)
                check(c, cuStreamWaitValue32(stream_, gate_dev_, ++gate_seq_, CU_STREAM_WAIT_VALUE_GEQ),
                      "cuStreamWaitValue32");
            check(c, cuEventRecord(start_, stream_), "cuEventRecord");
            r = launch(f, grid, block);
            open_gate();   // also on failure, or the stream would wait forever
            if (r != CUDA_SUCCESS)
                fatal(c, "timed launch", r);
            check(c, cuEventRecord(stop_, stream_), "cuEventRecord");
            check(c, cuEventSynchronize(stop_), "kernel execution");
            float ms = 0;
            check(c, cuEventElapsedTime(&ms, start_, stop_), "cuEventElapsedTime");
            m.times.push_back(ms);
        }
        m.benchmark_ms = ms_since(tb);

        const auto tv = Clock::now();
        verify(c, m);
        m.verification_ms = ms_since(tv);
        check(c, cuModuleUnload(mod), "cuModuleUnload");
        // Everything but the launches and the check: module load, constants, poisoning, unload.
        m.framework_ms = ms_since(t0) - m.benchmark_ms - m.verification_ms;
        return m;
    }

private:
    CUresult launch(CUfunction f, Dim3 g, Dim3 b)
    {
        return cuLaunchKernel(f, g.x, g.y, g.z, b.x, b.y, b.z, 0, stream_, work_.args(), nullptr);
    }

    void open_gate()
    {
        if (!use_gate_)
            return;
        std::atomic_thread_fence(std::memory_order_seq_cst);
        *gate_host_ = gate_seq_;
    }

    void verify(const Config& c, Measurement& m)
    {
        check(c, cuMemsetD32Async(result_, 0, 2, stream_), "cuMemsetD32Async");
        long long n = (long long)work_.elements;
        float tol = work_.tolerance;
        void* a[] = {&work_.output.ptr, &work_.reference.ptr, &n, &tol, &result_};
        CUfunction f = work_.int_output ? ref_.compare_int : ref_.compare_float;
        const CUresult r = cuLaunchKernel(f, 132 * 8, 1, 1, 256, 1, 1, 0, stream_, a, nullptr);
        if (r != CUDA_SUCCESS)
            fatal(c, "compare launch", r);
        unsigned res[2];
        check(c, cuMemcpyDtoHAsync(res, result_, 8, stream_), "cuMemcpyDtoHAsync");
        check(c, cuStreamSynchronize(stream_), "verification");
        std::memcpy(&m.max_error, &res[1], 4);
        m.mismatches = res[0];
        if (res[0] != 0)
            m.kind = Measurement::VerificationFailed;
    }

    // A context error after a kernel of ours ran (illegal address etc.) is a bug: stop at once.
    [[noreturn]] void fatal(const Config& c, const char* where, CUresult r)
    {
        std::fprintf(stderr, "FATAL: %s failed with %s for configuration %s\n", where, cu_error_name(r),
                     c.describe().c_str());
        quit(4);
    }
    void check(const Config& c, CUresult r, const char* where)
    {
        if (r != CUDA_SUCCESS)
            fatal(c, where, r);
    }

    const Space& space_;
    Workload& work_;
    ReferenceModule& ref_;
    int max_shared_;
    CUstream stream_;
    CUevent start_, stop_;
    CUdeviceptr result_;
    volatile uint32_t* gate_host_ = nullptr;
    CUdeviceptr gate_dev_ = 0;
    uint32_t gate_seq_ = 0;
    bool use_gate_ = false;
};

// ---------------------------------------------------------------------------------------------
// Compile worker processes. NVRTC serialises much of a compilation within one process (two
// threads compile no faster than one), so compiles run in separate processes: this binary
// re-executed with --compile-worker, each compiling one configuration at a time on request over
// a pipe. Request: the configuration's position among all valid configurations (uint64).
// Reply: WireHeader, then the CUBIN (ok) or the NVRTC log (failed).

struct WireHeader {
    uint64_t id;
    uint32_t ok;
    uint32_t pad;
    double ms;
    uint64_t size;
};

bool write_all(int fd, const void* p, size_t n)
{
    const char* c = static_cast<const char*>(p);
    while (n > 0) {
        const ssize_t w = ::write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        c += w;
        n -= size_t(w);
    }
    return true;
}

bool read_all(int fd, void* p, size_t n)
{
    char* c = static_cast<char*>(p);
    while (n > 0) {
        const ssize_t r = ::read(fd, c, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        c += r;
        n -= size_t(r);
    }
    return true;
}

// The worker's main loop: until the parent closes the pipe.
int compile_worker(const Space& s, const std::vector<Config>& all, const std::string& text, int arch)
{
    for (;;) {
        uint64_t id;
        if (!read_all(0, &id, sizeof id))
            return 0;
        if (id >= all.size())
            return 2;
        const CompileResult r = nvrtc_compile(config_source(all[id], s, text), s.kernel_file, arch);
        const std::string& payload = r.ok ? r.cubin : r.log;
        const WireHeader h{id, r.ok ? 1u : 0u, 0, r.ms, payload.size()};
        if (!write_all(1, &h, sizeof h) || !write_all(1, payload.data(), payload.size()))
            return 2;
    }
}

// Parent side of one worker process.
class WorkerProcess {
public:
    explicit WorkerProcess(std::vector<std::string> argv) : argv_(std::move(argv)) {}
    ~WorkerProcess() { stop(); }

    void start()
    {
        int in[2], out[2];
        if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
            die(2, "pipe2 failed");
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, in[0], 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
        std::vector<char*> args;
        for (auto& a : argv_)
            args.push_back(&a[0]);
        args.push_back(nullptr);
        const int rc = posix_spawn(&pid_, argv_[0].c_str(), &fa, nullptr, args.data(), environ);
        posix_spawn_file_actions_destroy(&fa);
        close(in[0]);
        close(out[1]);
        if (rc != 0)
            die(2, "cannot start compile worker " + argv_[0] + ": " + std::strerror(rc));
        to_ = in[1];
        from_ = out[0];
    }

    // False when the worker died (e.g. NVRTC crashed on this configuration).
    bool compile(uint64_t id, CompileResult& r)
    {
        WireHeader h;
        if (!write_all(to_, &id, sizeof id) || !read_all(from_, &h, sizeof h) || h.id != id)
            return false;
        std::string payload(h.size, '\0');
        if (h.size > 0 && !read_all(from_, &payload[0], h.size))
            return false;
        r.ok = h.ok != 0;
        r.ms = h.ms;
        (r.ok ? r.cubin : r.log) = std::move(payload);
        return true;
    }

    void stop()
    {
        if (to_ >= 0)
            close(to_);   // EOF: the worker exits
        if (from_ >= 0)
            close(from_);
        if (pid_ > 0)
            waitpid(pid_, nullptr, 0);
        to_ = from_ = -1;
        pid_ = -1;
    }

private:
    std::vector<std::string> argv_;
    pid_t pid_ = -1;
    int to_ = -1, from_ = -1;
};

// Compile pipeline: one feeder thread per worker process hands out configurations in order and
// queues the results for the measuring thread.

struct Compiled {
    size_t index;   // position in the selected configurations
    CompileResult result;
};

class CompilePool {
public:
    CompilePool(const std::vector<Config>& configs, const std::vector<std::string>& worker_argv, unsigned workers,
                double deadline)
        : configs_(configs), deadline_(deadline)
    {
        active_ = workers;
        for (unsigned t = 0; t < workers; t++)
            feeders_.emplace_back([this, worker_argv] { run(worker_argv); });
    }
    ~CompilePool()
    {
        stop();
        for (auto& w : feeders_)
            w.join();
    }

    // Next compiled configuration (Item), nothing within `wait` (Timeout, for progress printing),
    // or Done when all feeders have finished and the queue is empty.
    enum Pop { Item, Timeout, Done };
    Pop pop(Compiled& out, std::chrono::milliseconds wait)
    {
        std::unique_lock<std::mutex> lk(mu_);
        ready_cv_.wait_for(lk, wait, [this] { return !queue_.empty() || active_ == 0; });
        if (queue_.empty())
            return active_ == 0 ? Done : Timeout;
        out = std::move(queue_.front());
        queue_.pop_front();
        space_cv_.notify_one();
        return Item;
    }

    // No further configurations are handed out (those being compiled still arrive).
    void stop()
    {
        std::lock_guard<std::mutex> lk(mu_);
        stopped_ = true;
        space_cv_.notify_all();
    }
    size_t compiled() const { return compiled_.load(); }
    double total_compile_ms() const { return total_ms_.load(); }

private:
    void run(const std::vector<std::string>& worker_argv)
    {
        WorkerProcess worker(worker_argv);
        worker.start();
        for (;;) {
            {
                std::unique_lock<std::mutex> lk(mu_);
                // Bounded queue: the CUBINs waiting for the GPU stay few.
                space_cv_.wait(lk, [this] { return queue_.size() < kMaxQueued || stopped_; });
                if (stopped_)
                    break;
            }
            if (deadline_ > 0 && unix_now() >= deadline_)
                break;
            const size_t i = next_.fetch_add(1);
            if (i >= configs_.size())
                break;
            Compiled c{i, {}};
            if (!worker.compile(configs_[i].id, c.result)) {
                c.result = CompileResult{};
                c.result.log = "the NVRTC worker process died compiling this configuration";
                worker.stop();
                worker.start();
            }
            compiled_++;
            add_ms(c.result.ms);
            std::lock_guard<std::mutex> lk(mu_);
            queue_.push_back(std::move(c));
            ready_cv_.notify_one();
        }
        worker.stop();
        std::lock_guard<std::mutex> lk(mu_);
        active_--;
        ready_cv_.notify_all();
    }
    void add_ms(double ms)
    {
        double cur = total_ms_.load();
        while (!total_ms_.compare_exchange_weak(cur, cur + ms)) {
        }
    }

    static constexpr size_t kMaxQueued = 256;
    const std::vector<Config>& configs_;
    const double deadline_;
    std::vector<std::thread> feeders_;
    std::mutex mu_;
    std::condition_variable ready_cv_, space_cv_;
    std::deque<Compiled> queue_;
    std::atomic<size_t> next_{0}, compiled_{0};
    std::atomic<double> total_ms_{0};
    unsigned active_ = 0;
    bool stopped_ = false;
};
// ---------------------------------------------------------------------------------------------
// Command line

struct Options {
    std::string space, out, kernels;
    long limit = 0;       // 0: all
    long stride = 1;      // every stride-th valid configuration
    double deadline = 0;  // unix seconds, 0: none
    unsigned threads = 0; // compile worker processes; 0: all cores (one left to the measuring thread)
    bool compile_only = false;
    bool compile_worker = false;  // internal: this process is a compile worker (see WorkerProcess)
    int arch = 90;        // --compile-only only; measuring uses the device's own
};

void usage()
{
    std::fprintf(stderr,
                 "usage: measure_kt_spaces SPACE OUT.json [--kernels DIR] [--limit N] [--stride K]\n"
                 "                         [--deadline UNIX_SECONDS] [--threads T]\n"
                 "       measure_kt_spaces SPACE --compile-only [--arch XY] [--kernels DIR] [--limit N]\n"
                 "                         [--stride K] [--threads T]\n"
                 "SPACE: convolution, pnpoly or gemm. --limit N: the first N selected configurations (0, the\n"
                 "default: all); --stride K: every K-th valid configuration; --threads T: compile processes\n"
                 "(default: cores - 1 when measuring, all cores with --compile-only); --deadline: stop\n"
                 "compiling and measuring at that time and write a partial cache; --arch XY: sm_XY for\n"
                 "--compile-only (default 90); --kernels DIR: kernel sources (default <binary dir>/kernels).\n");
    quit(2);
}

Options parse(int argc, char** argv)
{
    Options o;
    std::vector<std::string> pos;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc)
                usage();
            return argv[++i];
        };
        try {
            if (a == "--kernels")
                o.kernels = value();
            else if (a == "--limit")
                o.limit = std::stol(value());
            else if (a == "--stride")
                o.stride = std::stol(value());
            else if (a == "--deadline")
                o.deadline = std::stod(value());
            else if (a == "--threads")
                o.threads = unsigned(std::stoul(value()));
            else if (a == "--arch")
                o.arch = std::stoi(value());
            else if (a == "--compile-only")
                o.compile_only = true;
            else if (a == "--compile-worker")
                o.compile_worker = true;
            else if (a.size() > 1 && a[0] == '-')
                usage();
            else
                pos.push_back(a);
        } catch (const std::exception&) {
            usage();
        }
    }
    const bool no_out = o.compile_only || o.compile_worker;
    if (pos.empty() || pos.size() > 2 || (!no_out && pos.size() != 2) || o.limit < 0 || o.stride < 1)
        usage();
    o.space = pos[0];
    if (pos.size() == 2)
        o.out = pos[1];
    if (o.threads == 0) {
        const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
        o.threads = o.compile_only ? cores : std::max(1u, cores - 1);
    }
    return o;
}

std::string exe_path()
{
    char buf[4096];
    const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    return n > 0 ? std::string(buf, size_t(n)) : std::string("/proc/self/exe");
}

std::string exe_dir()
{
    const std::string p = exe_path();
    const size_t slash = p.rfind('/');
    return slash == std::string::npos ? "." : p.substr(0, slash);
}

// Command line of a compile worker process for this space and architecture.
std::vector<std::string> worker_argv(const Options& o, const std::string& kernel_dir, int arch)
{
    return {exe_path(), o.space, "--compile-worker", "--kernels", kernel_dir, "--arch", std::to_string(arch)};
}

std::string first_lines(const std::string& s, int lines)
{
    size_t pos = 0;
    for (int i = 0; i < lines && pos != std::string::npos; i++)
        pos = s.find('\n', pos + 1);
    return pos == std::string::npos ? s : s.substr(0, pos);
}

// ---------------------------------------------------------------------------------------------
// --compile-only: compile (no CUDA context, no launch) and report failures and NVRTC times.

int compile_only(const Options& o, const Space& s, const std::vector<Config>& configs, const std::string& kernel_dir)
{
    const auto t0 = Clock::now();
    CompilePool pool(configs, worker_argv(o, kernel_dir, o.arch), o.threads, o.deadline);
    std::vector<std::pair<double, size_t>> times;   // (NVRTC ms, configuration)
    std::vector<std::pair<size_t, std::string>> unexpected;
    size_t shared_fail = 0;
    auto last = Clock::now();
    for (;;) {
        Compiled c;
        const auto p = pool.pop(c, std::chrono::milliseconds(1000));
        if (p == CompilePool::Done)
            break;
        if (p == CompilePool::Item) {
            times.emplace_back(c.result.ms, c.index);
            if (!c.result.ok) {
                if (expected_compile_failure(c.result.log))
                    shared_fail++;
                else
                    unexpected.emplace_back(c.index, c.result.log);
            }
        }
        if (ms_since(last) > 10000) {
            last = Clock::now();
            std::fprintf(stderr, "[compile-only %s] compiled %zu/%zu, failed %zu, elapsed %.1f s\n", s.name.c_str(),
                         times.size(), configs.size(), shared_fail + unexpected.size(), ms_since(t0) / 1000);
        }
    }
    std::sort(unexpected.begin(), unexpected.end());
    for (size_t i = 0; i < unexpected.size() && i < 10; i++)
        std::printf("UNEXPECTED compile failure: %s\n%s\n", configs[unexpected[i].first].describe().c_str(),
                    first_lines(unexpected[i].second, 12).c_str());
    std::sort(times.begin(), times.end());
    for (size_t i = 0; i < times.size() && i < 3; i++)
        std::printf("slow compile: %.0f ms %s\n", times[times.size() - 1 - i].first,
                    configs[times[times.size() - 1 - i].second].describe().c_str());
    double sum = 0;
    for (const auto& t : times)
        sum += t.first;
    const double wall = ms_since(t0) / 1000;
    std::printf("compile-only %s sm_%d: %zu of %zu configurations compiled in %.1f s with %u processes; "
                "failures: %zu shared memory > 48 KiB (expected), %zu unexpected; NVRTC ms per config: "
                "mean %.0f, median %.0f, max %.0f; skipped %zu\n",
                s.name.c_str(), o.arch, times.size(), configs.size(), wall, o.threads, shared_fail, unexpected.size(),
                times.empty() ? 0.0 : sum / times.size(), times.empty() ? 0.0 : times[times.size() / 2].first,
                times.empty() ? 0.0 : times.back().first, configs.size() - times.size());
    return unexpected.empty() ? 0 : 3;
}

// ---------------------------------------------------------------------------------------------
// Measure mode

int measure(const Options& o, const Space& s, const std::vector<Config>& configs, size_t total_valid,
            const std::string& kernel_dir, const std::string& reference_text)
{
    const auto t0 = Clock::now();
    CU(cuInit(0));
    CUdevice dev;
    CU(cuDeviceGet(&dev, 0));
    char name[256] = {0};
    CU(cuDeviceGetName(name, sizeof name - 1, dev));
    int major = 0, minor = 0, max_shared = 0;
    CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    CU(cuDeviceGetAttribute(&max_shared, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, dev));
    const int arch = major * 10 + minor;
    // Blocking synchronisation: the measuring thread sleeps while kernels run, leaving the cores
    // to the compile workers (event timings are unaffected).
    CU(cuDevicePrimaryCtxSetFlags(dev, CU_CTX_SCHED_BLOCKING_SYNC));
    CUcontext ctx;
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));
    std::fprintf(stderr, "device: %s, sm_%d, %d configurations of %s, %u compile processes\n", name, arch,
                 int(configs.size()), s.name.c_str(), o.threads);

    // Start compiling at once; the reference set-up below overlaps with it.
    CompilePool pool(configs, worker_argv(o, kernel_dir, arch), o.threads, o.deadline);

    ReferenceModule ref;
    {
        const CompileResult rc = nvrtc_compile(reference_text, "reference.cu", arch);
        if (!rc.ok)
            die(4, "reference kernels do not compile: " + rc.log);
        CU(cuModuleLoadData(&ref.module, rc.cubin.data()));
        ref.compare_float = ref.get("compare_float");
        ref.compare_int = ref.get("compare_int");
    }
    std::unique_ptr<Workload> work;
    if (s.name == "convolution")
        work = std::make_unique<ConvolutionWorkload>();
    else if (s.name == "pnpoly")
        work = std::make_unique<PnpolyWorkload>();
    else
        work = std::make_unique<GemmWorkload>();
    work->setup(ref);
    std::fprintf(stderr, "inputs and reference ready after %.1f s\n", ms_since(t0) / 1000);

    Measurer measurer(s, *work, ref, max_shared);
    std::vector<ordered_json> entries(configs.size());
    std::vector<bool> have(configs.size(), false);
    size_t points = 0, compile_failed = 0, runtime_failed = 0;   // points: entries in the cache
    double gpu_ms = 0;
    std::vector<std::pair<size_t, Measurement>> wrong;
    std::vector<std::pair<size_t, std::string>> unexpected_compile;
    std::map<std::string, int> runtime_reasons;
    auto last = Clock::now();
    bool deadline_hit = false;

    for (;;) {
        Compiled c;
        const auto p = pool.pop(c, std::chrono::milliseconds(1000));
        if (p == CompilePool::Done)
            break;
        if (p == CompilePool::Item) {
            const Config& cfg = configs[c.index];
            if (o.deadline > 0 && unix_now() >= o.deadline) {
                if (!deadline_hit)
                    pool.stop();   // no further compiles; drain and skip what is queued
                deadline_hit = true;
                continue;
            }
            ordered_json e;
            for (size_t i = 0; i < cfg.values.size(); i++)
                e[s.params[i].name] = cfg.values[i];
            const auto tm = Clock::now();
            if (!c.result.ok) {
                compile_failed++;
                if (!expected_compile_failure(c.result.log))
                    unexpected_compile.emplace_back(c.index, c.result.log);
                e["time"] = "CompilationFailedConfig";
                e["compile_time"] = c.result.ms;
                e["verification_time"] = 0;
                e["benchmark_time"] = 0;
                e["strategy_time"] = 0;
                e["framework_time"] = ms_since(tm);
            } else {
                const Measurement m = measurer.measure(cfg, c.result.cubin);
                if (m.kind == Measurement::Ok) {
                    double sum = 0;
                    for (double t : m.times)
                        sum += t;
                    gpu_ms += sum;
                    e["time"] = sum / m.times.size();
                    e["times"] = m.times;
                    e["compile_time"] = c.result.ms;
                    e["verification_time"] = m.verification_ms;
                    e["benchmark_time"] = m.benchmark_ms;
                } else {
                    runtime_failed++;
                    e["time"] = "RuntimeFailedConfig";
                    e["compile_time"] = c.result.ms;
                    e["verification_time"] = 0;
                    e["benchmark_time"] = 0;
                    if (m.kind == Measurement::VerificationFailed) {
                        e["verification"] = "failed";
                        wrong.emplace_back(c.index, m);
                    } else {
                        runtime_reasons[m.why]++;
                    }
                }
                e["strategy_time"] = 0;
                e["framework_time"] = m.framework_ms;
            }
            e["timestamp"] = utc_timestamp();
            entries[c.index] = std::move(e);
            have[c.index] = true;
            points++;
        }
        if (ms_since(last) >= 10000) {
            last = Clock::now();
            std::fprintf(stderr,
                         "[%s] compiled %zu/%zu, measured %zu, failed %zu (compile %zu, runtime %zu), wrong %zu, "
                         "elapsed %.1f s\n",
                         s.name.c_str(), pool.compiled(), configs.size(), points, compile_failed + runtime_failed,
                         compile_failed, runtime_failed, wrong.size(), ms_since(t0) / 1000);
        }
    }
    const size_t skipped = configs.size() - points;

    // The cache document, in the layout of tools/synthetic_kt_cache.py (Kernel Tuner schema 1.0.0).
    ordered_json doc;
    doc["schema_version"] = "1.0.0";
    doc["device_name"] = name;
    doc["kernel_name"] = s.name;
    doc["problem_size"] = s.problem_size;
    ordered_json keys = ordered_json::array(), tune = ordered_json::object();
    for (const auto& p : s.params) {
        keys.push_back(p.name);
        tune[p.name] = p.values;
    }
    doc["tune_params_keys"] = keys;
    doc["tune_params"] = tune;
    doc["objective"] = "time";
    ordered_json cache = ordered_json::object();
    for (size_t i = 0; i < configs.size(); i++)
        if (have[i])
            cache[configs[i].key()] = std::move(entries[i]);
    doc["cache"] = std::move(cache);
    {
        std::ofstream f(o.out);
        f << doc.dump();
        if (!f)
            die(2, "cannot write " + o.out);
    }

    for (const auto& r : runtime_reasons)
        std::printf("RuntimeFailedConfig: %d x %s\n", r.second, r.first.c_str());
    for (size_t i = 0; i < unexpected_compile.size() && i < 10; i++)
        std::printf("UNEXPECTED compile failure (bug in kernels/%s?): %s\n%s\n", s.kernel_file.c_str(),
                    configs[unexpected_compile[i].first].describe().c_str(),
                    first_lines(unexpected_compile[i].second, 12).c_str());
    std::sort(wrong.begin(), wrong.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t i = 0; i < wrong.size() && i < 20; i++)
        std::printf("VERIFICATION FAILED: %s: %u wrong outputs, max error %g\n", configs[wrong[i].first].describe().c_str(),
                    wrong[i].second.mismatches, double(wrong[i].second.max_error));
    if (configs.size() < total_valid)
        std::printf("SUBSET: %zu of the space's %zu valid configurations selected (--limit/--stride)\n",
                    configs.size(), total_valid);
    if (skipped > 0)
        std::printf("PARTIAL cache: deadline reached, %zu of %zu configurations measured, %zu skipped (not in the "
                    "cache)\n",
                    points, configs.size(), skipped);
    std::printf("%s: %s: points %zu, failed %zu (compile %zu, runtime %zu, wrong results %zu), verification "
                "failures %zu, skipped %zu, wall %.1f s, compile total %.1f s, GPU time total %.1f s\n",
                o.out.c_str(), s.name.c_str(), points, compile_failed + runtime_failed, compile_failed,
                runtime_failed - wrong.size(), wrong.size(), wrong.size(), skipped, ms_since(t0) / 1000,
                pool.total_compile_ms() / 1000, gpu_ms / 1000);
    std::fflush(stdout);
    return (wrong.empty() && unexpected_compile.empty()) ? 0 : 3;
}

}  // namespace

int main(int argc, char** argv)
{
    const Options o = parse(argc, argv);
    signal(SIGPIPE, SIG_IGN);   // a dead compile worker must not kill us through its pipe
    Space s;
    if (o.space == "convolution")
        s = convolution_space();
    else if (o.space == "pnpoly")
        s = pnpoly_space();
    else if (o.space == "gemm")
        s = gemm_space();
    else
        usage();

    const std::string kdir = o.kernels.empty() ? exe_dir() + "/kernels" : o.kernels;
    const std::string text = read_file(kdir + "/" + s.kernel_file);

    std::vector<Config> all = enumerate(s);
    if (o.compile_worker)
        return compile_worker(s, all, text, o.arch);
    std::vector<Config> configs;
    for (size_t i = 0; i < all.size(); i += size_t(o.stride)) {
        if (o.limit > 0 && long(configs.size()) >= o.limit)
            break;
        configs.push_back(all[i]);
    }
    std::fprintf(stderr, "%s: %zu valid configurations, %zu selected\n", s.name.c_str(), all.size(), configs.size());
    if (configs.empty())
        die(2, "no configurations selected");

    if (o.compile_only)
        return compile_only(o, s, configs, kdir);
    return measure(o, s, configs, all.size(), kdir, read_file(kdir + "/reference.cu"));
}
