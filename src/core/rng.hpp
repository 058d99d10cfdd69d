// The one random engine of the search: a 64-bit Mersenne twister whose whole state can be
// written to and read from text, so that runs are reproducible from a seed and resumable.
#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace galapagos::core {

class rng {
 public:
  explicit rng(std::uint64_t seed = 0) : engine_(seed) {}
  std::uint64_t next() { return engine_(); }
  double uniform() { return std::uniform_real_distribution<double>(0.0, 1.0)(engine_); }
  int below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(engine_); }
  std::string state() const;
  void restore(const std::string& state);
  std::mt19937_64& engine() { return engine_; }

 private:
  std::mt19937_64 engine_;
};

// Derives independent seeds (island i, stream k) from one run seed (splitmix64 mixing).
std::uint64_t derive_seed(std::uint64_t run_seed, std::uint64_t a, std::uint64_t b = 0);

}  // namespace galapagos::core
