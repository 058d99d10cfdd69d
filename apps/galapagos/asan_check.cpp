#include "asan_check.hpp"

#include <fstream>
#include <sstream>

#include "util/error.hpp"

namespace galapagos::cli {

namespace {

// The driver: argv = NSYM NARGS (DTYPE INTENT){NARGS} then, per problem, NSYM sizes and NARGS
// element counts. Every argument is its own malloc of exactly count elements, so a read or
// write one element past an end is a heap-buffer-overflow.
const char* driver_cpp = R"(#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "glp_kernel.h"

extern "C" int glp_setup(const glp_arg*, int, const int64_t*, void*) __attribute__((weak));

int main(int argc, char** argv) {
  int k = 1;
  const int nsym = std::atoi(argv[k++]), nargs = std::atoi(argv[k++]);
  std::vector<int> dtype(nargs), intent(nargs);
  for (int a = 0; a < nargs; ++a) dtype[a] = std::atoi(argv[k++]), intent[a] = std::atoi(argv[k++]);
  std::mt19937_64 rng(20261202);
  std::uniform_real_distribution<double> draw(-1.0, 1.0);
  for (int problem = 0; k + nsym + nargs <= argc; ++problem) {
    std::vector<int64_t> sizes(nsym);
    for (auto& s : sizes) s = std::atoll(argv[k++]);
    std::vector<glp_arg> args(nargs);
    for (int a = 0; a < nargs; ++a) {
      const int64_t n = std::atoll(argv[k++]);
      const size_t width = dtype[a] == GLP_FLOAT32 || dtype[a] == GLP_INT32 ? 4 : 8;
      void* p = std::malloc(n > 0 ? static_cast<size_t>(n) * width : 1);
      for (int64_t i = 0; i < n; ++i) {
        const double v = intent[a] == GLP_OUT ? 1e300 : draw(rng);  // outputs: poison
        if (dtype[a] == GLP_FLOAT64) static_cast<double*>(p)[i] = v;
        if (dtype[a] == GLP_FLOAT32) static_cast<float*>(p)[i] = static_cast<float>(intent[a] == GLP_OUT ? 1e30 : v);
        if (dtype[a] == GLP_INT32) static_cast<int32_t*>(p)[i] = 0;
        if (dtype[a] == GLP_INT64) static_cast<int64_t*>(p)[i] = 0;
      }
      args[a] = glp_arg{p, n, dtype[a], intent[a]};
    }
    int rc = glp_setup ? glp_setup(args.data(), nargs, sizes.data(), nullptr) : 0;
    if (rc == 0) rc = glp_kernel(args.data(), nargs, sizes.data(), nullptr);
    for (auto& a : args) std::free(a.data);
    if (rc != 0) {
      std::printf("glp_kernel returned %d at acceptance size %d\n", rc, problem);
      return 3;
    }
  }
  return 0;
}
)";

void write_text(const std::filesystem::path& file, const std::string& text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out) throw error(file.string(), "cannot write");
}

// The first line of `output` that says what went wrong.
std::string first_problem(const std::string& output, const std::string& fallback) {
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    const auto asan = line.find("AddressSanitizer: ");
    if (asan != std::string::npos) return line.substr(asan, line.find(" at pc ") - asan);  // without the registers
    if (line.find("error:") != std::string::npos || line.find("glp_kernel returned") != std::string::npos) return line;
  }
  return fallback;
}

std::string compiler_of(const eval::build_request& r) { return r.compiler.empty() ? "g++" : r.compiler; }

}  // namespace

bool compiler_has_asan(const std::string& compiler, const std::filesystem::path& scratch) {
  write_text(scratch / "asan_probe.cpp", "int main() { return 0; }\n");
  std::string out;
  const int rc = eval::run_program(
      {compiler, "-fsanitize=address", (scratch / "asan_probe.cpp").string(), "-o", (scratch / "asan_probe").string()}, out, 120);
  if (rc != 0) return false;
  return eval::run_program({(scratch / "asan_probe").string()}, out, 60) == 0;
}

std::string asan_run(const families::family& f, const eval::build_request& request, const std::filesystem::path& scratch) {
  const auto driver = scratch / "asan_driver.cpp";
  if (!std::filesystem::exists(driver)) write_text(driver, driver_cpp);
  const auto program = scratch / "asan_candidate";
  std::vector<std::string> cmd = {compiler_of(request)};
  cmd.insert(cmd.end(), request.flags.begin(), request.flags.end());
  for (const char* flag : {"-fsanitize=address", "-fno-omit-frame-pointer", "-g"}) cmd.emplace_back(flag);
  for (const auto& dir : request.include_dirs) cmd.push_back("-I" + dir);
  for (const auto& d : request.defines) cmd.push_back("-D" + d);
  cmd.push_back(request.source.string());
  cmd.push_back(driver.string());
  cmd.insert(cmd.end(), request.libs.begin(), request.libs.end());
  cmd.insert(cmd.end(), {"-o", program.string()});
  std::string out;
  if (eval::run_program(cmd, out, 300) != 0) return "the ASan build failed: " + first_problem(out, "(no diagnostic)");

  std::vector<std::string> run = {"env",
                                  "-C",
                                  scratch.string(),
                                  "OMP_NUM_THREADS=3",
                                  "ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:exitcode=23",
                                  program.string(),
                                  std::to_string(f.symbols.size()),
                                  std::to_string(f.args.size())};
  for (const auto& a : f.args) {
    run.push_back(std::to_string(static_cast<int>(a.type)));
    run.push_back(std::to_string(static_cast<int>(a.direction)));
  }
  for (const auto& p : f.accept_sizes) {
    for (const auto v : p.values) run.push_back(std::to_string(v));
    for (const auto& a : f.args) run.push_back(std::to_string(f.element_count(a, p.values)));
  }
  out.clear();
  const int rc = eval::run_program(run, out, 300);
  if (rc == 0) return "";
  return first_problem(out, rc < 0 ? "killed after 300 s" : "exit code " + std::to_string(rc));
}

}  // namespace galapagos::cli
