#include "archipelago/job_time.hpp"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

namespace galapagos::archipelago {

std::optional<double> parse_slurm_time_left(const std::string& text) {
  long days = 0;
  std::string rest = text;
  if (const auto dash = rest.find('-'); dash != std::string::npos) {
    const std::string d = rest.substr(0, dash);
    if (d.empty() || d.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    days = std::strtol(d.c_str(), nullptr, 10);
    rest = rest.substr(dash + 1);
  }
  std::vector<long> fields;
  std::stringstream parts(rest);
  std::string part;
  while (std::getline(parts, part, ':')) {
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    fields.push_back(std::strtol(part.c_str(), nullptr, 10));
  }
  if (fields.size() < 2 || fields.size() > 3 || (days > 0 && fields.size() != 3) || rest.back() == ':') return std::nullopt;
  const long h = fields.size() == 3 ? fields[0] : 0, m = fields[fields.size() - 2], sec = fields.back();
  return static_cast<double>(((days * 24 + h) * 60 + m) * 60 + sec);
}

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
  return parse_slurm_time_left(text);
}

}  // namespace galapagos::archipelago
