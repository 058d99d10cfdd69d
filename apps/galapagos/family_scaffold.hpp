// `galapagos family new NAME`: the smallest working kernel family, to copy and edit. One
// argument in, one scalar, one argument out (y = alpha * x), one tunable parameter (UNROLL), a
// Kokkos reference and a plain OpenMP baseline; it passes `galapagos family check NAME`.
#pragma once

#include <filesystem>
#include <string>

namespace galapagos::cli {

// Writes DIR/NAME/ (family.toml, reference.cpp, cpu/NAME.cpp, baselines/openmp_plain.cpp) whole
// or not at all. Throws galapagos::error for a bad NAME, a missing DIR or an existing folder.
std::filesystem::path write_family_scaffold(const std::string& name, const std::filesystem::path& dir);

}  // namespace galapagos::cli
