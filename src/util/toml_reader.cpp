#include "util/toml_reader.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "util/error.hpp"
#include "util/unreadable.hpp"

namespace galapagos::util {

namespace {
// Levenshtein distance between two keys (insertions, deletions, substitutions).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string describe(const toml::parse_error& e) {
  std::ostringstream os;
  os << e.description() << " (line " << e.source().begin.line << ")";
  return os.str();
}
}  // namespace

toml::table parse_toml_text(const std::string& text, const std::string& origin) {
  try {
    return toml::parse(text, origin);
  } catch (const toml::parse_error& e) {
    throw error(origin, describe(e));
  }
}

toml::table parse_toml_file(const std::filesystem::path& file) {
  std::ifstream in = open_for_reading(file, "a TOML file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_toml_text(ss.str(), file.string());
}

std::string nearest_key(const std::string& key, std::initializer_list<const char*> known) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, key.size() / 3) + 1;  // a typo, not another word
  for (const char* k : known) {
    const std::size_t d = edit_distance(key, k);
    if (d < best_distance) best_distance = d, best = k;
  }
  return best;
}

toml_section::toml_section(const toml::table& t, std::string file, std::string path)
    : t_(&t), file_(std::move(file)), path_(std::move(path)) {}

std::string toml_section::where(const std::string& key) const {
  std::string full = path_.empty() ? key : path_ + "." + key;
  return full;
}

void toml_section::fail(const std::string& key, const std::string& problem) const {
  throw error(file_, "key '" + where(key) + "': " + problem);
}

void toml_section::allow_only(std::initializer_list<const char*> allowed) const {
  for (const auto& [k, v] : *t_) {
    const std::string key(k.str());
    bool ok = std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; });
    if (!ok) {
      std::string list;
      for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
      const std::string near = nearest_key(key, allowed);
      fail(key,
           "unknown key" + (near.empty() ? std::string() : "; did you mean '" + near + "'?") + " (allowed here: " + list + ")");
    }
  }
}

const toml::node* toml_section::get(const std::string& key) const { return t_->get(key); }
bool toml_section::has(const std::string& key) const { return get(key) != nullptr; }

std::string toml_section::str(const std::string& key) const {
  const auto* n = get(key);
  if (!n) fail(key, "missing");
  if (!n->is_string()) fail(key, "must be a string");
  return n->as_string()->get();
}
std::string toml_section::str(const std::string& key, const std::string& dflt) const { return has(key) ? str(key) : dflt; }

double toml_section::num(const std::string& key) const {
  const auto* n = get(key);
  if (!n) fail(key, "missing");
  if (n->is_integer()) return static_cast<double>(n->as_integer()->get());
  if (n->is_floating_point()) return n->as_floating_point()->get();
  fail(key, "must be a number");
}
double toml_section::num(const std::string& key, double dflt) const { return has(key) ? num(key) : dflt; }

std::int64_t toml_section::integer(const std::string& key) const {
  const auto* n = get(key);
  if (!n) fail(key, "missing");
  if (!n->is_integer()) fail(key, "must be an integer");
  return n->as_integer()->get();
}
std::int64_t toml_section::integer(const std::string& key, std::int64_t dflt) const { return has(key) ? integer(key) : dflt; }

namespace {
// 5, 0.25, 1e+300, inf, nan: integral values without a decimal point.
std::string number_text(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<std::int64_t>(v));
  std::ostringstream os;
  os << v;
  return os.str();
}
std::string range_text(double min, double max, bool open_min, const std::string& unit) {
  return std::string(open_min ? "(" : "[") + number_text(min) + ", " + number_text(max) + "]" + (unit.empty() ? "" : " " + unit);
}
}  // namespace

std::int64_t toml_section::integer(const std::string& key, std::int64_t dflt, std::int64_t min, std::int64_t max,
                                   const std::string& unit) const {
  if (!has(key)) return dflt;
  const std::int64_t v = integer(key);
  if (v < min || v > max)
    fail(key, "must lie in [" + std::to_string(min) + ", " + std::to_string(max) + "]" + (unit.empty() ? "" : " " + unit) +
                  ", got " + std::to_string(v));
  return v;
}

double toml_section::num(const std::string& key, double dflt, double min, double max, const std::string& unit,
                         bool open_min) const {
  if (!has(key)) return dflt;
  const double v = num(key);
  const bool below = open_min ? !(v > min) : !(v >= min);
  if (!std::isfinite(v) || below || !(v <= max))
    fail(key, "must lie in " + range_text(min, max, open_min, unit) + ", got " + number_text(v));
  return v;
}

bool toml_section::boolean(const std::string& key, bool dflt) const {
  const auto* n = get(key);
  if (!n) return dflt;
  if (!n->is_boolean()) fail(key, "must be true or false");
  return n->as_boolean()->get();
}

std::vector<std::string> toml_section::strings(const std::string& key) const {
  std::vector<std::string> out;
  const auto* n = get(key);
  if (!n) return out;
  if (!n->is_array()) fail(key, "must be an array of strings");
  for (const auto& e : *n->as_array()) {
    if (!e.is_string()) fail(key, "must be an array of strings");
    out.push_back(e.as_string()->get());
  }
  return out;
}

std::string scalar_text(const toml::node& n) {
  if (n.is_integer()) return std::to_string(n.as_integer()->get());
  if (n.is_floating_point()) {
    std::ostringstream os;
    os << n.as_floating_point()->get();
    return os.str();
  }
  if (n.is_string()) return n.as_string()->get();
  if (n.is_boolean()) return n.as_boolean()->get() ? "1" : "0";
  throw std::invalid_argument("not a scalar");
}

std::vector<std::string> toml_section::scalars_as_text(const std::string& key) const {
  std::vector<std::string> out;
  const auto* n = get(key);
  if (!n) return out;
  if (!n->is_array()) fail(key, "must be an array");
  for (const auto& e : *n->as_array()) {
    try {
      out.push_back(scalar_text(e));
    } catch (const std::invalid_argument&) {
      fail(key, "elements must be numbers or strings");
    }
  }
  return out;
}

std::optional<toml_section> toml_section::sub(const std::string& key) const {
  const auto* n = get(key);
  if (!n) return std::nullopt;
  if (!n->is_table()) fail(key, "must be a table");
  return toml_section(*n->as_table(), file_, where(key));
}

std::vector<toml_section> toml_section::array_of_tables(const std::string& key) const {
  std::vector<toml_section> out;
  const auto* n = get(key);
  if (!n) return out;
  if (!n->is_array()) fail(key, "must be an array of tables ([[" + where(key) + "]])");
  int i = 0;
  for (const auto& e : *n->as_array()) {
    if (!e.is_table()) fail(key, "must be an array of tables ([[" + where(key) + "]])");
    out.emplace_back(*e.as_table(), file_, where(key) + "[" + std::to_string(i++) + "]");
  }
  return out;
}

}  // namespace galapagos::util
