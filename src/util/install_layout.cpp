#include "util/install_layout.hpp"

#include <system_error>

#include "util/build_info.hpp"

namespace galapagos::util {

namespace {

std::filesystem::path find_data_dir() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto beside = (self.parent_path() / build_info::bin_to_data_dir).lexically_normal();
    if (std::filesystem::is_directory(beside / "kernels", ec)) return beside;
  }
  return build_info::source_dir;
}

}  // namespace

const std::filesystem::path& data_dir() {
  static const std::filesystem::path dir = find_data_dir();
  return dir;
}
std::filesystem::path kernels_dir() { return data_dir() / "kernels"; }
std::filesystem::path configs_dir() { return data_dir() / "configs"; }

std::filesystem::path python_dir() { return data_dir() / "python"; }

}  // namespace galapagos::util
