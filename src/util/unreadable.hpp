// Why a file the user named cannot be read, for the one-line error that names it.
#pragma once

#include <filesystem>
#include <string>

namespace galapagos::util {

// "no such file", "a folder, not <what>", or "cannot read it (<the system's reason>)". Call it
// right after the failed open: the system's reason is errno's.
std::string unreadable(const std::filesystem::path& file, const std::string& what);

// Throws galapagos::error "<file>: <unreadable>" when `file` is missing, a folder or unreadable.
void require_readable_file(const std::filesystem::path& file, const std::string& what);

}  // namespace galapagos::util
