// Wall-clock stamps written into results files.
#pragma once

#include <string>

namespace galapagos::util {

// The current UTC time as ISO 8601, "2026-12-01T19:24:26Z".
std::string utc_now();

}  // namespace galapagos::util
