#include "util/hash.hpp"

#include <nettle/sha2.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "util/error.hpp"
#include "util/unreadable.hpp"

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

struct sha256::state {
  sha256_ctx ctx;
};

sha256::sha256() : state_(std::make_unique<state>()) { sha256_init(&state_->ctx); }
sha256::~sha256() = default;

sha256& sha256::add(std::string_view bytes) {
  sha256_update(&state_->ctx, bytes.size(), reinterpret_cast<const std::uint8_t*>(bytes.data()));
  unsigned char n[8];
  for (int i = 0; i < 8; ++i) n[i] = static_cast<unsigned char>(static_cast<unsigned long long>(bytes.size()) >> (8 * i));
  sha256_update(&state_->ctx, sizeof n, n);
  return *this;
}

std::string sha256::hex() const {
  sha256_ctx copy = state_->ctx;  // sha256_digest resets the context it reads
  std::uint8_t digest[SHA256_DIGEST_SIZE];
  sha256_digest(&copy, sizeof digest, digest);
  std::string out;
  char buf[3];
  for (auto b : digest) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    out += buf;
  }
  return out;
}

std::string read_file(const std::string& path, const std::string& what) {
  std::ifstream in = open_for_reading(path, what);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace galapagos::util
