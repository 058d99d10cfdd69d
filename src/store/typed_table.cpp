#include "store/typed_table.hpp"

#include "util/error.hpp"

namespace galapagos::store::detail {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw galapagos::error(path, "cannot " + what + " (" + hdf5_message() + ")");
}

// --- UTF-8: the string types are declared UTF-8, so invalid bytes are replaced by U+FFFD ---

// Length of the well-formed UTF-8 sequence starting at s[i], or 0 when there is none.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return 1;
  std::size_t len = 0;
  unsigned lo = 0x80, hi = 0xBF;  // allowed range of the second byte (no overlongs/surrogates)
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (b < (k == 1 ? lo : 0x80u) || b > (k == 1 ? hi : 0xBFu)) return 0;
  }
  return len;
}

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0, len; i < s.size(); i += len)
    if ((len = utf8_sequence_length(s, i)) == 0) return false;
  return true;
}

std::string sanitize_utf8(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    if (const std::size_t len = utf8_sequence_length(s, i); len > 0) {
      out.append(s.substr(i, len));
      i += len;
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    }
  }
  return out;
}

// A C string for HDF5: the string itself when valid UTF-8, else a sanitized copy kept in
// `scratch` until the write is done.
const char* utf8_c_str(const std::string& s, std::deque<std::string>& scratch) {
  if (valid_utf8(s)) return s.c_str();
  return scratch.emplace_back(sanitize_utf8(s)).c_str();
}

}  // namespace galapagos::store::detail
