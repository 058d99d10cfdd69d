#include "util/params_json.hpp"

#include <nlohmann/json.hpp>

namespace galapagos::util {

using nlohmann::json;

namespace {

// The JSON of a value: a number when its text is one, else a string.
json value_json(const std::string& v) {
  const json j = json::parse(v, nullptr, false);
  return !j.is_discarded() && j.is_number() ? j : json(v);
}

}  // namespace

std::string canonical_value(const std::string& value) {
  const json j = value_json(value);
  return j.is_number() ? j.dump() : value;
}

std::optional<std::map<std::string, std::string>> params_from_json(const std::string& text) {
  const json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : j.items()) {
    if (v.is_string())
      out[k] = v.get<std::string>();
    else if (v.is_number())
      out[k] = v.dump();
    else
      return std::nullopt;
  }
  return out;
}

std::string canonical_params(const std::map<std::string, std::string>& values) {
  json j = json::object();
  for (const auto& [k, v] : values) j[k] = value_json(v);
  return j.dump();
}

}  // namespace galapagos::util
