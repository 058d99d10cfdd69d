// Strict reading of TOML files: every key a table may hold is declared, so a typo is an error
// that names the file and the key instead of a silently ignored setting.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

namespace galapagos::util {

// Parses a file; throws galapagos::error "<file>: <problem> (line L)" on a missing file or bad TOML.
toml::table parse_toml_file(const std::filesystem::path& file);
toml::table parse_toml_text(const std::string& text, const std::string& origin);

// A view of one table of a file with typed, checked accessors. `where` is "file [section]".
// The key of `known` nearest to `key` by edit distance, if near enough to be a typo of it (at
// most max(2, length / 3) edits); "" otherwise.
std::string nearest_key(const std::string& key, std::initializer_list<const char*> known);

class toml_section {
 public:
  toml_section(const toml::table& t, std::string file, std::string path);

  // Throws if the table holds a key outside `allowed`, naming the nearest allowed key when the
  // unknown one looks like a typo of it ("did you mean 'budget'?").
  void allow_only(std::initializer_list<const char*> allowed) const;
  bool has(const std::string& key) const;
  std::string str(const std::string& key) const;  // required
  std::string str(const std::string& key, const std::string& dflt) const;
  double num(const std::string& key) const;
  double num(const std::string& key, double dflt) const;
  std::int64_t integer(const std::string& key, std::int64_t dflt) const;
  std::int64_t integer(const std::string& key) const;
  // Ranged reads: the one place numeric config values are checked. A value outside [min, max]
  // (or NaN, or an infinity) is an error naming the file, the key, the value and the range:
  //   "<file>: key 'eval.timeout_s': must lie in (0, 86400] seconds, got inf".
  // `unit` is appended to the range ("seconds"); `open_min` makes the lower bound exclusive.
  std::int64_t integer(const std::string& key, std::int64_t dflt, std::int64_t min, std::int64_t max,
                       const std::string& unit = "") const;
  // integer() for a value whose range fits an int (counts, sizes, indices).
  int whole(const std::string& key, int dflt, std::int64_t min, std::int64_t max) const {
    return static_cast<int>(integer(key, dflt, min, max));
  }
  double num(const std::string& key, double dflt, double min, double max, const std::string& unit = "",
             bool open_min = false) const;
  bool boolean(const std::string& key, bool dflt) const;
  std::vector<std::string> strings(const std::string& key) const;  // [] when absent
  // Array elements as text: integers, floats and strings are accepted.
  std::vector<std::string> scalars_as_text(const std::string& key) const;
  std::optional<toml_section> sub(const std::string& key) const;  // nested table
  std::vector<toml_section> array_of_tables(const std::string& key) const;
  const toml::table& table() const { return *t_; }
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;
  const std::string& file() const { return file_; }
  std::string where(const std::string& key) const;

 private:
  const toml::node* get(const std::string& key) const;
  const toml::table* t_;
  std::string file_;
  std::string path_;
};

std::string scalar_text(const toml::node& n);  // "64", "0.5", "static"; throws on tables/arrays

}  // namespace galapagos::util
