// The JSON formats of recorded spaces, private to src/simulate: reading a file whole (gunzipped
// when it is gzip-compressed), closing a Kernel Tuner cache that an interrupted run left open,
// and building a recorded space from a Kernel Tuner cache or a T4 results document.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "simulate/recorded_space.hpp"

namespace galapagos::simulate::detail {

// What a recorded space may be, for the error that a path is none (util::open_for_reading).
inline const std::string recorded_space_kinds = "a recorded space (a results file, Kernel Tuner cache or T4 file)";
// The file's bytes, decompressed when they begin with gzip's magic number. Throws
// galapagos::error naming the file when it cannot be opened or its gzip stream is damaged.
std::string read_space_bytes(const std::filesystem::path& file);

struct json_document {
  nlohmann::json doc;
  bool closed_here = false;  // an unfinished Kernel Tuner cache, closed as Kernel Tuner closes it
};
// Parses `text`; when it is not a JSON document, closes it as Kernel Tuner reads the cache of an
// interrupted run (a trailing comma dropped, "}\n}" appended) and, failing that, also drops a last
// entry that was cut short. Throws galapagos::error naming the file and the formats expected.
json_document parse_space_json(const std::string& text, const std::string& file);

// Whether `s` is a whole number text (strtod reads all of it), and its value.
bool parse_number(const std::string& s, double& out);
// A value as text: a string as it is, a number as JSON writes it, a boolean as Python's str().
std::string value_text(const nlohmann::json& v);
// Numeric order when every value is a number, text order otherwise.
void sort_values(std::vector<std::string>& values);

recorded_space kernel_tuner_cache_from(const nlohmann::json& doc, const std::string& file, bool closed_here);
recorded_space t4_results_from(const nlohmann::json& doc, const std::string& file);
bool looks_like_t4(const nlohmann::json& doc);  // an object with "results" and no "cache"

}  // namespace galapagos::simulate::detail
