// A candidate's parameter values as the `params` column of /candidates writes them (a JSON
// object, numbers unquoted: core::search_space::to_json), read back in one way everywhere: the
// checkpoint's genomes, the replay's lookups and the recorded spaces of `simulate`.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace galapagos::util {

// A parameter value in one spelling: a number as JSON formats it ("4", "0.1" for "0.10", "1000.0"
// for "1e3"), any other text unchanged. Two spellings of one number compare equal after it.
std::string canonical_value(const std::string& value);

// {"NAME": value, ...} -> NAME -> canonical_value; nullopt when the text is not a JSON object or
// a value is neither a string nor a number.
std::optional<std::map<std::string, std::string>> params_from_json(const std::string& text);

// The values as one JSON text, canonical: the same set of values gives the same text, whether
// they come from a candidate (strings) or from a recorded `params` object.
std::string canonical_params(const std::map<std::string, std::string>& values);

}  // namespace galapagos::util
