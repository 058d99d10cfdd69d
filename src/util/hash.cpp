#include "util/hash.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "util/error.hpp"

namespace galapagos::util {

content_hash& content_hash::add(std::string_view bytes) {
  constexpr unsigned long long prime = 0x100000001b3ull;
  auto feed = [&](unsigned char c) {
    a_ = (a_ ^ c) * prime;
    b_ = (b_ ^ static_cast<unsigned char>(c + 0x5b)) * prime;
  };
  for (unsigned char c : bytes) feed(c);
  std::size_t n = bytes.size();
  for (int i = 0; i < 8; ++i) feed(static_cast<unsigned char>(n >> (8 * i)));
  return *this;
}

std::string content_hash::hex() const {
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", a_, b_);
  return buf;
}

std::string hash_text(std::string_view text) { return content_hash().add(text).hex(); }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(path, "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace galapagos::util
