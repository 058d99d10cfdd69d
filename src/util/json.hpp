// JSON helpers shared by the records, checkpoints and commands that write JSON (nlohmann-json
// is a dependency of every target that includes this header).
#pragma once

#include <cmath>

#include <nlohmann/json.hpp>

namespace galapagos::util {

// A number as JSON, or null where it is not finite (JSON has no NaN or infinity).
inline nlohmann::json json_number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

}  // namespace galapagos::util
