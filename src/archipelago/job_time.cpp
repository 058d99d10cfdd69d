#include "archipelago/job_time.hpp"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

namespace galapagos::archipelago {

namespace {

// squeue's %L: "[days-][hours:]minutes:seconds", or UNLIMITED / NOT_SET / INVALID.
std::optional<double> parse_time_left(const std::string& text) {
  long days = 0;
  std::string rest = text;
  if (const auto dash = rest.find('-'); dash != std::string::npos) {
    days = std::strtol(rest.substr(0, dash).c_str(), nullptr, 10);
    rest = rest.substr(dash + 1);
  }
  long fields[3] = {0, 0, 0};
  int n = 0;
  std::size_t start = 0;
  while (n < 3) {
    const auto colon = rest.find(':', start);
    const std::string part = rest.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    fields[n++] = std::strtol(part.c_str(), nullptr, 10);
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (n < 2) return std::nullopt;
  const long h = n == 3 ? fields[0] : 0, m = fields[n - 2], s = fields[n - 1];
  return static_cast<double>(((days * 24 + h) * 60 + m) * 60 + s);
}

}  // namespace

std::optional<double> slurm_seconds_left() {
  if (const char* end = std::getenv("SLURM_JOB_END_TIME"); end && *end) {
    char* stop = nullptr;
    const double t = std::strtod(end, &stop);
    if (stop != end && *stop == '\0' && t > 0) return t - static_cast<double>(std::time(nullptr));
  }
  const char* job = std::getenv("SLURM_JOB_ID");
  if (!job || std::string(job).find_first_not_of("0123456789_") != std::string::npos || !*job) return std::nullopt;
  const std::string cmd = std::string("squeue -h -j ") + job + " -o %L 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return std::nullopt;
  char line[128] = {};
  const bool got = std::fgets(line, sizeof line, p) != nullptr;
  pclose(p);
  if (!got) return std::nullopt;
  std::string text = line;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return parse_time_left(text);
}

}  // namespace galapagos::archipelago
