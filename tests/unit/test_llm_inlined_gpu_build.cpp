// The shipped CUDA and HIP templates with their shared kernels inlined (what a model edits) still
// compile on their own, written away from the template's folder, with the commands of
// tools/check-gpu-templates.sh; and an edit of an inlined kernel is what gets compiled. HIP with
// hipcc for gfx90a (no GPU needed), CUDA with nvcc for sm_90 where nvcc is installed; each
// skipped with a message where its compiler is missing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "propose/llm/edits.hpp"
#include "propose/llm/local_includes.hpp"

namespace fs = std::filesystem;
namespace gp = galapagos::propose;

namespace {

const fs::path source_dir = GALAPAGOS_SOURCE_DIR;

std::string find_compiler(const std::string& name, const std::string& fallback) {
  if (std::system(("command -v " + name + " > /dev/null 2>&1").c_str()) == 0) return name;
  return fs::exists(fallback) ? fallback : "";
}

class InlinedGpuBuild : public ::testing::Test {
 protected:
  void SetUp() override {
    work = fs::temp_directory_path() / ("glp_inlined_gpu_build_" + std::to_string(::getpid()));
    fs::create_directories(work);
  }
  void TearDown() override { fs::remove_all(work); }

  // Compiles `text` written as work/NAME; true when the compiler succeeds. `log`: its words.
  bool compiles(const std::string& compiler, const std::string& flags, const std::string& text, const std::string& name,
                std::string& log) {
    const fs::path src = work / name, log_file = work / (name + ".log");
    std::ofstream(src) << text;
    const std::string cmd = compiler + " " + flags + " -I " + (source_dir / "kernels" / "include").string() + " " + src.string() +
                            " -o " + (work / (name + ".so")).string() + " > " + log_file.string() + " 2>&1";
    const int rc = std::system(cmd.c_str());
    std::ifstream in(log_file);
    log.assign(std::istreambuf_iterator<char>(in), {});
    return rc == 0;
  }

  void build_all(const std::string& compiler, const std::string& flags, const std::string& backend, const std::string& ext) {
    for (const std::string family : {"stencil3d7", "spmv", "gemm"}) {
      const fs::path tmpl = source_dir / "kernels" / family / backend / (family + ext);
      const auto r = gp::inline_local_includes(tmpl, source_dir / "kernels" / family);
      EXPECT_FALSE(r.files.empty()) << tmpl;
      std::string log;
      EXPECT_TRUE(compiles(compiler, flags, r.text, family + ext, log)) << tmpl << ":\n" << log;
    }
  }

  // An edit inside the inlined stencil3d7 kernel: a valid one compiles, a broken one does not
  // (the compiler reads the edited text, not the header in the template's folder).
  void build_edited(const std::string& compiler, const std::string& flags, const std::string& backend, const std::string& ext) {
    const fs::path tmpl = source_dir / "kernels" / "stencil3d7" / backend / ("stencil3d7" + ext);
    const std::string t = gp::inline_local_includes(tmpl, source_dir / "kernels" / "stencil3d7").text;
    const std::string line = "  __shared__ double plane[BY + 2][TX + 2];\n";
    const auto good = gp::apply_edits(t, {{line, "  __shared__ double plane[BY + 2][TX + 2 + 1];  // padded\n"}});
    ASSERT_EQ(good.applied(), 1) << good.outcomes[0].reason;
    const auto bad = gp::apply_edits(t, {{line, "  __shared__ double plane[BY + 2][TX + 2] = not_declared;\n"}});
    ASSERT_EQ(bad.applied(), 1);
    const std::string shared = flags + " -DGLP_SHARED=1 -DGLP_Z_MARCH=0";
    std::string log;
    EXPECT_TRUE(compiles(compiler, shared, good.source, "good" + ext, log)) << log;
    EXPECT_FALSE(compiles(compiler, shared, bad.source, "bad" + ext, log));
    EXPECT_NE(log.find("not_declared"), std::string::npos) << log;
  }

  fs::path work;
};

const std::string hip_flags = "--offload-arch=gfx90a -std=c++17 -O3 -fPIC -shared -fvisibility=hidden";
const std::string cuda_flags = "-std=c++17 -O3 -gencode arch=compute_90,code=sm_90 -Xcompiler -fPIC,-fvisibility=hidden -shared";

}  // namespace

TEST_F(InlinedGpuBuild, HipTemplatesCompile) {
  const std::string hipcc = find_compiler("hipcc", "/opt/rocm/bin/hipcc");
  if (hipcc.empty()) GTEST_SKIP() << "hipcc not found: the HIP templates are not compiled here";
  build_all(hipcc, hip_flags, "hip", ".hip");
}

TEST_F(InlinedGpuBuild, HipKernelEditIsCompiled) {
  const std::string hipcc = find_compiler("hipcc", "/opt/rocm/bin/hipcc");
  if (hipcc.empty()) GTEST_SKIP() << "hipcc not found: the HIP templates are not compiled here";
  build_edited(hipcc, hip_flags, "hip", ".hip");
}

TEST_F(InlinedGpuBuild, CudaTemplatesCompile) {
  const std::string nvcc = find_compiler("nvcc", "/usr/local/cuda/bin/nvcc");
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found: the CUDA templates are not compiled here";
  build_all(nvcc, cuda_flags, "cuda", ".cu");
}

TEST_F(InlinedGpuBuild, CudaKernelEditIsCompiled) {
  const std::string nvcc = find_compiler("nvcc", "/usr/local/cuda/bin/nvcc");
  if (nvcc.empty()) GTEST_SKIP() << "nvcc not found: the CUDA templates are not compiled here";
  build_edited(nvcc, cuda_flags, "cuda", ".cu");
}
