#include "eval/rapl.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <vector>

namespace galapagos::eval {

namespace {

// One integer from a sysfs file; false with `why` set when it cannot be read.
bool read_uj(const std::filesystem::path& p, double& value, std::string& why) {
  std::ifstream in(p);
  if (!in) {
    why = p.string() + " not readable (" + std::strerror(errno) + ")";
    return false;
  }
  unsigned long long v = 0;
  if (!(in >> v)) {
    why = p.string() + " not readable (no number in it)";
    return false;
  }
  value = static_cast<double>(v) * 1e-6;
  return true;
}

}  // namespace

rapl_reading read_rapl(const std::string& root) {
  rapl_reading r;
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) {
    r.unavailable = root + " does not exist (no powercap interface)";
    return r;
  }
  // Packages are intel-rapl:N; their sub-zones (intel-rapl:N:M, cores, dram) are parts of them.
  static const std::regex package("intel-rapl:[0-9]+");
  std::vector<std::filesystem::path> zones;
  for (const auto& e : std::filesystem::directory_iterator(root, ec))
    if (std::regex_match(e.path().filename().string(), package)) zones.push_back(e.path());
  if (zones.empty()) {
    r.unavailable = "no intel-rapl package zone under " + root + " (no RAPL on this CPU, or not exposed here)";
    return r;
  }
  std::sort(zones.begin(), zones.end());
  for (const auto& z : zones) {
    double e = 0, range = 0;
    std::string why;
    if (!read_uj(z / "energy_uj", e, why)) {
      r = rapl_reading{};
      r.unavailable = why;
      return r;
    }
    if (!read_uj(z / "max_energy_range_uj", range, why)) range = 0;
    r.energy_j += e;
    r.package_j.push_back(e);
    r.range_j.push_back(range);
    ++r.packages;
  }
  return r;
}

double rapl_energy_between(const rapl_reading& start, const rapl_reading& end) {
  if (start.packages == 0 || end.packages != start.packages) return std::nan("");
  double total = 0;
  for (std::size_t i = 0; i < end.package_j.size(); ++i) {
    double d = end.package_j[i] - start.package_j[i];
    if (d < 0 && end.range_j[i] > 0) d += end.range_j[i];  // one wrap
    if (d < 0) return std::nan("");
    total += d;
  }
  return total;
}

}  // namespace galapagos::eval
