#include "util/utc.hpp"

#include <ctime>

namespace galapagos::util {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm parts{};
  gmtime_r(&t, &parts);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &parts);
  return buf;
}

}  // namespace galapagos::util
