#include "util/install_layout.hpp"

#include <cstdlib>
#include <system_error>

#include "util/build_info.hpp"

namespace galapagos::util {

namespace {

struct layout {
  std::filesystem::path data;
  bool installed = false;
};

layout find_layout() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto beside = (self.parent_path() / build_info::bin_to_data_dir).lexically_normal();
    if (std::filesystem::is_directory(beside / "kernels", ec)) return {beside, true};
  }
  return {std::filesystem::path(build_info::source_dir), false};
}

const layout& the_layout() {
  static const layout l = find_layout();
  return l;
}

}  // namespace

const std::filesystem::path& data_dir() { return the_layout().data; }
bool installed() { return the_layout().installed; }
std::filesystem::path kernels_dir() { return data_dir() / "kernels"; }
std::filesystem::path configs_dir() { return data_dir() / "configs"; }

std::filesystem::path tools_dir() {
  if (const char* env = std::getenv("GALAPAGOS_TOOLS"); env && *env) return env;
  return data_dir() / "tools";
}

}  // namespace galapagos::util
