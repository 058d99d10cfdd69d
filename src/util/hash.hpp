// Content hashes for the build cache and the results file's source table. Not cryptographic:
// two independent 64-bit FNV-1a streams, printed as 32 hex digits.
#pragma once

#include <string>
#include <string_view>

namespace galapagos::util {

class content_hash {
 public:
  content_hash& add(std::string_view bytes);  // also feeds the length, so ("ab","c") != ("a","bc")
  std::string hex() const;

 private:
  unsigned long long a_ = 0xcbf29ce484222325ull;
  unsigned long long b_ = 0x84222325cbf29ce4ull;
};

std::string hash_text(std::string_view text);

// The splitmix64 finaliser: a counter-based mixer, so that random streams derived from a seed
// can be drawn in parallel and reproduced element by element.
inline unsigned long long mix64(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
std::string read_file(const std::string& path);  // throws galapagos::error naming the file

}  // namespace galapagos::util
