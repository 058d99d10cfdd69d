// Opening a file the user named, with the one-line error that names it when it cannot be read.
#pragma once

#include <filesystem>
#include <fstream>
#include <string>

namespace galapagos::util {

// The file opened for reading (binary). Throws galapagos::error "<file>: no such file", "<file>: a
// folder, not <what>" or "<file>: cannot read it (<the system's reason>)".
std::ifstream open_for_reading(const std::filesystem::path& file, const std::string& what);

}  // namespace galapagos::util
