// The six parameter spaces, their configurations, and NVRTC compilation of one configuration.
// Part of measure_kt_spaces.cpp (one translation unit; see its head comment).
#pragma once

#include "common.hpp"

namespace kt {

// ---------------------------------------------------------------------------------------------
// Parameter spaces (gemm, convolution and pnpoly mirror tools/synthetic_kt_cache.py exactly: names,
// value lists, key order, restrictions; dedispersion, hotspot and expdist follow Kernel Tuner's
// benchmarks; enumeration in itertools.product order, the last key varying fastest).

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

// Problem sizes; --size N sets the chosen space's (gemm: m = n = k = N; convolution: N x N
// outputs; pnpoly: N points; dedispersion: N samples; hotspot: an N x N grid; expdist: N points in
// each set) before its Space is built.
int kConvWidth = 4096, kConvHeight = 4096;
int kPoints = 20000000;
constexpr int kVertices = 600;
int kGemmSize = 2048;   // m = n = k
// Dedispersion: the problem of the published benchmark's smaller set-up (384 channels of
// 0.78125 MHz below 1220 MHz, 81.92 us samples, 512 DMs 0.02 apart); --size N sets the samples.
int kDedispSamples = 12500;
constexpr int kDedispDms = 512, kDedispChannels = 384;
constexpr float kDedispDmStep = 0.02f;
// Hotspot: an N x N grid advanced by kHotspotSteps time steps per launch (a multiple of every
// temporal_tiling_factor), with the update coefficients of hotspot.cu.
int kHotspotSize = 4096;
constexpr int kHotspotSteps = 8;
constexpr float kHotspotCx = 0.1f, kHotspotCy = 0.1f, kHotspotCz = 0.005f, kHotspotCp = 0.5f, kHotspotAmb = 300.0f;
// Expdist: two sets of kExpdistPoints points each, the partial sums spread over kExpdistSlots
// double accumulators.
int kExpdistPoints = 26000;
constexpr int kExpdistSlots = 1024;

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

// The delay of each channel per unit of DM, in samples (cold plasma dispersion: 4148.808 s MHz^2
// per unit DM times 1/f^2 - 1/f_top^2), and the largest shift any DM needs (max_shift).
std::vector<float> dedispersion_delays()
{
    const double bandwidth = 0.78125, lowest = 1220.0 - 0.5 * bandwidth, sampling_time = 81.92e-6;
    const double top = lowest + (kDedispChannels - 1) * bandwidth;
    std::vector<float> d(kDedispChannels);
    for (int c = 0; c < kDedispChannels; c++) {
        const double f = lowest + c * bandwidth;
        d[c] = float(4148.808 * (1.0 / (f * f) - 1.0 / (top * top)) / sampling_time);
    }
    return d;
}

int dedispersion_max_shift()
{
    float most = 0;
    for (float d : dedispersion_delays())
        most = std::max(most, std::ceil(float(kDedispDms) * kDedispDmStep * d));
    return int(most) + 1;
}

Space dedispersion_space()
{
    Space s;
    s.name = "dedispersion";
    s.problem_size = {kDedispSamples, kDedispDms};
    std::vector<int> by;
    for (int i = 4; i <= 32; i++)
        by.push_back(8 * i);
    s.params = {{"block_size_x", {1, 2, 4, 8, 16, 32}},
                {"block_size_y", by},
                {"block_size_z", {1}},
                {"tile_size_x", range_values(1, 4, 1)},
                {"tile_size_y", range_values(1, 8, 1)},
                {"tile_stride_x", {0, 1}},
                {"tile_stride_y", {0, 1}},
                {"loop_unroll_factor_channel", {0}}};
    s.valid = [](const Config& c) {
        const int threads = c("block_size_x") * c("block_size_y");
        return threads >= 32 && threads <= 1024 && (c("tile_size_x") > 1 || c("tile_stride_x") == 0) &&
               (c("tile_size_y") > 1 || c("tile_stride_y") == 0);
    };
    s.kernel_file = "dedispersion.cu";
    s.kernel_name = "dedispersion_kernel";
    char step[32];
    std::snprintf(step, sizeof step, "%.9gf", double(kDedispDmStep));
    s.problem_defines = "#define nr_dms " + std::to_string(kDedispDms) + "\n#define nr_samples " +
                        std::to_string(kDedispSamples) + "\n#define nr_channels " + std::to_string(kDedispChannels) +
                        "\n#define max_shift " + std::to_string(dedispersion_max_shift()) + "\n#define dm_step " + step +
                        "\n";
    s.block = [](const Config& c) { return Dim3{unsigned(c("block_size_x")), unsigned(c("block_size_y")), 1}; };
    s.grid = [](const Config& c) {
        return Dim3{ceil_div(kDedispSamples, c("block_size_x") * c("tile_size_x")),
                    ceil_div(kDedispDms, c("block_size_y") * c("tile_size_y")), 1};
    };
    return s;
}

// A float literal that reads back as exactly v (e.g. "300.0f", "0.100000001f").
std::string float_literal(float v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", double(v));
    std::string lit = buf;
    if (lit.find_first_of(".e") == std::string::npos)
        lit += ".0";
    return lit + "f";
}

Space hotspot_space()
{
    Space s;
    s.name = "hotspot";
    s.problem_size = {kHotspotSize, kHotspotSize};
    s.params = {{"block_size_x", {32, 48, 64, 96, 128, 256}},
                {"block_size_y", {1, 2, 4, 8, 16, 32}},
                {"tile_size_x", {1, 2, 4}},
                {"tile_size_y", {1, 2, 4}},
                {"temporal_tiling_factor", {1, 2, 4, 8}},
                {"loop_unroll_factor_t", {0, 1, 2, 4, 8}},
                {"sh_power", {0, 1}},
                {"blocks_per_sm", {0, 2}}};
    // The halo is no wider than the tile, and the two temperature buffers of the region fit in
    // 48 KiB of static shared memory; with sh_power = 1 the power buffer may not (those fail to
    // compile and are recorded as CompilationFailedConfig).
    s.valid = [](const Config& c) {
        const int threads = c("block_size_x") * c("block_size_y"), t = c("temporal_tiling_factor");
        const int w = c("block_size_x") * c("tile_size_x"), h = c("block_size_y") * c("tile_size_y");
        return threads >= 32 && threads <= 1024 &&
               (c("loop_unroll_factor_t") == 0 || t % c("loop_unroll_factor_t") == 0) && w >= t && h >= t &&
               2 * (w + 2 * t) * (h + 2 * t) * 4 <= 48 * 1024;
    };
    s.kernel_file = "hotspot.cu";
    s.kernel_name = "hotspot_kernel";
    s.problem_defines = "#define grid_size " + std::to_string(kHotspotSize) + "\n#define total_steps " +
                        std::to_string(kHotspotSteps) + "\n#define hs_cx " + float_literal(kHotspotCx) +
                        "\n#define hs_cy " + float_literal(kHotspotCy) + "\n#define hs_cz " +
                        float_literal(kHotspotCz) + "\n#define hs_cp " + float_literal(kHotspotCp) +
                        "\n#define hs_amb " + float_literal(kHotspotAmb) + "\n";
    s.block = [](const Config& c) { return Dim3{unsigned(c("block_size_x")), unsigned(c("block_size_y")), 1}; };
    // One block per work item: every tile once per pass.
    s.grid = [](const Config& c) {
        const long long tiles = (long long)ceil_div(kHotspotSize, c("block_size_x") * c("tile_size_x")) *
                                ceil_div(kHotspotSize, c("block_size_y") * c("tile_size_y"));
        return Dim3{unsigned(tiles * (kHotspotSteps / c("temporal_tiling_factor"))), 1, 1};
    };
    return s;
}

Space expdist_space()
{
    Space s;
    s.name = "expdist";
    s.problem_size = {kExpdistPoints, kExpdistPoints};
    s.params = {{"block_size_x", {32, 64, 128, 256, 512}},
                {"block_size_y", {1, 2, 4, 8}},
                {"tile_size_x", {1, 2, 4, 8}},
                {"tile_size_y", {1, 2, 4, 8}},
                {"use_shared_mem", {0, 1, 2}},
                {"loop_unroll_factor_x", {0, 1}},
                {"loop_unroll_factor_y", {0, 1}},
                {"use_column", {0, 1}},
                {"n_y_blocks", {1, 8, 64}}};
    // n_y_blocks and double-buffered staging belong to the column kernel only.
    s.valid = [](const Config& c) {
        const int threads = c("block_size_x") * c("block_size_y");
        return threads >= 32 && threads <= 1024 &&
               (c("loop_unroll_factor_x") == 0 || c("tile_size_x") % c("loop_unroll_factor_x") == 0) &&
               (c("loop_unroll_factor_y") == 0 || c("tile_size_y") % c("loop_unroll_factor_y") == 0) &&
               (c("use_column") == 1 || (c("n_y_blocks") == 1 && c("use_shared_mem") != 2));
    };
    s.kernel_file = "expdist.cu";
    s.kernel_name = "expdist_kernel";
    s.problem_defines = "#define size_a " + std::to_string(kExpdistPoints) + "\n#define size_b " +
                        std::to_string(kExpdistPoints) + "\n#define n_slots " + std::to_string(kExpdistSlots) + "\n";
    s.block = [](const Config& c) { return Dim3{unsigned(c("block_size_x")), unsigned(c("block_size_y")), 1}; };
    s.grid = [](const Config& c) {
        const unsigned gy = c("use_column") ? unsigned(c("n_y_blocks"))
                                            : ceil_div(kExpdistPoints, c("block_size_y") * c("tile_size_y"));
        return Dim3{ceil_div(kExpdistPoints, c("block_size_x") * c("tile_size_x")), gy, 1};
    };
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
// tiles and for hotspot regions whose power buffer does not fit beside the temperatures; anything
// else is a bug in our kernels.
bool expected_compile_failure(const std::string& log) { return log.find("too much shared data") != std::string::npos; }


}  // namespace kt
