// `galapagos family check NAME`: what a family's author must know before a search relies on it.
// One line per check (ok, FAIL, or a note), each named:
//   baselines             every baseline passes the evaluator
//   extremes (1 thread)   each parameter's smallest and largest value, the others at a valid
//   extremes (3 threads)  point, checked at every acceptance size and timed at the smallest
//   misaligned pointers   fitness size, by the evaluator a search uses (3 threads: odd counts);
//                         the last with every argument 8 bytes past a page boundary
//   asan                  the same points built with -fsanitize=address into a program of their
//                         own, run at every acceptance size on exactly-sized allocations
//   parameter P           whether P changes the compiled binary (a note, never a failure)
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace galapagos::cli {

// 0 when every check passed, 1 when one failed; throws galapagos::error for bad input (an
// unknown family, a family.toml that does not load, a backend the check does not cover).
int check_family(const std::string& name, const std::vector<std::filesystem::path>& first_dirs, const std::string& backend);

}  // namespace galapagos::cli
