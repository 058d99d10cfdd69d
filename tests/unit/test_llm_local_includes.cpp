// A template's local includes inlined for a model (propose/llm/local_includes.hpp): a family
// folder written out here, then the shipped CUDA and HIP templates.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "propose/llm/edits.hpp"
#include "propose/llm/local_includes.hpp"
#include "util/hash.hpp"

namespace fs = std::filesystem;
namespace gp = galapagos::propose;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

std::string block(const std::string& search, const std::string& replace) {
  return "<<<<<<< SEARCH\n" + search + "=======\n" + replace + ">>>>>>> REPLACE\n";
}

class LocalIncludes : public ::testing::Test {
 protected:
  void SetUp() override {
    top = fs::temp_directory_path() / ("glp_local_includes_" + std::to_string(::getpid()));
    fs::remove_all(top);
    family = top / "fam";
    write(top / "outside.h", "int outside_value = 1;\n");
    write(family / "shared" / "kernels.h",
          "#pragma once\n#include \"glp_kernel.h\"\n#include \"helpers.h\"\nstatic double scale(double x) { return 2 * x; }\n");
    write(family / "shared" / "helpers.h", "#pragma once\nstatic double twice(double x) { return x + x; }\n");
    write(family / "cpu" / "t.c",
          "// a template\n#include <stdint.h>\n#include \"glp_kernel.h\"\n#include \"../shared/kernels.h\"\n"
          "#include \"../shared/helpers.h\"\n#include \"../../outside.h\"\n#include \"missing.h\"\n"
          "// galapagos:evolve-begin\nint glp_kernel(void) { return (int)scale(twice(1)); }\n// galapagos:evolve-end\n");
  }
  void TearDown() override { fs::remove_all(top); }
  fs::path top, family;
};

}  // namespace

TEST_F(LocalIncludes, InlinesLocalHeadersOnceAndLeavesTheOthers) {
  const auto r = gp::inline_local_includes(family / "cpu" / "t.c", family);
  const std::string& t = r.text;
  ASSERT_EQ(r.files.size(), 2u);
  EXPECT_EQ(r.files[0].filename(), "kernels.h");
  EXPECT_EQ(r.files[1].filename(), "helpers.h");  // included by kernels.h, inlined there
  EXPECT_EQ(count(t, "static double scale"), 1u);
  EXPECT_EQ(count(t, "static double twice"), 1u);
  EXPECT_LT(t.find("static double twice"), t.find("static double scale"));  // where kernels.h included it
  EXPECT_EQ(count(t, "#include \"../shared/"), 0u);
  EXPECT_EQ(count(t, "#include \"helpers.h\""), 0u);
  EXPECT_EQ(count(t, "#pragma once"), 0u);
  EXPECT_EQ(count(t, "#include \"glp_kernel.h\""), 2u);  // found through -I: the template's and kernels.h's
  EXPECT_EQ(count(t, "#include <stdint.h>"), 1u);
  EXPECT_EQ(count(t, "#include \"../../outside.h\""), 1u);  // outside the family's folder
  EXPECT_EQ(count(t, "#include \"missing.h\""), 1u);
  EXPECT_EQ(count(t, "galapagos:inline-begin ../shared/kernels.h (shared/kernels.h"), 1u);
  EXPECT_EQ(count(t, "galapagos:inline-begin helpers.h (shared/helpers.h"), 1u);
  EXPECT_EQ(count(t, "galapagos:inlined already: ../shared/helpers.h"), 1u);
  // One region for kernels.h (helpers.h inside it, not nested), and the template's own.
  EXPECT_EQ(count(t, "galapagos:evolve-begin"), 2u);
  EXPECT_EQ(count(t, "galapagos:evolve-end"), 2u);
  EXPECT_LT(t.find("galapagos:evolve-begin"), t.find("static double twice"));
  EXPECT_LT(t.find("static double scale"), t.find("galapagos:evolve-end"));
}

TEST_F(LocalIncludes, TheInlinedHeadersCanBeEditedButTheirMarkersNot) {
  const std::string t = gp::inline_local_includes(family / "cpu" / "t.c", family).text;
  const auto e = gp::apply_edits(
      t, {{"static double twice(double x) { return x + x; }\n", "static double twice(double x) { return 2.0 * x; }\n"},
          {"static double scale(double x) { return 2 * x; }\n", "static double scale(double x) { return x; }\n"}});
  EXPECT_EQ(e.applied(), 2);
  EXPECT_NE(e.source.find("return 2.0 * x;"), std::string::npos);
  EXPECT_NE(e.source.find("static double scale(double x) { return x; }"), std::string::npos);
  const auto refused = gp::apply_edits(t, {{"#include <stdint.h>\n", ""}, {"// galapagos:evolve-end\n", ""}});
  EXPECT_EQ(refused.applied(), 0);
}

TEST_F(LocalIncludes, AnIncludeInsideARegionIsInlinedWithoutNewMarkers) {
  write(family / "cpu" / "u.c",
        "// galapagos:evolve-begin\n#include \"../shared/helpers.h\"\nint f(void) { return 1; }\n"
        "// galapagos:evolve-end\n");
  const std::string t = gp::inline_local_includes(family / "cpu" / "u.c", family).text;
  EXPECT_EQ(count(t, "galapagos:evolve-begin"), 1u);
  EXPECT_EQ(count(t, "static double twice"), 1u);
  EXPECT_EQ(gp::apply_edits(t, {{"static double twice(double x) { return x + x; }\n", "\n"}}).applied(), 1);
}

TEST_F(LocalIncludes, WindowsLineEndsAndSpacedIncludesAreInlined) {
  write(family / "cpu" / "w.c",
        "#include \"../shared/helpers.h\"\r\n  #  include \"../shared/kernels.h\" // kernels\r\nint y;\r\n");
  const auto r = gp::inline_local_includes(family / "cpu" / "w.c", family);
  EXPECT_EQ(r.files.size(), 2u);
  EXPECT_EQ(count(r.text, "#include \"../shared/"), 0u);
  EXPECT_EQ(count(r.text, "include \"../shared/kernels.h\""), 0u);
  EXPECT_EQ(count(r.text, "int y;\r\n"), 1u);
}

TEST_F(LocalIncludes, ASourceWithoutLocalIncludesIsUnchanged) {
  write(family / "cpu" / "plain.c", "#include \"glp_kernel.h\"\nint x;");  // no final line break
  EXPECT_EQ(gp::inline_local_includes(family / "cpu" / "plain.c", family).text, "#include \"glp_kernel.h\"\nint x;");
  const fs::path kernels = fs::path(GALAPAGOS_SOURCE_DIR) / "kernels";
  int checked = 0;
  for (const auto& f : fs::directory_iterator(kernels)) {
    if (!fs::is_directory(f.path() / "cpu")) continue;
    for (const auto& t : fs::directory_iterator(f.path() / "cpu")) {
      const auto r = gp::inline_local_includes(t.path(), f.path());
      EXPECT_TRUE(r.files.empty()) << t.path();
      EXPECT_EQ(r.text, galapagos::util::read_file(t.path().string())) << t.path();
      ++checked;
    }
  }
  EXPECT_GT(checked, 2);
}

// split_inlined: the inlined text taken apart again into the files it was made of (for review).
TEST_F(LocalIncludes, SplitGivesBackEveryFileAsItReads) {
  write(family / "cpu" / "u.c",
        "// galapagos:evolve-begin\n#include \"../shared/helpers.h\"\nint f(void) { return 1; }\n"
        "// galapagos:evolve-end\n");
  write(family / "cpu" / "w.c",
        "#include \"../shared/helpers.h\"\r\n  #  include \"../shared/kernels.h\" // kernels\r\nint y;\r\n");
  write(family / "cpu" / "plain.c", "#include \"glp_kernel.h\"\nint x;");
  for (const char* name : {"t.c", "u.c", "w.c", "plain.c"}) {
    const fs::path source = family / "cpu" / name;
    const auto inlined = gp::inline_local_includes(source, family);
    const auto s = gp::split_inlined(inlined.text, source, family);
    ASSERT_TRUE(s.has_value()) << name;
    EXPECT_EQ(s->text, galapagos::util::read_file(source.string())) << name;
    ASSERT_EQ(s->headers.size(), inlined.files.size()) << name;
    for (std::size_t i = 0; i < s->headers.size(); ++i) {
      EXPECT_EQ(s->headers[i].file, inlined.files[i]) << name;
      EXPECT_EQ(s->headers[i].text, galapagos::util::read_file(inlined.files[i].string())) << name << " " << inlined.files[i];
    }
  }
}

TEST_F(LocalIncludes, SplitCarriesAnEditToTheHeaderItWasMadeIn) {
  const fs::path source = family / "cpu" / "t.c";
  const std::string t = gp::inline_local_includes(source, family).text;
  const auto e = gp::apply_edits(
      t, {{"static double twice(double x) { return x + x; }\n", "static double twice(double x) { return 2.0 * x; }\n"},
          {"int glp_kernel(void) { return (int)scale(twice(1)); }\n", "int glp_kernel(void) { return (int)twice(1); }\n"}});
  ASSERT_EQ(e.applied(), 2);
  const auto s = gp::split_inlined(e.source, source, family);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(count(s->text, "#include \"../shared/kernels.h\"\n"), 1u);
  EXPECT_EQ(count(s->text, "#include \"../shared/helpers.h\"\n"), 1u);  // the comment that replaced it, back
  EXPECT_EQ(count(s->text, "return (int)twice(1);"), 1u);
  EXPECT_EQ(count(s->text, "galapagos:inline"), 0u);
  ASSERT_EQ(s->headers.size(), 2u);
  EXPECT_EQ(s->headers[0].text, galapagos::util::read_file((family / "shared" / "kernels.h").string()));
  EXPECT_EQ(s->headers[1].text, "#pragma once\nstatic double twice(double x) { return 2.0 * x; }\n");
}

TEST_F(LocalIncludes, SplitRefusesATextWhoseBlocksDoNotPair) {
  const fs::path source = family / "cpu" / "t.c";
  const std::string t = gp::inline_local_includes(source, family).text;
  const auto drop_line = [&](const std::string& prefix) {
    const auto at = t.find(prefix);
    return t.substr(0, at) + t.substr(t.find('\n', at) + 1);
  };
  EXPECT_FALSE(gp::split_inlined(drop_line("// galapagos:inline-end helpers.h"), source, family));    // a block left open
  EXPECT_FALSE(gp::split_inlined(drop_line("// galapagos:inline-begin helpers.h"), source, family));  // an end of nothing
  EXPECT_FALSE(gp::split_inlined(t + "// galapagos:inline-end ../shared/kernels.h\n", source, family));
  // A block naming a file that is not a header of the family.
  EXPECT_FALSE(gp::split_inlined(
      "// galapagos:inline-begin ../../outside.h (x)\nint a;\n// galapagos:inline-end ../../outside.h\n", source, family));
  // The same header twice, with two texts.
  const std::string twice =
      "// galapagos:inline-begin ../shared/helpers.h (shared/helpers.h)\nint a;\n"
      "// galapagos:inline-end ../shared/helpers.h\n";
  EXPECT_TRUE(gp::split_inlined(twice + twice, source, family));
  std::string other = twice;
  other.replace(other.find("int a;"), 6, "int b;");
  EXPECT_FALSE(gp::split_inlined(twice + other, source, family));
}

// Every shipped CUDA and HIP source: no shared header left to include; a template's kernels
// (__global__) in an evolve region a model may edit.
TEST(ShippedGpuTemplates, CarryTheirKernelsInAnEvolveRegion) {
  const fs::path kernels = fs::path(GALAPAGOS_SOURCE_DIR) / "kernels";
  const std::regex shared_include(R"(#\s*include\s*"\.\./cuda_hip/)");
  int templates = 0;
  for (const auto& f : fs::directory_iterator(kernels))
    for (const auto& [backend, ext] : {std::pair<std::string, std::string>{"cuda", ".cu"}, {"hip", ".hip"}}) {
      if (!fs::is_directory(f.path() / backend)) continue;
      for (const auto& s : fs::directory_iterator(f.path() / backend)) {
        if (s.path().extension() != ext) continue;
        const std::string original = galapagos::util::read_file(s.path().string());
        const std::string t = gp::inline_local_includes(s.path(), f.path()).text;
        EXPECT_FALSE(std::regex_search(t, shared_include)) << s.path();
        const auto back = gp::split_inlined(t, s.path(), f.path());  // and back, file by file
        ASSERT_TRUE(back.has_value()) << s.path();
        EXPECT_EQ(back->text, original) << s.path();
        for (const auto& h : back->headers) EXPECT_EQ(h.text, galapagos::util::read_file(h.file.string())) << h.file;
        if (original.find("galapagos:evolve-begin") == std::string::npos) continue;  // a baseline
        ++templates;
        // A __global__ function inside a region: an edit of its first two lines (found once) applies.
        std::istringstream in(t);
        std::vector<std::string> lines;
        for (std::string line; std::getline(in, line);) lines.push_back(line);
        bool inside = false, any_kernel = false;
        std::string kernel_lines;
        for (std::size_t i = 0; i + 1 < lines.size() && kernel_lines.empty(); ++i) {
          if (gp::opens_region(lines[i])) inside = true;
          if (gp::closes_region(lines[i])) inside = false;
          if (!inside || lines[i].find("__global__") == std::string::npos) continue;
          any_kernel = true;
          const std::string two = lines[i] + "\n" + lines[i + 1] + "\n";
          if (count(t, two) == 1) kernel_lines = two;
        }
        ASSERT_TRUE(any_kernel) << s.path() << ": no __global__ function in an evolve region";
        ASSERT_FALSE(kernel_lines.empty()) << s.path();
        const auto e = gp::apply_edits(t, {{kernel_lines, "// edited\n" + kernel_lines}});
        EXPECT_EQ(e.applied(), 1) << s.path() << ": " << (e.outcomes.empty() ? "" : e.outcomes[0].reason);
      }
    }
  EXPECT_EQ(templates, 6);  // stencil3d7, spmv and gemm, each for CUDA and HIP
}
