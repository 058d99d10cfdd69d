#include "core/search_space.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <utility>

namespace galapagos::core {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// True when `s` is a complete JSON number (RFC 8259 grammar), so it may be written bare.
// Texts such as "007", "+1", ".5", "inf" or "1.0f" are not, and are written as strings.
bool is_json_number(const std::string& s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  if (i < n && s[i] == '-') ++i;
  if (i >= n) return false;
  if (s[i] == '0') {
    ++i;
  } else if (is_digit(s[i])) {
    while (i < n && is_digit(s[i])) ++i;
  } else {
    return false;
  }
  if (i < n && s[i] == '.') {
    ++i;
    if (i >= n || !is_digit(s[i])) return false;
    while (i < n && is_digit(s[i])) ++i;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (i >= n || !is_digit(s[i])) return false;
    while (i < n && is_digit(s[i])) ++i;
  }
  return i == n;
}

void append_json_string(std::string& out, const std::string& s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

}  // namespace

search_space::search_space(std::vector<parameter> params, predicate valid)
    : params_(std::move(params)), valid_(std::move(valid)) {
  std::set<std::string> names;
  for (const auto& p : params_) {
    if (p.values.empty()) throw std::invalid_argument("search_space: parameter '" + p.name + "' has no values");
    if (!names.insert(p.name).second) throw std::invalid_argument("search_space: duplicate parameter '" + p.name + "'");
  }
}

search_space::search_space(std::vector<parameter> params, predicate valid, std::vector<genome> points)
    : search_space(std::move(params), std::move(valid)) {
  if (!std::is_sorted(points.begin(), points.end()) || std::adjacent_find(points.begin(), points.end()) != points.end())
    throw std::invalid_argument("search_space: listed points must be sorted and distinct");
  for (const auto& g : points) {
    bool in_range = g.size() == params_.size();
    for (std::size_t i = 0; in_range && i < g.size(); ++i)
      in_range = g[i] >= 0 && static_cast<std::size_t>(g[i]) < params_[i].values.size();
    if (!in_range) throw std::invalid_argument("search_space: a listed point is out of range");
  }
  points_ = std::move(points);
}

bool search_space::is_valid(const genome& g) const {
  if (g.size() != params_.size()) return false;
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (g[i] < 0 || static_cast<std::size_t>(g[i]) >= params_[i].values.size()) return false;
  }
  return !valid_ || valid_(g);
}

double search_space::cardinality() const {
  double c = 1.0;
  for (const auto& p : params_) c *= static_cast<double>(p.values.size());
  return c;
}

std::optional<genome> search_space::sample(rng& r, int max_tries) const {
  if (points_) {
    if (points_->empty()) return std::nullopt;
    return (*points_)[static_cast<std::size_t>(r.below(static_cast<int>(points_->size())))];
  }
  genome g(params_.size());
  for (int t = 0; t < max_tries; ++t) {
    for (std::size_t i = 0; i < params_.size(); ++i) g[i] = r.below(static_cast<int>(params_[i].values.size()));
    if (is_valid(g)) return g;
  }
  return std::nullopt;
}

std::optional<genome> search_space::sample_fresh(rng& r, int max_tries, const std::function<bool(const genome&)>& fresh) const {
  constexpr int misses_allowed = 16;
  for (int t = 0, missed = 0; t < max_tries; ++t) {
    auto g = sample(r, max_tries);
    if (!g) {
      if (++missed == misses_allowed) break;
      continue;
    }
    if (fresh(*g)) return g;
  }
  return std::nullopt;
}

std::optional<genome> search_space::sample_fresh_with(rng& r, int max_tries, std::size_t param, int value,
                                                      const std::function<bool(const genome&)>& fresh) const {
  if (param >= params_.size() || value < 0 || static_cast<std::size_t>(value) >= params_[param].values.size())
    return std::nullopt;
  if (points_) return pick_listed(*points_, r, max_tries, [&](const genome& g) { return g[param] == value && fresh(g); });
  genome g(params_.size());
  for (int t = 0; t < max_tries; ++t) {
    for (std::size_t i = 0; i < params_.size(); ++i)
      g[i] = i == param ? value : r.below(static_cast<int>(params_[i].values.size()));
    if (is_valid(g) && fresh(g)) return g;
  }
  return std::nullopt;
}

std::optional<genome> search_space::pick_listed(const std::vector<genome>& points, rng& r, int max_tries,
                                                const std::function<bool(const genome&)>& wanted) {
  if (points.empty()) return std::nullopt;
  for (int t = 0; t < max_tries; ++t)
    if (const auto& g = points[static_cast<std::size_t>(r.below(static_cast<int>(points.size())))]; wanted(g)) return g;
  std::optional<genome> out;
  int matches = 0;
  for (const auto& g : points)  // reservoir sampling: each match kept with probability 1/matches
    if (wanted(g) && r.below(++matches) == 0) out = g;
  return out;
}

std::uint64_t search_space::count_valid(std::uint64_t limit) const {
  std::uint64_t count = 0;
  if (limit == 0) return 0;
  enumerate([&](const genome&) { return ++count < limit; });
  return count;
}

void search_space::enumerate(const std::function<bool(const genome&)>& f) const {
  if (points_) {
    for (const auto& g : *points_)
      if (!f(g)) return;
    return;
  }
  genome g(params_.size(), 0);
  while (true) {
    if (is_valid(g) && !f(g)) return;
    // Odometer step: the last gene turns fastest, giving lexicographic order.
    std::size_t i = g.size();
    while (i > 0) {
      --i;
      if (static_cast<std::size_t>(++g[i]) < params_[i].values.size()) break;
      g[i] = 0;
      if (i == 0) return;
    }
    if (g.empty()) return;
  }
}

std::map<std::string, std::string> search_space::values(const genome& g) const {
  if (g.size() != params_.size()) throw std::invalid_argument("search_space::values: genome length mismatch");
  std::map<std::string, std::string> out;
  for (std::size_t i = 0; i < g.size(); ++i) out[params_[i].name] = params_[i].values.at(g[i]);
  return out;
}

std::string search_space::to_json(const genome& g) const {
  if (g.size() != params_.size()) throw std::invalid_argument("search_space::to_json: genome length mismatch");
  std::string out = "{";
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (i > 0) out += ',';
    append_json_string(out, params_[i].name);
    out += ':';
    const std::string& v = params_[i].values.at(g[i]);
    if (is_json_number(v)) {
      out += v;
    } else {
      append_json_string(out, v);
    }
  }
  out += '}';
  return out;
}

std::optional<genome> search_space::from_values(const std::map<std::string, std::string>& v) const {
  genome g(params_.size());
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const auto it = v.find(params_[i].name);
    if (it == v.end()) return std::nullopt;
    const auto& vals = params_[i].values;
    const auto pos = std::find(vals.begin(), vals.end(), it->second);
    if (pos == vals.end()) return std::nullopt;
    g[i] = static_cast<int>(pos - vals.begin());
  }
  return g;
}

}  // namespace galapagos::core
