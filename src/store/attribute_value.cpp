#include "store/attribute_value.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace galapagos::store {

namespace {

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<double> parse_number(std::string_view text) {
  const std::string s(trimmed(text));
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_integer(std::string_view text) {
  const std::string_view s = trimmed(text);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::string format_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

}  // namespace

std::optional<double> as_number(const attribute_value& v) {
  return std::visit(
      overloaded{[](const std::string& s) { return parse_number(s); }, [](double d) { return std::optional<double>(d); },
                 [](std::int64_t i) { return std::optional<double>(static_cast<double>(i)); },
                 [](bool b) { return std::optional<double>(b ? 1.0 : 0.0); }},
      v);
}

std::optional<std::int64_t> as_integer(const attribute_value& v) {
  return std::visit(overloaded{[](const std::string& s) {
                                 if (auto i = parse_integer(s)) return i;
                                 // An old file's number written as text with an exponent ("1e+06").
                                 const auto d = parse_number(s);
                                 return d ? as_integer(*d) : std::nullopt;
                               },
                               [](double d) {
                                 // Integral and within int64 (2^63 is just outside).
                                 return std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9.2233720368547758e18
                                            ? std::optional<std::int64_t>(static_cast<std::int64_t>(d))
                                            : std::nullopt;
                               },
                               [](std::int64_t i) { return std::optional<std::int64_t>(i); },
                               [](bool b) { return std::optional<std::int64_t>(b ? 1 : 0); }},
                    v);
}

std::optional<bool> as_flag(const attribute_value& v) {
  return std::visit(overloaded{[](const std::string& s) -> std::optional<bool> {
                                 const std::string_view t = trimmed(s);
                                 if (t == "true" || t == "1") return true;
                                 if (t == "false" || t == "0") return false;
                                 return std::nullopt;
                               },
                               [](double d) -> std::optional<bool> {
                                 if (d == 1) return true;
                                 if (d == 0) return false;
                                 return std::nullopt;
                               },
                               [](std::int64_t i) -> std::optional<bool> {
                                 if (i == 1) return true;
                                 if (i == 0) return false;
                                 return std::nullopt;
                               },
                               [](bool b) { return std::optional<bool>(b); }},
                    v);
}

std::string as_text(const attribute_value& v) {
  return std::visit(
      overloaded{[](const std::string& s) { return s; }, [](double d) { return format_number(d); },
                 [](std::int64_t i) { return std::to_string(i); }, [](bool b) { return std::string(b ? "true" : "false"); }},
      v);
}

std::string describe(const attribute_value& v) {
  return std::visit(overloaded{[](const std::string& s) { return "text '" + s.substr(0, 60) + "'"; },
                               [](double d) { return "number " + format_number(d); },
                               [](std::int64_t i) { return "integer " + std::to_string(i); },
                               [](bool b) { return std::string("flag ") + (b ? "true" : "false"); }},
                    v);
}

}  // namespace galapagos::store
