// The compiler sandbox, the read checks around it and the build cache key (docs/threat-model.md,
// "The compiler").
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "eval/builder.hpp"
#include "eval/compile_sandbox.hpp"
#include "eval/source_guard.hpp"
#include "util/hash.hpp"

namespace ge = galapagos::eval;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& what) {
  const auto d = fs::temp_directory_path() / ("galapagos-test-" + what + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// A family-shaped folder: family.toml, cpu/ with the candidate, shared/ with a header.
struct family_folder {
  fs::path root = fresh_dir("family");
  ge::read_roots roots;
  std::vector<fs::path> bases;
  family_folder() {
    fs::create_directories(root / "cpu");
    fs::create_directories(root / "shared");
    std::ofstream(root / "family.toml") << "name = \"x\"\n";
    std::ofstream(root / "shared/value.hpp") << "inline double value() { return 1.0; }\n";
    roots.add(root);
    roots.add("/usr/include");
    bases = {root / "cpu"};
  }
  ~family_folder() { fs::remove_all(root); }
  std::string scan(const std::string& text) const { return ge::scan_source(text, "k.cpp", bases, roots); }
};

bool quotes_passwd(const std::string& s) {
  std::ifstream in("/etc/passwd");
  for (std::string line; std::getline(in, line);)
    if (line.size() >= 8 && s.find(line) != std::string::npos) return true;
  return s.find("root:x:0") != std::string::npos;
}

}  // namespace

TEST(SourceScan, RefusesEveryWayOfNamingAFileToRead) {
  family_folder f;
  for (const char* text :
       {"#include \"/etc/passwd\"\n", "#include </dev/zero>\n", "  #  include_next \"/proc/self/fd/1\"\n",
        "%:include \"/etc/passwd\"\n", "#inc\\\nlude \"/etc/passwd\"\n", "# /* x */ include </etc/passwd>\n",
        "#include \"../../../../../../etc/passwd\"\n", "#include <../../etc/passwd>\n", "#define P </etc/passwd>\n#include P\n",
        "#if __has_include(\"/root/.ssh/id_rsa\")\n#endif\n", "#if __has_include_next(</etc/shadow>)\n#endif\n",
        "#embed \"/etc/passwd\"\n", "#pragma GCC dependency \"/etc/passwd\"\n",
        "_Pragma(\"GCC dependency \\\"/etc/passwd\\\"\")\n", "asm(\".incbin \\\"/etc/passwd\\\"\");\n",
        "asm(\".INCLUDE \\\"/etc/passwd\\\"\");\n", "#include \"../shared/missing.hpp\"\n"}) {
    const std::string why = f.scan(text);
    EXPECT_NE(why.find("k.cpp:"), std::string::npos) << "not refused: " << text;
    EXPECT_NE(why.find("error: refused"), std::string::npos) << text;
  }
  EXPECT_NE(f.scan("int a;\n\n#include \"/etc/passwd\"\n").find("k.cpp:3:"), std::string::npos);  // the line
}

TEST(SourceScan, AcceptsHonestSources) {
  family_folder f;
  EXPECT_EQ(f.scan("#include \"../shared/value.hpp\"\n#include <vector>\n#include \"glp_kernel.h\"\n"
                   "#if __has_include(<omp.h>)\n#endif\n"
                   "// #include \"/etc/passwd\" in a comment\n/* .incbin in a comment */\n"
                   "const long big = 1'000'000; const char c = '\"';\n"
                   "const char* r = R\"x(#include \"quoted\")x\";\n"
                   "#pragma omp parallel for\n_Pragma(\"GCC unroll 4\")\n"),
            "");
}

TEST(SourceScan, DependencyListOutsideTheRootsIsFound) {
  family_folder f;
  EXPECT_EQ(ge::reads_outside("k.so: k.cpp /usr/include/stdio.h \\\n " + (f.root / "shared/value.hpp").string() + "\n",
                              f.root / "cpu", f.roots),
            "");
  EXPECT_EQ(ge::reads_outside("k.so: k.cpp /usr/include/stdio.h \\\n /etc/passwd\n", f.root / "cpu", f.roots), "/etc/passwd");
  // nvcc writes the colon apart from the target.
  EXPECT_EQ(ge::reads_outside("/tmp/b/out.so : k.cpp \\\n /usr/include/stdio.h\n", f.root / "cpu", f.roots), "");
  EXPECT_EQ(ge::reads_outside("/tmp/b/out.so : k.cpp /etc/passwd\n", f.root / "cpu", f.roots), "/etc/passwd");
  fs::create_symlink("/etc/passwd", f.root / "cpu/link.h");  // inside by name, outside in fact
  EXPECT_EQ(ge::reads_outside("k.so: link.h\n", f.root / "cpu", f.roots), "link.h");
}

TEST(SourceScan, DiagnosticsQuoteOnlyTheCandidate) {
  const std::string log =
      "In file included from k.cpp:2:\n"
      "/etc/passwd:1:5: error: found ':' in nested-name-specifier, expected '::'\n"
      "    1 | root:x:0:0:root:/root:/bin/bash\n"
      "      |     ^\n"
      "k.cpp:7:3: error: 'x' was not declared in this scope\n"
      "    7 |   x = 1;\n"
      "      |   ^\n"
      "/etc/passwd: Assembler messages:\n"
      "/etc/passwd:15: Error: no such instruction: `daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin'\n"
      "k.cu(12): error: identifier \"y\" is undefined\n"
      "      y = 2;\n"
      "compilation terminated.\n";
  const std::string kept = ge::candidate_diagnostics(log, "k.cpp", "/private/tmp");
  EXPECT_EQ(kept.find("root:x:0"), std::string::npos) << kept;
  EXPECT_EQ(kept.find("daemon:x:1"), std::string::npos) << kept;
  EXPECT_NE(kept.find("k.cpp:7:3: error: 'x' was not declared"), std::string::npos) << kept;
  EXPECT_NE(kept.find("    7 |   x = 1;"), std::string::npos) << kept;
  EXPECT_NE(kept.find("In file included from k.cpp:2:"), std::string::npos) << kept;
  EXPECT_NE(kept.find("compilation terminated."), std::string::npos) << kept;
  EXPECT_NE(kept.find("lines about other files left out"), std::string::npos) << kept;
  EXPECT_LE(ge::candidate_diagnostics(std::string(100000, 'k') + "\n", "kkkk", "/p", 1000).size(), 1100u);
}

TEST(CompileSandbox, CleanEnvironmentLimitsAndNoInput) {
  ::setenv("GALAPAGOS_TEST_API_KEY", "sk-secret", 1);
  const auto dir = fresh_dir("sandbox-env");
  auto l = ge::compile_limits_for(30);
  const auto r = ge::run_compiler({"sh", "-c", "env; ulimit -f; ulimit -v; cat; echo read-done; ls /proc/self/fd"}, dir,
                                  dir / "log", ge::compiler_environment("g++", dir), l);
  ASSERT_TRUE(r.started) << r.error;
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("sk-secret"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("HOME=" + dir.string()), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("LANG=C"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(std::to_string((256ull << 20) / 512)), std::string::npos) << r.output;  // ulimit -f: 512-byte blocks
  EXPECT_NE(r.output.find(std::to_string((8ull << 30) / 1024)), std::string::npos) << r.output;   // ulimit -v: KiB
  EXPECT_NE(r.output.find("read-done"), std::string::npos) << r.output;  // stdin is /dev/null: cat ends at once
  ::unsetenv("GALAPAGOS_TEST_API_KEY");
  fs::remove_all(dir);
}

TEST(CompileSandbox, NoNetworkWhereTheKernelAllowsANamespace) {
  const pid_t probe = fork();
  if (probe == 0) _exit(unshare(CLONE_NEWNET) == 0 || unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0 ? 0 : 1);
  int st = 0;
  waitpid(probe, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) GTEST_SKIP() << "this kernel refuses network namespaces here";
  const auto dir = fresh_dir("sandbox-net");
  const auto r = ge::run_compiler({"sh", "-c", "tail -n +3 /proc/net/dev"}, dir, dir / "log", ge::compiler_environment("sh", dir),
                                  ge::compile_limits_for(30));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("lo:"), std::string::npos) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << "interfaces besides lo:\n" << r.output;
  fs::remove_all(dir);
}

TEST(CompileSandbox, TheWholeGroupDiesOnTimeOutAndWithGalapagos) {
  const auto dir = fresh_dir("sandbox-kill");
  const std::string script = "sleep 300 & echo $! > " + (dir / "pids").string() + "; wait";
  auto gone = [](pid_t p) {
    for (int i = 0; i < 200; ++i) {
      std::ifstream stat("/proc/" + std::to_string(p) + "/stat");
      std::string pid, comm, state;
      if (!(stat >> pid >> comm >> state) || state == "Z") return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return false;
  };
  auto read_pid = [&] {
    for (int i = 0; i < 400; ++i) {
      std::ifstream in(dir / "pids");
      pid_t p = 0;
      if (in >> p && p > 0) return p;
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    return pid_t{0};
  };
  // Time-out: the grandchild (a stand-in for cc1plus) dies with the driver.
  auto l = ge::compile_limits_for(1);
  const auto r = ge::run_compiler({"sh", "-c", script}, dir, dir / "log", ge::compiler_environment("sh", dir), l);
  EXPECT_TRUE(r.timed_out);
  const pid_t first = read_pid();
  ASSERT_GT(first, 0);
  EXPECT_TRUE(gone(first));
  fs::remove(dir / "pids");
  // The orchestrator killed mid-compile: the compiler's whole group follows it.
  const pid_t orchestrator = fork();
  if (orchestrator == 0) {
    ge::run_compiler({"sh", "-c", script}, dir, dir / "log", ge::compiler_environment("sh", dir), ge::compile_limits_for(600));
    _exit(0);
  }
  const pid_t second = read_pid();
  ASSERT_GT(second, 0);
  kill(orchestrator, SIGKILL);
  waitpid(orchestrator, nullptr, 0);
  EXPECT_TRUE(gone(second));
  fs::remove_all(dir);
}

TEST(BuildCache, KeyNamesTheResolvedProcessorOnlyForNativeBuilds) {
  ge::build_request r;
  r.source_text = "int x;\n";
  r.flags = {"-O2", "-march=native"};
  const auto a = ge::build_key(r, "g++ 12", "-march= znver3"), b = ge::build_key(r, "g++ 12", "-march= sapphirerapids");
  EXPECT_NE(a, b);
  EXPECT_EQ(a.size(), 64u);  // SHA-256
  r.flags = {"-O2", "-march=x86-64-v3"};
  EXPECT_EQ(ge::build_key(r, "g++ 12", "-march= znver3"), ge::build_key(r, "g++ 12", "-march= sapphirerapids"));
  EXPECT_NE(ge::processor_identity("g++").find("-march="), std::string::npos) << ge::processor_identity("g++");
  EXPECT_EQ(galapagos::util::sha256().add("abc").hex(), galapagos::util::sha256().add("abc").hex());
  EXPECT_NE(galapagos::util::sha256().add("ab").add("c").hex(), galapagos::util::sha256().add("a").add("bc").hex());
}

TEST(BuildCache, PruningKeepsTheCacheUnderItsLimitDroppingTheLeastRecentlyUsed) {
  const auto dir = fresh_dir("prune");
  const auto now = fs::file_time_type::clock::now();
  for (int i = 0; i < 10; ++i) {
    const std::string key = "key" + std::to_string(i);
    std::ofstream(dir / (key + ".so")) << std::string(1000, 'x');
    std::ofstream(dir / (key + ".cpp")) << std::string(100, 'y');
    for (const char* ext : {".so", ".cpp"}) fs::last_write_time(dir / (key + ext), now - std::chrono::hours(10 - i));
  }
  fs::create_directories(dir / "tmp/build-x");
  std::ofstream(dir / "tmp/build-x/out.so") << std::string(5000, 'z');  // in flight: never pruned
  ge::prune_cache(dir, 3500);
  std::uintmax_t total = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file()) total += e.file_size();
  EXPECT_LE(total, 3500u);
  EXPECT_TRUE(fs::exists(dir / "key9.so"));  // the most recently used stay
  EXPECT_TRUE(fs::exists(dir / "key8.so"));
  EXPECT_FALSE(fs::exists(dir / "key0.so"));
  EXPECT_FALSE(fs::exists(dir / "key0.cpp"));  // an entry goes whole
  EXPECT_TRUE(fs::exists(dir / "tmp/build-x/out.so"));
  fs::remove_all(dir);
}

TEST(BuildCache, AKilledCompileIsNotCached) {
  const auto dir = fresh_dir("killed");
  ge::build_request r;
  r.source = dir / "slow.cpp";
  // Deep template recursion: seconds of compiling, far past the first builder's limit.
  r.source_text =
      "#include <regex>\n#include <iostream>\ntemplate <int N> struct f { static constexpr long v = f<N - 1>::v + f<N - 2>::v % "
      "7; };\n"
      "template <> struct f<0> { static constexpr long v = 1; };\ntemplate <> struct f<1> { static constexpr long v = 1; };\n"
      "long use() { std::regex e(\"a+\"); return f<900>::v + std::regex_match(\"aa\", e); }\n";
  r.flags = {"-O1", "-ftemplate-depth=2000"};
  const auto first = ge::builder("g++", dir / "cache", 0.05).build(r);
  EXPECT_FALSE(first.ok);
  EXPECT_TRUE(first.killed) << first.log;
  EXPECT_NE(first.log.find("time-out"), std::string::npos) << first.log;
  const auto second = ge::builder("g++", dir / "cache", 300).build(r);
  EXPECT_FALSE(second.cached) << second.log;
  EXPECT_TRUE(second.ok) << second.log;
  fs::remove_all(dir);
}

TEST(BuildCache, ACompileThatReadsOutsideTheRootsIsRefusedWithoutItsContent) {
  family_folder f;
  fs::create_symlink("/etc/passwd", f.root / "cpu/secret.h");  // passes the scan: no "..", not absolute
  std::ofstream(f.root / "cpu/k.cpp") << "#include \"secret.h\"\nint x;\n";
  ge::build_request r;
  r.source = f.root / "cpu/k.cpp";
  const auto built = ge::builder("g++", f.root / "cache").build(r);
  EXPECT_FALSE(built.ok);
  EXPECT_FALSE(quotes_passwd(built.log)) << built.log;
  EXPECT_NE(built.log.find("outside the folders"), std::string::npos) << built.log;
  // Refused before compiling: absolute, computed, assembler.
  for (const char* text :
       {"#include \"/etc/passwd\"\n", "#define P </etc/passwd>\n#include P\n", "asm(\".incbin \\\"/etc/passwd\\\"\");\n"}) {
    r.source_text = text;
    const auto b = ge::builder("g++", f.root / "cache").build(r);
    EXPECT_FALSE(b.ok);
    EXPECT_EQ(b.compile_time_s, 0);
    EXPECT_FALSE(quotes_passwd(b.log)) << b.log;
  }
}

TEST(BuildCache, HonestSourcesStillBuildAndDiagnosticsStayUseful) {
  family_folder f;
  std::ofstream(f.root / "cpu/k.cpp")
      << "#include \"../shared/value.hpp\"\n#include <vector>\nextern \"C\" double use() { return value(); }\n";
  ge::build_request r;
  r.source = f.root / "cpu/k.cpp";
  r.flags = {"-O2", "-march=native"};
  const auto ok = ge::builder("g++", f.root / "cache").build(r);
  ASSERT_TRUE(ok.ok) << ok.log;
  r.source_text = "#include <vector>\nint broken( {\n";
  const auto bad = ge::builder("g++", f.root / "cache").build(r);
  EXPECT_FALSE(bad.ok);
  EXPECT_FALSE(bad.killed);
  EXPECT_NE(bad.log.find("k.cpp:2:"), std::string::npos) << bad.log;
  EXPECT_TRUE(ge::builder("g++", f.root / "cache").build(r).cached);  // a diagnostic is data: cached
}

TEST(BuildCache, NvccBuildsThroughTheSandbox) {
  const fs::path nvcc = "/usr/local/cuda/bin/nvcc";
  if (!fs::exists(nvcc)) GTEST_SKIP() << "no CUDA toolkit at " << nvcc;
  family_folder f;
  std::ofstream(f.root / "shared/scale.hpp") << "#define GLP_SCALE 2.0\n";
  std::ofstream(f.root / "cpu/k.cu") << "#include \"../shared/scale.hpp\"\n__global__ void k(double* x) { *x *= GLP_SCALE; }\n"
                                        "extern \"C\" int run(double* x) { k<<<1, 1>>>(x); return 0; }\n";
  ge::build_request r;
  r.compiler = nvcc.string();
  r.shared_flags = {"-gencode", "arch=compute_90,code=sm_90", "-Xcompiler", "-fPIC,-fvisibility=hidden", "-shared"};
  r.source = f.root / "cpu/k.cu";
  r.flags = {"-std=c++17", "-O3"};
  const auto ok = ge::builder("g++", f.root / "cache").build(r);
  EXPECT_TRUE(ok.ok) << ok.log;
  r.source_text = "__global__ void k(double* x) { *x = undeclared; }\n";
  const auto bad = ge::builder("g++", f.root / "cache").build(r);
  EXPECT_FALSE(bad.ok);
  EXPECT_FALSE(bad.killed) << bad.log;
  EXPECT_NE(bad.log.find("k.cu("), std::string::npos) << bad.log;
}
