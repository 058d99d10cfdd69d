// Content hashes. content_hash / hash_text key the results file's source table (recorded
// files and replays depend on their values): not cryptographic, two independent 64-bit FNV-1a
// streams printed as 32 hex digits. sha256 keys what an adversary must not be able to collide:
// the build cache, whose sources may come from a language model.
#pragma once

#include <memory>
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

// SHA-256 (Nettle) of a sequence of byte strings, each length-suffixed like content_hash.
class sha256 {
 public:
  sha256();
  ~sha256();
  sha256(const sha256&) = delete;
  sha256& operator=(const sha256&) = delete;
  sha256& add(std::string_view bytes);
  std::string hex() const;  // 64 hex digits

 private:
  struct state;
  std::unique_ptr<state> state_;
};

// The splitmix64 finaliser: a counter-based mixer, so that random streams derived from a seed
// can be drawn in parallel and reproduced element by element.
[[gnu::always_inline]] inline unsigned long long mix64(unsigned long long x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// The file's bytes; `what` names the kind of file expected, for the error when it is a folder.
// Throws galapagos::error naming the file (util::open_for_reading).
std::string read_file(const std::string& path, const std::string& what = "a file");

}  // namespace galapagos::util
