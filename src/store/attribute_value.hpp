// The value of one attribute of a results file: a text, a real number, an integer (counts, ids,
// seeds) or a flag, stored in the HDF5 type of its kind (docs/hdf5-schema.md, "Attributes").
// Files of schema 1 held the root attributes and a few others as text ("true", "4", "0.001"), and
// the counters of groups as doubles: the readings below take every form a file may hold, so an
// old file reads like a new one.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>

namespace galapagos::store {

// The results schema this build writes (root attribute schema_version; files without it are 1).
inline constexpr std::int64_t schema_version = 2;

using attribute_value = std::variant<std::string, double, std::int64_t, bool>;
using attributes = std::map<std::string, attribute_value>;

// nullopt when the value holds no such thing. Numbers: a number, an integer, a flag (0/1), or a
// text that is a number in full ("0.001", "nan"). Integers: an integer, a number without a
// fraction, a flag, or a text that is an integer in full. Flags: a flag, 0 or 1, "true"/"false"
// or "1"/"0".
std::optional<double> as_number(const attribute_value& v);
std::optional<std::int64_t> as_integer(const attribute_value& v);
std::optional<bool> as_flag(const attribute_value& v);
// Texts as they are; numbers with full precision (%.17g), integers in decimal, flags as
// "true"/"false".
std::string as_text(const attribute_value& v);
// What a value is, for messages: "text 'abc'", "number 2.5", "integer 3", "flag true".
std::string describe(const attribute_value& v);

}  // namespace galapagos::store
