// The evaluation path on real candidates: built with the real compiler through the cache, run
// in a real worker, checked against the Kokkos reference.
#include <gtest/gtest.h>

#include <unistd.h>
#include <Kokkos_Core.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <thread>

#include "eval/builder.hpp"
#include "eval/evaluator.hpp"
#include "eval/gpu_monitor.hpp"
#include "eval/probe.hpp"
#include "eval/symbols.hpp"
#include "families/family.hpp"
#include "util/hash.hpp"

namespace ge = galapagos::eval;
namespace gf = galapagos::families;

namespace {

const std::filesystem::path source_dir = GALAPAGOS_SOURCE_DIR;

struct Eval : ::testing::Test {
  static void SetUpTestSuite() {
    family = new gf::family(gf::load_family("stencil3d7", {source_dir / "kernels"}));
    ge::eval_settings s;
    s.fitness_size = "small";
    s.checks.seeds = 1;
    s.timing.min_repetitions = 3;
    s.timing.max_repetitions = 5;
    s.timeout_s = 20;
    s.cache_dir = std::filesystem::temp_directory_path() / "galapagos-test-cache";
    const auto p = ge::probe_machine();
    ev = new ge::evaluator(*family, "cpu", s, p.limits(), 12345);
  }
  static void TearDownTestSuite() {
    delete ev;
    delete family;
  }
  static ge::candidate_source text(const std::string& code) {
    return {source_dir / "tests/data/inline.cpp", code, {}, family->backend("cpu").tmpl.flags, {}};
  }
  static inline gf::family* family = nullptr;
  static inline ge::evaluator* ev = nullptr;
};

const char* copy_only = R"(#include "glp_kernel.h"
GLP_EXPORT int glp_kernel(const glp_arg* a, int, const int64_t* s, void*) {
  const double* u = (const double*)a[0].data; double* v = (double*)a[1].data;
  for (int64_t i = 0; i < s[0] * s[1] * s[2]; ++i) v[i] = u[i];
  return 0;
})";

}  // namespace

TEST_F(Eval, TemplateCandidateIsAcceptedAndTimed) {
  const auto& b = family->backend("cpu");
  const auto m = ev->evaluate({b.tmpl.source, "", {{"TILE_Y", "8"}, {"SIMD", "1"}}, b.tmpl.flags, {}});
  ASSERT_EQ(m.status, galapagos::eval::candidate_status::ok) << m.reason;
  EXPECT_GE(m.repetitions, 3);
  EXPECT_GT(m.time_median_s, 0);
  EXPECT_LE(m.time_min_s, m.time_median_s);
  EXPECT_GE(m.time_spread_s, 0);
  EXPECT_LE(m.rel_error, family->tolerance);
  EXPECT_GT(m.roofline_fraction(), 0);
  // Every acceptance size once (one seed), two warm-up runs, and every timed run verified.
  EXPECT_EQ(m.verified_runs, static_cast<int>(family->accept_sizes.size()) + 2 + m.repetitions);
  EXPECT_EQ(m.source_hash.size(), 32u);
}

// SIMD 4 computes UNROLL rows at once with streaming stores where they are aligned: rows of odd
// length (the acceptance sizes have them) start at other alignments than the first row's, and a
// streaming store there faults. Every row count, with and without streaming stores, is accepted.
TEST_F(Eval, RowsAtOnceAreAcceptedForEveryRowCountAndStoreKind) {
  const auto& b = family->backend("cpu");
  for (const char* rows : {"1", "2", "4", "8"})
    for (const char* nt : {"0", "1"}) {
      const auto m = ev->evaluate(
          {b.tmpl.source, "", {{"SIMD", "4"}, {"UNROLL", rows}, {"NT_STORES", nt}, {"TILE_X", "64"}}, b.tmpl.flags, {}});
      EXPECT_EQ(m.status, galapagos::eval::candidate_status::ok) << "UNROLL " << rows << " NT_STORES " << nt << ": " << m.reason;
    }
}

// SIMD 4 with PLANES computes planes of rows together inside z blocks; blocks with fewer interior
// planes left (the last of each z block, the boundary planes, odd nz) go plane by plane, and
// streaming stores need every plane's rows aligned. Every plane count in blocks of 2 and 3
// planes, with both store kinds, is accepted.
TEST_F(Eval, PlanesAtOnceAreAcceptedInEveryBlockAndStoreKind) {
  const auto& b = family->backend("cpu");
  for (const char* planes : {"2", "4"})
    for (const char* tz : {"3", "4"})
      for (const char* nt : {"0", "1"}) {
        const auto m = ev->evaluate({b.tmpl.source,
                                     "",
                                     {{"SIMD", "4"}, {"UNROLL", "2"}, {"PLANES", planes}, {"TILE_Z", tz}, {"NT_STORES", nt}},
                                     b.tmpl.flags,
                                     {}});
        EXPECT_EQ(m.status, galapagos::eval::candidate_status::ok)
            << "PLANES " << planes << " TILE_Z " << tz << " NT_STORES " << nt << ": " << m.reason;
      }
}

TEST_F(Eval, WrongCandidateIsRejected) {
  const auto m = ev->evaluate(text(copy_only));
  EXPECT_EQ(m.status, galapagos::eval::candidate_status::wrong_result);
  EXPECT_NE(m.reason.find("relative error"), std::string::npos) << m.reason;
  EXPECT_TRUE(std::isnan(m.time_median_s));
  EXPECT_TRUE(std::isnan(m.roofline_fraction()));
}

// The final comparison's fraction of the floor side by side: the bandwidth (stencil3d7's binding
// ceiling) probed after each round; a candidate that fails has none.
TEST_F(Eval, InterleavedRunsCarryAFractionOfTheFloorProbedAfterEachRound) {
  const auto& b = family->backend("cpu");
  const auto ms = ev->evaluate_interleaved({{b.tmpl.source, "", {}, b.tmpl.flags, {}}, text(copy_only)}, 3);
  ASSERT_EQ(ms.size(), 2u);
  ASSERT_EQ(ms[0].status, galapagos::eval::candidate_status::ok) << ms[0].reason;
  EXPECT_EQ(ms[0].repetitions, 3);
  EXPECT_GT(ms[0].rounds_roofline_fraction, 0);
  // The same cost model at a probe of the same kind: within the node's swings of the run's figure.
  EXPECT_LT(ms[0].rounds_roofline_fraction, 4 * ms[0].roofline_fraction());
  EXPECT_GT(ms[0].rounds_roofline_fraction, ms[0].roofline_fraction() / 4);
  EXPECT_NE(ms[0].rounds_ceiling.find("bandwidth"), std::string::npos) << ms[0].rounds_ceiling;
  EXPECT_NE(ms[0].rounds_ceiling.find("median of 3 STREAM-like probes"), std::string::npos) << ms[0].rounds_ceiling;
  EXPECT_EQ(ms[1].status, galapagos::eval::candidate_status::wrong_result);
  EXPECT_TRUE(std::isnan(ms[1].rounds_roofline_fraction));
  EXPECT_EQ(ms[1].rounds_ceiling, "");
}

TEST_F(Eval, CompileErrorIsAStatusWithTheCompilerMessage) {
  const auto m = ev->evaluate(text("int glp_kernel( {"));
  EXPECT_EQ(m.status, galapagos::eval::candidate_status::compile_error);
  EXPECT_NE(m.reason.find("error"), std::string::npos);
}

TEST_F(Eval, NothingIsCompiledTwice) {
  ge::builder b("g++", std::filesystem::temp_directory_path() / "galapagos-test-cache-2");
  ge::build_request r;
  r.source = source_dir / "tests/data/inline.cpp";
  r.source_text = std::string(copy_only) + "\n// " + std::to_string(::getpid());
  r.flags = {"-O1"};
  r.defines = {"GLP_X=1"};
  r.include_dirs = {(source_dir / "kernels/include").string()};
  const auto first = b.build(r);
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_FALSE(first.cached);
  const auto second = b.build(r);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(first.shared_object, second.shared_object);
  r.defines = {"GLP_X=2"};  // other flags: another object
  const auto third = b.build(r);
  EXPECT_NE(third.key, first.key);
}

// stencil3d7 as shipped but with a reference that exports no checker (glp_check): its timed runs
// are compared with the reference, every one or a secret share of them (verify_fraction).
gf::family without_checker() {
  const auto dir = std::filesystem::temp_directory_path() / ("glp-no-checker-" + std::to_string(::getpid())) / "stencil3d7";
  std::filesystem::create_directories(dir);
  const auto shipped = source_dir / "kernels/stencil3d7";
  std::string toml = galapagos::util::read_file((shipped / "family.toml").string());
  for (const std::string folder : {"cpu/", "cuda/", "hip/", "baselines/"})
    for (std::size_t at = 0; (at = toml.find('"' + folder, at)) != std::string::npos; at += folder.size())
      toml.insert(at + 1, (shipped / "").string());
  std::ofstream(dir / "family.toml") << toml;
  const std::string reference = galapagos::util::read_file((shipped / "reference.cpp").string());
  const auto cut = reference.find("// The checker for timed runs");
  EXPECT_NE(cut, std::string::npos);
  std::ofstream(dir / "reference.cpp") << reference.substr(0, cut);
  return gf::load_family_file(dir / "family.toml");
}

// A second evaluator with other settings, on the same family.
std::unique_ptr<ge::evaluator> evaluator_with(const gf::family& f, double verify_fraction, int compile_jobs,
                                              const std::filesystem::path& cache) {
  ge::eval_settings s;
  s.fitness_size = "small";
  s.checks.seeds = 1;
  s.checks.verify_fraction = verify_fraction;
  s.compile_jobs = compile_jobs;
  s.timing.min_repetitions = 4;
  s.timing.max_repetitions = 6;
  s.timeout_s = 20;
  s.cache_dir = cache;
  return std::make_unique<ge::evaluator>(f, "cpu", s, ge::probe_machine().limits(), 777);
}

// Honest for the first `honest_calls` calls, then leaves the last element of v unwritten: as
// fast as the honest kernel, so only the output checks can catch it.
std::string skips_last_element_after(int honest_calls) {
  return R"(#include "glp_kernel.h"
GLP_EXPORT int glp_kernel(const glp_arg* a, int, const int64_t* s, void*) {
  static int calls = 0;
  const double* u = (const double*)a[0].data; double* v = (double*)a[1].data;
  const int64_t nx = s[0], ny = s[1], nz = s[2], n = nx * ny * nz;
  const int64_t end = ++calls > )" +
         std::to_string(honest_calls) + R"( ? n - 1 : n;
  for (int64_t c = 0; c < end; ++c) {
    const int64_t i = c % nx, j = (c / nx) % ny, k = c / (nx * ny);
    if (i > 0 && i < nx - 1 && j > 0 && j < ny - 1 && k > 0 && k < nz - 1)
      v[c] = (1.0 / 3.0) * u[c] + (1.0 / 9.0) * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx] + u[c - nx * ny] + u[c + nx * ny]);
    else
      v[c] = u[c];
  }
  return 0;
})";
}

TEST_F(Eval, SampledVerificationComparesOnlyTheDrawnRunsButChecksEveryOutput) {
  const auto no_checker = without_checker();
  auto sampled = evaluator_with(no_checker, 0.0, 0, std::filesystem::temp_directory_path() / "galapagos-test-cache");
  const auto& b = family->backend("cpu");
  const auto honest = sampled->evaluate({b.tmpl.source, "", {{"TILE_Y", "8"}}, b.tmpl.flags, {}});
  ASSERT_EQ(honest.status, galapagos::eval::candidate_status::ok) << honest.reason;
  // verify_fraction 0: the acceptance checks and the two warm-up runs only.
  EXPECT_EQ(honest.verified_runs, static_cast<int>(family->accept_sizes.size()) + 2);
  EXPECT_GE(honest.repetitions, 4);
  // A timed run that is not compared with the reference is still checked for unwritten outputs.
  const int honest_calls = static_cast<int>(family->accept_sizes.size()) + 2;
  const auto cheat = sampled->evaluate(text(skips_last_element_after(honest_calls)));
  EXPECT_EQ(cheat.status, galapagos::eval::candidate_status::wrong_result) << cheat.reason;
  EXPECT_NE(cheat.reason.find("1 elements not written"), std::string::npos) << cheat.reason;
  EXPECT_NE(cheat.reason.find("(timed run)"), std::string::npos) << cheat.reason;
  // With every timed run compared, the same cheat fails the same way.
  EXPECT_EQ(ev->evaluate(text(skips_last_element_after(honest_calls))).status, galapagos::eval::candidate_status::wrong_result);
  // A family with a checker has every timed run judged by it, whatever verify_fraction says.
  auto checked = evaluator_with(*family, 0.0, 0, std::filesystem::temp_directory_path() / "galapagos-test-cache");
  const auto all = checked->evaluate({b.tmpl.source, "", {{"TILE_Y", "8"}}, b.tmpl.flags, {}});
  ASSERT_EQ(all.status, galapagos::eval::candidate_status::ok) << all.reason;
  EXPECT_EQ(all.verified_runs, static_cast<int>(family->accept_sizes.size()) + 2 + all.repetitions);
}

TEST_F(Eval, CompileAheadBuildsUpcomingCandidatesInTheBackground) {
  const auto cache = std::filesystem::temp_directory_path() / ("galapagos-test-ahead-" + std::to_string(::getpid()));
  std::filesystem::remove_all(cache);
  auto ahead = evaluator_with(*family, 1.0, 2, cache);
  const auto& b = family->backend("cpu");
  const std::string tmpl = galapagos::util::read_file(b.tmpl.source.string());
  std::vector<ge::candidate_source> upcoming;
  for (const char* tile : {"4", "8", "16"})
    upcoming.push_back({b.tmpl.source,
                        tmpl + "\n// unique to this test run " + std::to_string(::getpid()),
                        {{"TILE_Y", tile}},
                        b.tmpl.flags,
                        {}});
  auto built = [&] {
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(cache)) n += e.path().extension() == ".so";
    return n;
  };
  const int trusted = built();  // the reference, built when the evaluator started
  ahead->compile_ahead(upcoming);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (built() < trusted + 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(built(), trusted + 3) << "nothing was evaluated yet: the objects must come from the background builds";
  for (const auto& c : upcoming) {
    const auto m = ahead->evaluate(c);
    EXPECT_EQ(m.status, galapagos::eval::candidate_status::ok) << m.reason;
    EXPECT_GT(m.compile_time_s, 0) << "the background build's own compile time is reported";
    EXPECT_GT(m.device_time_s, 0);
    EXPECT_LT(m.device_time_s, m.eval_time_s + 1e-9);
  }
  EXPECT_GT(ahead->device_busy_s(), 0);
  ahead.reset();
  std::filesystem::remove_all(cache);
}

TEST(GpuMonitor, PowerComesFromTheStepsOfTheEnergyCounter) {
  // A counter that steps by 50 J every 100 ms (500 W), sampled every 2 ms.
  std::vector<ge::gpu_monitor::sample> samples;
  for (int i = 0; i <= 500; ++i) {
    const double t = 10.0 + 0.002 * i;
    samples.push_back({t, static_cast<std::uint64_t>(50000) * static_cast<std::uint64_t>((t - 10.0 + 1e-9) / 0.1), 1980, 0});
  }
  EXPECT_NEAR(ge::mean_power_w(samples, 10.0, 11.0), 500.0, 1.0);
  EXPECT_NEAR(ge::mean_power_w(samples, 10.05, 10.65), 500.0, 1.0);
  EXPECT_TRUE(std::isnan(ge::mean_power_w(samples, 10.05, 10.12)));  // one step inside: no interval
  EXPECT_TRUE(ge::gpu_monitor::throttled(0x4));                      // software power cap
  EXPECT_TRUE(ge::gpu_monitor::throttled(0x40));                     // hardware thermal slowdown
  EXPECT_FALSE(ge::gpu_monitor::throttled(0x1));                     // idle
  EXPECT_FALSE(ge::gpu_monitor::throttled(0x0));
  EXPECT_EQ(ge::gpu_monitor::open(""), nullptr);
  EXPECT_EQ(ge::gpu_monitor::open("ffff:ff:1f.7"), nullptr);  // no such device, with or without NVML
}

TEST(Builder, AHeaderIncludedByRelativePathIsPartOfTheKey) {
  // kernels/<family>/cuda/x.cu includes "../cuda_hip/x.hpp": editing the shared header rebuilds.
  const auto dir = std::filesystem::temp_directory_path() / ("galapagos-test-includes-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "cpu");
  std::filesystem::create_directories(dir / "shared");
  std::ofstream(dir / "family.toml") << "name = \"x\"\n";  // a family's folder: its cpu/ may include ../shared/
  std::ofstream(dir / "shared/value.hpp") << "#pragma once\n#include \"inner.hpp\"\n";
  std::ofstream(dir / "shared/inner.hpp") << "inline double value() { return 1.0; }\n";
  std::ofstream(dir / "cpu/kernel.cpp") << "#include \"../shared/value.hpp\"\ndouble use() { return value(); }\n";
  ge::builder b("g++", dir / "cache");
  ge::build_request r;
  r.source = dir / "cpu/kernel.cpp";
  r.flags = {"-O1"};
  const auto first = b.build(r);
  ASSERT_TRUE(first.ok) << first.log;
  EXPECT_TRUE(b.build(r).cached);
  std::ofstream(dir / "shared/inner.hpp") << "inline double value() { return 2.0; }\n";  // two levels down
  const auto edited = b.build(r);
  EXPECT_NE(edited.key, first.key);
  EXPECT_FALSE(edited.cached);
  std::filesystem::remove_all(dir);
}

TEST(Builder, TheMacrosABuildSeesComeFromThePreprocessorWithTheFamilysFlags) {
  // gemm's CPU template defines its defaults per precision (#if on GLP_REAL): the macro list of a
  // float64 build and of a float32 build differ where the raw text holds both.
  ge::builder b("g++", std::filesystem::temp_directory_path() / "galapagos-test-cache");
  auto macros_for = [&](const char* name) {
    const auto family = gf::load_family(name, {source_dir / "kernels"});
    ge::build_request r;
    r.source = family.backend("cpu").tmpl.source;
    r.flags = family.backend("cpu").tmpl.flags;
    r.include_dirs = {(source_dir / "kernels/include").string()};
    return b.defined_macros(r);
  };
  const std::string f64 = macros_for("gemm"), f32 = macros_for("gemm_f32");
  EXPECT_NE(f64.find("#define GLP_NC GLP_DEF_NC\n"), std::string::npos) << f64.substr(0, 400);
  EXPECT_NE(f64.find("#define GLP_DEF_NC 1536\n"), std::string::npos);
  EXPECT_EQ(f64.find("#define GLP_DEF_NC 3072\n"), std::string::npos);
  EXPECT_NE(f32.find("#define GLP_DEF_NC 3072\n"), std::string::npos);
  ge::build_request defined;  // a -D of the request wins over the template's #ifndef default
  defined.source = source_dir / "kernels/gemm/cpu/gemm.cpp";
  defined.include_dirs = {(source_dir / "kernels/include").string()};
  defined.defines = {"GLP_MC=48"};
  EXPECT_NE(b.defined_macros(defined).find("#define GLP_MC 48\n"), std::string::npos);
  ge::build_request broken = defined;  // a compiler that fails tells nothing
  broken.flags = {"-DGLP_REAL=float", "-include", "/nonexistent/header.h"};
  EXPECT_EQ(b.defined_macros(broken), "");
  ge::build_request text = defined;  // a text of its own is not the file the compiler would read
  text.source_text = "#define GLP_MC 192\n";
  EXPECT_EQ(b.defined_macros(text), "");
}

TEST(Builder, TheMacrosABuildSeesAreForTheTargetTheToolchainNames) {
  // A GPU toolchain names its target in its shared flags (nvcc -gencode, hipcc --offload-arch); a
  // template that stops with #error below some architecture must be preprocessed for that target,
  // as its build is, not for the compiler's default.
  const auto dir = std::filesystem::temp_directory_path() / ("galapagos-test-target-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "kernel.cpp") << "#ifndef GLP_TARGET_NEW\n#error \"needs the new target\"\n#endif\n#define GLP_TILE 8\n";
  ge::builder b("g++", dir / "cache");
  ge::build_request r;
  r.source = dir / "kernel.cpp";
  r.shared_flags = {"-DGLP_TARGET_NEW", "-fPIC", "-shared"};
  EXPECT_NE(b.defined_macros(r).find("#define GLP_TILE 8\n"), std::string::npos);
  r.shared_flags = {"-fPIC", "-shared"};
  EXPECT_EQ(b.defined_macros(r), "");
  std::filesystem::remove_all(dir);

  // The real case, where nvcc is installed: gemm_f32's CUDA defaults take the cp.async path,
  // which stops with #error before sm_80 (nvcc's default architecture is older).
  std::string nvcc = "/usr/local/cuda/bin/nvcc";
  if (!std::filesystem::exists(nvcc)) GTEST_SKIP() << "no nvcc at " << nvcc;
  const auto family = gf::load_family("gemm_f32", {source_dir / "kernels"});
  ge::builder gpu(nvcc, std::filesystem::temp_directory_path() / "galapagos-test-cache");
  ge::build_request cu;
  cu.compiler = nvcc;
  cu.source = family.backend("cuda").tmpl.source;
  cu.flags = family.backend("cuda").tmpl.flags;
  cu.include_dirs = {(source_dir / "kernels/include").string()};
  cu.shared_flags = {"-gencode", "arch=compute_90,code=sm_90", "-Xcompiler", "-fPIC,-fvisibility=hidden", "-shared"};
  const std::string macros = gpu.defined_macros(cu);
  EXPECT_NE(macros.find("#define GLP_ASYNC 1\n"), std::string::npos) << macros.substr(0, 400);
  EXPECT_NE(macros.find("#define GLP_STAGES 4\n"), std::string::npos);
  EXPECT_NE(macros.find("#define GLP_STREAMK 1\n"), std::string::npos);  // stream-K, so no k splits
  EXPECT_NE(macros.find("#define GLP_SPLITK 1\n"), std::string::npos);

  // gemm's (float64) CUDA defaults are the tensor-core kernel where the target is sm_90 or later
  // (m16n8k8), the SIMT kernel below it: the same source, told apart by the target flags alone.
  const auto f64 = gf::load_family("gemm", {source_dir / "kernels"});
  cu.source = f64.backend("cuda").tmpl.source;
  cu.flags = f64.backend("cuda").tmpl.flags;
  const std::string hopper = gpu.defined_macros(cu);
  for (const char* d : {"MMA 3", "BM 64", "BN 64", "BK 16", "WM 32", "WN 32", "TM 1", "TN 1", "DOUBLE_BUFFER 1", "VEC 1",
                        "SPLITK 1", "STREAMK 0", "STAGES 2", "BLOCKS_PER_SM 4"})
    EXPECT_NE(hopper.find(std::string("#define GLP_") + d + "\n"), std::string::npos) << d << ": " << hopper.substr(0, 400);
  cu.shared_flags[1] = "arch=compute_80,code=sm_80";
  const std::string ampere = gpu.defined_macros(cu);
  EXPECT_EQ(ampere.find("#define GLP_MMA 3\n"), std::string::npos) << ampere.substr(0, 400);
  EXPECT_NE(ampere.find("#define GLP_MMA 0\n"), std::string::npos);
}

TEST(Builder, ProgramsStartWithTheStopSignalsBlocked) {
  // srun sends the stop signal to every process of the job: a compiler must outlive it.
  std::string out;
  EXPECT_EQ(ge::run_program({"sh", "-c", "kill -USR1 $$; kill -TERM $$; echo alive"}, out, 10), 0) << out;
  EXPECT_EQ(out, "alive\n");
}

TEST(Symbols, OnlyTheEntryPointMayBeExported) {
  using S = ge::exported_symbol;
  EXPECT_EQ(ge::check_exports({{"glp_kernel", false, true}, {"_init", false, true}}, "glp_kernel"), "");
  EXPECT_EQ(ge::check_exports({{"glp_kernel", false, true}, {"glp_setup", false, true}}, "glp_kernel"), "");
  EXPECT_EQ(ge::check_exports({{"glp_kernel", false, true}, {"_ZNSt6vectorIdSaIdEE9push_backERKd", true, true}}, "glp_kernel"),
            "");
  EXPECT_NE(ge::check_exports({{"glp_kernel", false, true}, {"clock_gettime", false, true}}, "glp_kernel").find("clock_gettime"),
            std::string::npos);
  EXPECT_NE(ge::check_exports({{"glp_kernel", false, true}, {"omp_get_wtime", true, true}}, "glp_kernel").find("reserved"),
            std::string::npos);
  EXPECT_NE(ge::check_exports({{"glp_kernel", false, true}, {"_Znwm", true, true}}, "glp_kernel").find("reserved"),
            std::string::npos);
  EXPECT_NE(ge::check_exports({{"glp_kernel", false, true}, {"helper", false, true}}, "glp_kernel").find("besides"),
            std::string::npos);
  EXPECT_NE(ge::check_exports({S{"other", false, true}}, "glp_kernel"), "");
}

TEST(Statistics, MedianMinAndInterquartileRange) {
  const auto s = ge::summarize({5, 1, 4, 2, 3});
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.iqr, 2);
  EXPECT_DOUBLE_EQ(ge::summarize({2, 4}).median, 3);
}

// The cache the probe and the flush are sized by is what the process's cores can fill, never the
// whole socket's L3 that a VM on a few cores of a many-chiplet processor is told (480 MiB seen on
// a 2-core VM: a probe of 3 x 8 x that ran the node out of memory).
TEST(Probe, LastLevelCacheIsBoundedByTheCoresThatCanFillIt) {
  const std::size_t reported = ge::reported_llc_bytes();
  for (const int cores : {1, 2, 4, 64, 512}) {
    const std::size_t llc = ge::last_level_cache_bytes(cores);
    const std::size_t reach = std::max(ge::kLlcFloorBytes, static_cast<std::size_t>(cores) * ge::kLlcPerCoreBytes);
    EXPECT_GT(llc, 0u);
    EXPECT_LE(llc, reach) << cores << " cores";
    if (reported > 0) EXPECT_EQ(llc, std::min(reported, reach)) << cores << " cores";
  }
  EXPECT_GT(ge::available_memory_bytes(), 0u);
  const auto p = ge::describe_machine();
  EXPECT_EQ(p.llc_bytes, ge::last_level_cache_bytes(p.cores));
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
