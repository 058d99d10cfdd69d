#include "propose/llm/variant.hpp"

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

namespace galapagos::propose {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace

declared_params parse_declared_params(const std::string& source, const std::vector<core::parameter>& base) {
  static const std::regex declaration(R"(galapagos:param\s+(.*)$)");
  static const std::regex shape(R"(([A-Z][A-Z0-9_]*)\s*=\s*\[(.*)\]\s*)");
  static const std::regex value(R"(-?[A-Za-z0-9_.]+)");
  declared_params out;
  std::set<std::string> names;
  for (const auto& p : base) names.insert(p.name);
  std::istringstream lines(source);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::smatch m;
    if (!std::regex_search(line, m, declaration)) continue;
    const std::string where = "line " + std::to_string(number) + ": ";
    std::string body = trim(m[1].str());
    if (body.ends_with("*/")) body = trim(body.substr(0, body.size() - 2));
    std::smatch d;
    if (!std::regex_match(body, d, shape)) {
      out.problems.push_back(where + "a declaration reads `galapagos:param NAME = [v1, v2, ...]` with NAME in capitals");
      continue;
    }
    core::parameter p{d[1].str(), {}};
    if (names.contains(p.name)) {
      out.problems.push_back(where + "parameter " + p.name + " already exists; declare a new name");
      continue;
    }
    bool ok = true;
    std::istringstream items(d[2].str());
    std::string item;
    while (std::getline(items, item, ',')) {
      item = trim(item);
      if (!std::regex_match(item, value)) {
        out.problems.push_back(where + "value '" + item + "' of " + p.name + " is not a number or an identifier");
        ok = false;
        break;
      }
      if (std::find(p.values.begin(), p.values.end(), item) == p.values.end()) p.values.push_back(item);
    }
    if (!ok) continue;
    if (p.values.empty() || static_cast<int>(p.values.size()) > max_declared_values) {
      out.problems.push_back(where + p.name + " needs 1 to " + std::to_string(max_declared_values) + " values");
      continue;
    }
    if (static_cast<int>(out.params.size()) >= max_declared_params) {
      out.problems.push_back(where + "at most " + std::to_string(max_declared_params) + " new parameters per source");
      continue;
    }
    names.insert(p.name);
    out.params.push_back(std::move(p));
  }
  return out;
}

std::string program_text(const std::string& source) {
  std::string out, line;  // `line`: the current line, blanks collapsed
  bool blank = false;     // a blank is pending before the next character of the line
  auto put = [&](char c) {
    if (blank && !line.empty()) line += ' ';
    blank = false;
    line += c;
  };
  auto end_line = [&] {
    if (!line.empty()) out += line + '\n';
    line.clear();
    blank = false;
  };
  const std::size_t n = source.size();
  for (std::size_t i = 0; i < n; ++i) {
    const char c = source[i];
    if (c == '/' && i + 1 < n && source[i + 1] == '/') {  // line comment: dropped unless it declares
      const std::size_t e = source.find('\n', i);
      const std::string comment = source.substr(i, (e == std::string::npos ? n : e) - i);
      if (comment.find("galapagos:param") != std::string::npos)
        for (const char d : comment) {
          if (d == ' ' || d == '\t' || d == '\r')
            blank = true;
          else
            put(d);
        }
      i = (e == std::string::npos ? n : e) - 1;
    } else if (c == '/' && i + 1 < n && source[i + 1] == '*') {  // block comment: one blank
      const std::size_t e = source.find("*/", i + 2);
      i = e == std::string::npos ? n : e + 1;
      blank = true;
    } else if (c == '"' || c == '\'') {  // literal: verbatim up to its unescaped end (or the line's)
      put(c);
      for (++i; i < n && source[i] != c && source[i] != '\n'; ++i) {
        line += source[i];
        if (source[i] == '\\' && i + 1 < n) line += source[++i];
      }
      if (i < n && source[i] == c) line += c;
      if (i < n && source[i] == '\n') end_line();
    } else if (c == '\n') {
      end_line();
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      blank = true;
    } else {
      put(c);
    }
  }
  end_line();
  return out;
}

namespace {

// The index of the value the source defines for p (#define GLP_<NAME> v), or -1. With `expand`
// (a preprocessor's -dM list, where every name is defined once), a value that names another
// macro is followed to that macro's value, a few steps deep.
int defined_index(const std::string& source, const core::parameter& p, bool expand = false) {
  std::string name = "GLP_" + p.name;
  for (int step = 0; step < 8; ++step) {
    const std::regex define("#\\s*define\\s+" + name + "\\s+(\\S+)");
    std::smatch m;
    if (!std::regex_search(source, m, define)) return -1;
    const auto it = std::find(p.values.begin(), p.values.end(), m[1].str());
    if (it != p.values.end()) return static_cast<int>(it - p.values.begin());
    if (!expand || !std::regex_match(m[1].str(), std::regex("[A-Za-z_][A-Za-z0-9_]*"))) return -1;
    name = m[1].str();
  }
  return -1;
}

}  // namespace

int default_value_index(const std::string& source, const core::parameter& p) { return std::max(defined_index(source, p), 0); }

std::optional<core::genome> defined_point(const std::string& source, const core::search_space& space, bool preprocessed) {
  core::genome g;
  for (const auto& p : space.parameters()) {
    const int i = defined_index(source, p, preprocessed);
    if (i < 0) return std::nullopt;
    g.push_back(i);
  }
  if (!space.is_valid(g)) return std::nullopt;
  return g;
}

std::unique_ptr<core::search_space> variant_space(const core::search_space& base, const std::vector<core::parameter>& declared) {
  std::vector<core::parameter> params = base.parameters();
  const std::size_t leading = params.size();
  params.insert(params.end(), declared.begin(), declared.end());
  return std::make_unique<core::search_space>(std::move(params), [&base, leading](const core::genome& g) {
    return base.is_valid(core::genome(g.begin(), g.begin() + static_cast<std::ptrdiff_t>(leading)));
  });
}

}  // namespace galapagos::propose
