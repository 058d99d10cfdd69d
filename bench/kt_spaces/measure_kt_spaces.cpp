// measure_kt_spaces: measures six published Kernel Tuner parameter spaces (convolution, pnpoly,
// gemm, dedispersion, hotspot, expdist) on the local NVIDIA GPU and writes each as a Kernel Tuner
// cache file (schema 1.0.0).
//
//   measure_kt_spaces SPACE OUT.json [--kernels DIR] [--limit N] [--stride K]
//                     [--deadline UNIX_SECONDS] [--threads T] [--size N]
//   measure_kt_spaces SPACE --compile-only [--arch XY] [--kernels DIR] [--limit N] [--stride K]
//                     [--threads T]
//
// The parameter lists, their order and the restrictions are exactly those of
// tools/synthetic_kt_cache.py (gemm_space, convolution_space, pnpoly_space; dedispersion, hotspot
// and expdist have no synthetic counterpart: their parameters are those of Kernel Tuner's
// dedispersion, hotspot and expdist benchmarks, hotspot's and expdist's value lists trimmed to
// about ten thousand configurations); only the times are measured instead of modelled. The
// kernels (kernels/*.cu) are our own implementations of the published parameter semantics.
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
//    (kernels/reference.cu). The gemm, convolution and dedispersion inputs are deterministic
//    pseudo-random small integers, so all summation orders give exactly the same float result
//    and the check can be strict; pnpoly's data are built so that every formulation gives the
//    same bitmap; hotspot performs the same explicitly rounded operations per cell in every
//    configuration (exact check); expdist's float terms are the same in every configuration and
//    only their summation order differs (relative tolerance 5e-6 on the sum, far below one
//    point's share).
//
// Exit status: 0 all fine; 2 usage or set-up error; 3 the cache was written but some
// configurations show a bug in our kernels (wrong results or an unexpected compile error);
// 4 a fatal CUDA error (e.g. illegal address: a kernel bug), nothing written.

#include "compile_pool.hpp"

namespace kt {

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
    long size = 0;        // 0: the published size (gemm 2048, convolution 4096, pnpoly 20000000,
                          // dedispersion 12500 samples, hotspot 4096, expdist 26000 points)
};

void usage()
{
    std::fprintf(stderr,
                 "usage: measure_kt_spaces SPACE OUT.json [--kernels DIR] [--limit N] [--stride K]\n"
                 "                         [--deadline UNIX_SECONDS] [--threads T] [--size N]\n"
                 "       measure_kt_spaces SPACE --compile-only [--arch XY] [--kernels DIR] [--limit N]\n"
                 "                         [--stride K] [--threads T]\n"
                 "SPACE: convolution, pnpoly, gemm, dedispersion, hotspot or expdist. --limit N: the first N\n"
                 "selected configurations (0, the default: all); --stride K: every K-th valid configuration;\n"
                 "--threads T: compile processes (default: cores - 1 when measuring, all cores with\n"
                 "--compile-only); --deadline: stop compiling and measuring at that time and write a partial\n"
                 "cache; --size N: problem size (gemm: m = n = k = N, a multiple of 128; convolution: N x N;\n"
                 "pnpoly: N points; dedispersion: N samples; hotspot: an N x N grid; expdist: N points in\n"
                 "each set); --arch XY: sm_XY for --compile-only (default 90); --kernels DIR: kernel sources\n"
                 "(default <binary dir>/kernels).\n");
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
            else if (a == "--size")
                o.size = std::stol(value());
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
    if (pos.empty() || pos.size() > 2 || (!no_out && pos.size() != 2) || o.limit < 0 || o.stride < 1 || o.size < 0)
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
    return {exe_path(), o.space, "--compile-worker", "--kernels", kernel_dir, "--arch", std::to_string(arch),
            "--size", std::to_string(o.size)};
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

// The spaces this tool measures: each one's name, its search space, the workload that times and
// checks its configurations, and the problem dimensions --size sets.
struct SpaceKind {
    const char* name;
    Space (*space)();
    std::unique_ptr<Workload> (*workload)();
    int* sizes[2];
};

template <class W>
std::unique_ptr<Workload> make_workload()
{
    return std::make_unique<W>();
}

const SpaceKind kSpaceKinds[] = {
    {"gemm", gemm_space, make_workload<GemmWorkload>, {&kGemmSize, nullptr}},
    {"convolution", convolution_space, make_workload<ConvolutionWorkload>, {&kConvWidth, &kConvHeight}},
    {"pnpoly", pnpoly_space, make_workload<PnpolyWorkload>, {&kPoints, nullptr}},
    {"dedispersion", dedispersion_space, make_workload<DedispersionWorkload>, {&kDedispSamples, nullptr}},
    {"hotspot", hotspot_space, make_workload<HotspotWorkload>, {&kHotspotSize, nullptr}},
    {"expdist", expdist_space, make_workload<ExpdistWorkload>, {&kExpdistPoints, nullptr}},
};

const SpaceKind* find_kind(const std::string& name)
{
    for (const SpaceKind& k : kSpaceKinds)
        if (name == k.name)
            return &k;
    return nullptr;
}

// ---------------------------------------------------------------------------------------------
// Measure mode

int measure(const Options& o, const SpaceKind& kind, const Space& s, const std::vector<Config>& configs,
            size_t total_valid, const std::string& kernel_dir, const std::string& reference_text)
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
    const std::unique_ptr<Workload> work = kind.workload();
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

}  // namespace kt


int main(int argc, char** argv)
{
    using namespace kt;
    const Options o = parse(argc, argv);
    const SpaceKind* kind = find_kind(o.space);
    if (!kind)
        usage();
    signal(SIGPIPE, SIG_IGN);   // a dead compile worker must not kill us through its pipe
    if (o.size > 0) {
        if (o.space == "gemm" && o.size % 128 != 0) {
            std::fprintf(stderr, "measure_kt_spaces: --size %ld: gemm needs a multiple of 128 (MWG, NWG up to 128)\n", o.size);
            return 2;
        }
        const int n = int(std::min<long>(o.size, 1L << 30));
        for (int* size : kind->sizes)
            if (size)
                *size = n;
    }
    const Space s = kind->space();

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
    return measure(o, *kind, s, configs, all.size(), kdir, read_file(kdir + "/reference.cu"));
}
