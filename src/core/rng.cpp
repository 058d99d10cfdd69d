#include "core/rng.hpp"

#include <sstream>
#include <stdexcept>

namespace galapagos::core {

std::string rng::state() const {
  std::ostringstream out;
  out << engine_;
  return out.str();
}

void rng::restore(const std::string& state) {
  std::istringstream in(state);
  std::mt19937_64 engine;
  in >> engine;
  if (in.fail()) throw std::invalid_argument("rng::restore: malformed engine state");
  in >> std::ws;
  if (!in.eof()) throw std::invalid_argument("rng::restore: trailing data after engine state");
  engine_ = engine;
}

namespace {

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

std::uint64_t derive_seed(std::uint64_t run_seed, std::uint64_t a, std::uint64_t b) {
  // Each stage is a bijection of its input, so distinct a (for fixed run_seed) never collide.
  std::uint64_t h = splitmix64(run_seed);
  h = splitmix64(h ^ a);
  return splitmix64(h ^ b);
}

}  // namespace galapagos::core
