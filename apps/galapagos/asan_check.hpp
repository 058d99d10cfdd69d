// The AddressSanitizer part of `galapagos family check`: a family's template, built with
// -fsanitize=address into a small program of its own with a driver that allocates every
// argument with exactly its element count, fills the inputs and calls glp_kernel at each
// acceptance size. The worker's system-call filter does not allow ASan's shadow mappings, so the
// program runs as a plain child (no seccomp filter, no worker), in a temporary folder that is
// removed afterwards, with OMP_NUM_THREADS=3. It is the family author's own code.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "eval/builder.hpp"
#include "families/family.hpp"

namespace galapagos::cli {

// Whether `compiler` links a program with -fsanitize=address (asked once, in `scratch`).
bool compiler_has_asan(const std::string& compiler, const std::filesystem::path& scratch);

// Builds `request` (the template at one point, as the evaluator would build it) with ASan and
// runs it at every acceptance size of `f`. Returns "" when clean, else one line: the build's
// first error, the sanitizer's report line, or the entry point's non-zero return.
std::string asan_run(const families::family& f, const eval::build_request& request, const std::filesystem::path& scratch);

}  // namespace galapagos::cli
