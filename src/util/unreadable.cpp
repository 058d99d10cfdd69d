#include "util/unreadable.hpp"

#include <cerrno>
#include <fstream>
#include <system_error>

#include "util/error.hpp"

namespace galapagos::util {

std::string unreadable(const std::filesystem::path& file, const std::string& what) {
  const int err = errno;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return "no such file";
  if (std::filesystem::is_directory(file, ec)) return "a folder, not " + what;
  return "cannot read it (" + std::generic_category().message(err) + ")";
}

void require_readable_file(const std::filesystem::path& file, const std::string& what) {
  std::error_code ec;
  errno = 0;
  const bool folder = std::filesystem::is_directory(file, ec);
  if (folder || !std::ifstream(file, std::ios::binary)) throw error(file.string(), unreadable(file, what));
}

}  // namespace galapagos::util
