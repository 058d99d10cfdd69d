// Where galapagos finds what it ships beside its programs: the kernel families, the configs,
// the report tools. An installed galapagos finds them relative to its executable
// (<prefix>/bin/../share/galapagos), so a prefix can be moved or copied whole; a galapagos run
// from its build tree finds them in the source tree it was configured from.
#pragma once

#include <filesystem>

namespace galapagos::util {

// share/galapagos of the installation the running executable belongs to, else the source tree
// of the build tree it was built in (the folder holding kernels/, configs/, tools/).
const std::filesystem::path& data_dir();
// data_dir()/kernels, data_dir()/configs, and data_dir()/python: the folder holding the galapagos
// Python package (python/galapagos in the source tree, share/galapagos/python/galapagos installed).
std::filesystem::path kernels_dir();
std::filesystem::path configs_dir();
std::filesystem::path python_dir();

}  // namespace galapagos::util
