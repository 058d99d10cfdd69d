// Reading the JSON recorded spaces: gzip, Kernel Tuner's way of closing an unfinished cache, and
// the value text shared by the Kernel Tuner and T4 readers.
#include <zlib.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string_view>

#include "simulate/space_formats.hpp"
#include "util/error.hpp"
#include "util/unreadable.hpp"

namespace galapagos::simulate::detail {

using nlohmann::json;

namespace {

std::string gunzip(const std::string& bytes, const std::string& file) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) throw error(file, "cannot start zlib to decompress it");
  std::string out;
  char buf[1 << 16];
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&z);
      throw error(file, "gzip-compressed, but its stream is damaged or cut short (zlib: " +
                            std::string(z.msg               ? z.msg
                                        : rc == Z_BUF_ERROR ? "unexpected end"
                                                            : "error") +
                            ")");
    }
    out.append(buf, sizeof buf - z.avail_out);
  }
  inflateEnd(&z);
  return out;
}

std::string trimmed(const std::string& s) {
  const auto end = s.find_last_not_of(" \t\r\n");
  return end == std::string::npos ? std::string{} : s.substr(0, end + 1);
}

// Kernel Tuner's reading of a cache that was not closed: a trailing comma dropped, "}\n}" appended.
std::string closed(std::string s) {
  s = trimmed(s);
  if (!s.empty() && s.back() == ',') s.pop_back();
  return s + "}\n}";
}

// Python's json module writes non-finite floats as the bare words NaN, Infinity and -Infinity,
// which JSON lacks (a Kernel Tuner cache or a T4 file may hold them, e.g. a metric of a failed
// run): outside strings they become null, which the readers take as "no value".
std::string without_python_nonfinite(const std::string& text) {
  if (text.find("NaN") == std::string::npos && text.find("Infinity") == std::string::npos) return text;
  const auto word_at = [&](std::size_t i) -> std::size_t {
    const std::string_view rest(text.data() + i, text.size() - i);
    for (const std::string_view word : {"-Infinity", "Infinity", "NaN"})
      if (rest.starts_with(word)) return word.size();
    return 0;
  };
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size())
        out += text[++i];  // an escaped character, a quote included
      else if (c == '"')
        in_string = false;
    } else if (const std::size_t n = word_at(i)) {
      out += "null";
      i += n - 1;
    } else {
      out += c;
      in_string = c == '"';
    }
  }
  return out;
}

}  // namespace

std::string read_space_bytes(const std::filesystem::path& file) {
  std::ifstream in = util::open_for_reading(file, recorded_space_kinds);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b)
    return gunzip(bytes, file.string());
  return bytes;
}

json_document parse_space_json(const std::string& raw, const std::string& file) {
  const std::string text = without_python_nonfinite(raw);
  json_document out;
  try {
    out.doc = json::parse(text);
    return out;
  } catch (const json::exception& e) {
    const std::string t = trimmed(text);
    const bool ends_closed = t.size() >= 3 && (t.ends_with("}\n}") || t.ends_with("}}}"));
    if (!t.empty() && t.front() == '{' && !ends_closed) {
      out.closed_here = true;
      if (auto doc = json::parse(closed(t), nullptr, false); !doc.is_discarded()) {
        out.doc = std::move(doc);
        return out;
      }
      // The run stopped while writing an entry: drop that partial last line too, or, where entries
      // do not end lines (a cache rewritten on one line), everything after the last closing brace
      // that ends a whole entry.
      if (const auto nl = t.find_last_of('\n'); nl != std::string::npos)
        if (auto doc = json::parse(closed(t.substr(0, nl)), nullptr, false); !doc.is_discarded()) {
          out.doc = std::move(doc);
          return out;
        }
      auto brace = t.size();
      for (int tries = 0; tries < 16 && brace > 0; ++tries) {
        brace = t.find_last_of('}', brace - 1);
        if (brace == std::string::npos) break;
        if (auto doc = json::parse(closed(t.substr(0, brace + 1)), nullptr, false); !doc.is_discarded()) {
          out.doc = std::move(doc);
          return out;
        }
      }
    }
    throw error(file, std::string("not a JSON document (expected a Kernel Tuner cache, plain, gzip-compressed or left "
                                  "unfinished by an interrupted run, or T4 results): ") +
                          e.what());
  }
}

bool parse_number(const std::string& s, double& out) {
  if (s.empty()) return false;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end != s.c_str() && *end == 0;
}

std::string value_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_number()) return v.dump();
  return {};
}

void sort_values(std::vector<std::string>& values) {
  bool numeric = true;
  double a = 0;
  for (const auto& v : values) numeric = numeric && parse_number(v, a);
  std::sort(values.begin(), values.end(), [&](const std::string& x, const std::string& y) {
    if (!numeric) return x < y;
    double vx = 0, vy = 0;
    parse_number(x, vx);
    parse_number(y, vy);
    return vx < vy;
  });
}

bool looks_like_t4(const json& doc) { return doc.is_object() && doc.contains("results") && !doc.contains("cache"); }

}  // namespace galapagos::simulate::detail
