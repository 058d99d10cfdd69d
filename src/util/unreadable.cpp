#include "util/unreadable.hpp"

#include <cerrno>
#include <system_error>

#include "util/error.hpp"

namespace galapagos::util {

std::ifstream open_for_reading(const std::filesystem::path& file, const std::string& what) {
  std::error_code ec;
  // A folder opens as a stream that reads nothing: said before anything is read from it.
  if (std::filesystem::is_directory(file, ec)) throw error(file.string(), "a folder, not " + what);
  errno = 0;
  std::ifstream in(file, std::ios::binary);
  if (in) return in;
  const int err = errno;
  if (!std::filesystem::exists(file, ec)) throw error(file.string(), "no such file");
  throw error(file.string(), "cannot read it (" + std::generic_category().message(err) + ")");
}

}  // namespace galapagos::util
