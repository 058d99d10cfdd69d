// The export check of a built candidate (DESIGN.md §4): a candidate may export the family's
// entry point and what the compiler adds, nothing else. Defining or interposing libc, libm,
// pthread, OpenMP, MPI, CUDA or timer symbols is rejected before the candidate ever runs.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace galapagos::eval {

struct exported_symbol {
  std::string name;
  bool weak = false;  // STB_WEAK or STB_GNU_UNIQUE (template and inline instantiations)
  bool function = false;
};

// The defined, globally visible symbols of an ELF shared object's dynamic symbol table.
// Throws galapagos::error naming the file when it is not a readable 64-bit ELF file.
std::vector<exported_symbol> exported_symbols(const std::filesystem::path& shared_object);

// The DT_NEEDED entries (sonames of linked libraries) of an ELF shared object.
std::vector<std::string> needed_libraries(const std::filesystem::path& shared_object);

// Empty when the exports are acceptable (the entry point, optionally glp_setup, and what the
// toolchain adds), else a one-line reason naming the first offender.
std::string check_exports(const std::vector<exported_symbol>& symbols, const std::string& entry_point);

}  // namespace galapagos::eval
