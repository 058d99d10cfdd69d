// generator_faults' generator (tests/integration/reference_failures.sh): the spec picks a fault.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "glp_kernel.h"

namespace {
char g_error[128] = "";

[[noreturn]] void crash() {
  volatile double* nowhere = nullptr;
  *nowhere = 1.0;
  __builtin_unreachable();
}

[[noreturn]] void hang() {
  volatile std::uint64_t spins = 0;
  for (;;) spins = spins + 1;
}

// The N of "WORD N", or -1.
long long count_after(const char* spec, const char* word) {
  const std::size_t w = std::strlen(word);
  if (std::strncmp(spec, word, w) != 0 || spec[w] != ' ') return -1;
  long long n = -1;
  return std::sscanf(spec + w + 1, "%lld", &n) == 1 ? n : -1;
}
}  // namespace

GLP_EXPORT const char* glp_generator_error(void) { return g_error; }

GLP_EXPORT int glp_problem_sizes(const char* spec, int64_t* sizes) {
  if (std::strcmp(spec, "crash_sizes") == 0) crash();
  if (std::strcmp(spec, "hang_sizes") == 0) hang();
  for (const char* word : {"ok", "crash_generate", "hang_generate"}) {
    const long long n = count_after(spec, word);
    if (n >= 0) {
      sizes[0] = n;
      return 0;
    }
  }
  std::snprintf(g_error, sizeof g_error, "unknown problem '%s'", spec);
  return 1;
}

GLP_EXPORT int glp_generate(const char* spec, const glp_arg* args, int nargs, const int64_t* sizes, uint64_t seed,
                            int distribution) {
  if (count_after(spec, "crash_generate") >= 0) crash();
  if (count_after(spec, "hang_generate") >= 0) hang();
  if (nargs != 2 || args[0].count != sizes[0]) {
    std::snprintf(g_error, sizeof g_error, "expected 2 arguments of n elements");
    return 1;
  }
  double* in = static_cast<double*>(args[0].data);
  for (int64_t i = 0; i < sizes[0]; ++i)
    in[i] = static_cast<double>((seed + 7 * static_cast<uint64_t>(i) + distribution) % 1000) / 1000.0;
  return 0;
}
