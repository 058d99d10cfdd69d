// A template as a model sees and rewrites it: its local includes inlined. The CUDA and HIP
// templates are thin launchers whose kernels live in headers shared by both backends
// (kernels/<family>/cuda_hip/); a rewrite is one text, so the model gets those headers' text in
// place of their #include lines, inside an evolve region, and may change the kernels themselves.
//
// A quoted #include "X" is local when X, taken relative to the folder of the file that includes
// it, is a file inside `root` (the family's folder). Its text replaces the #include line, between
//
//   // galapagos:inline-begin X (FILE)
//   // galapagos:evolve-begin (...)
//   ...the file's text, its own local includes inlined the same way...
//   // galapagos:evolve-end
//   // galapagos:inline-end X
//
// where FILE is the file's path in the family's folder. The evolve markers are left out where the
// #include line already lies inside an evolve region or the file has regions of its own, so
// regions never nest. Every other include (<...>, a file found only through -I such as
// "glp_kernel.h", a file outside `root` or missing) stays as it is. A file is inlined once: a
// second #include of it becomes a comment, and its `#pragma once` is dropped (the shared headers
// are written to be included once). The result compiles on its own to the same program as the
// template, wherever its text is written.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace galapagos::propose {

struct inlined_source {
  std::string text;
  std::vector<std::filesystem::path> files;  // inlined, in the order they appear (canonical paths)
};

// `source`'s text with its local includes inlined. Throws galapagos::error naming a file that
// cannot be read (the source itself; an unreadable local header stays included).
inlined_source inline_local_includes(const std::filesystem::path& source, const std::filesystem::path& root);

// The other way, for review: a text inline_local_includes made, as a model may have edited it,
// taken apart into the files it was made of. Each inlined block becomes its #include line again
// (as the including file on disk writes it) and its body, less the evolve markers put around it
// and with the header's `#pragma once` back where the file on disk has it, the header's text;
// an `inlined already` comment becomes its #include line again. nullopt where the text cannot be
// taken apart: a begin marker without its end (or the other way), a block naming a file that is
// not a local header of `source`'s family, one header with two different texts.
struct restored_file {
  std::filesystem::path file;  // canonical path of the header on disk
  std::string text;            // its text as the rewrite has it
};
struct split_source {
  std::string text;                    // `source`'s own text, its local includes as #include lines
  std::vector<restored_file> headers;  // in the order their blocks begin
};
std::optional<split_source> split_inlined(const std::string& text, const std::filesystem::path& source,
                                          const std::filesystem::path& root);

}  // namespace galapagos::propose
