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

}  // namespace galapagos::propose
