// What a candidate's compile may read, and what of the compiler's output may be kept
// (docs/threat-model.md, "The compiler"). Three layers:
//   - scan_source refuses, before compiling, every way the text names a file to read:
//     #include / #include_next / #import / #embed / __has_include with an absolute path, a ".."
//     that leaves the allowed folders, a computed (macro) operand or a device; #pragma GCC
//     dependency, _Pragma naming a dependency or include; the assembler's .incbin / .include.
//   - reads_outside checks the compiler's dependency list afterwards: it catches what the scan
//     cannot see (a symlink in the family's folder, say).
//   - candidate_diagnostics keeps only the diagnostics located in the candidate's own file, so
//     the content of no other file reaches the results or a language model.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace galapagos::eval {

// Folders whose files a compile may read (kept canonical: symlinks resolved).
class read_roots {
 public:
  void add(const std::filesystem::path& dir);
  bool allows(const std::filesystem::path& file) const;  // file: canonicalised here
  const std::vector<std::filesystem::path>& dirs() const { return dirs_; }

 private:
  std::vector<std::filesystem::path> dirs_;
};

// The folders the compiler searches for <...> and "..." on its own (`compiler -E -x c++ -v -`),
// asked once per compiler and process. A driver that does not answer (nvcc) gets
// `fallback`'s list and its own installation prefix (/usr/local/cuda-12.x for nvcc).
std::vector<std::filesystem::path> compiler_search_dirs(const std::string& compiler, const std::string& fallback);

// "" when the text may be compiled, else the refusal, as a diagnostic:
// "<name>:<line>: error: ...". Quoted includes with ".." are resolved against quote_bases (the
// source's own folder, then the include folders) and must land inside `roots`.
std::string scan_source(const std::string& text, const std::string& name, const std::vector<std::filesystem::path>& quote_bases,
                        const read_roots& roots);

// The first file in a make-style dependency list (-MD -MF) outside `roots`; "" when none.
// Relative names are taken from `workdir`.
std::string reads_outside(const std::string& depfile, const std::filesystem::path& workdir, const read_roots& roots);

// The compiler log reduced to what concerns the candidate's file `name` (GCC/Clang
// "name:L:C: ..." and nvcc "name(L): ..." records with their quoted source lines, "In file
// included from" entries of that file, tool summaries) and to at most max_bytes. Assembler
// messages about the compiler's temporary files in `private_dir` are kept, without the folder.
std::string candidate_diagnostics(const std::string& log, const std::string& name, const std::filesystem::path& private_dir,
                                  std::size_t max_bytes = 64 * 1024);

}  // namespace galapagos::eval
