// The parts the strategies share (core/strategy.hpp has the interface): the text of numbers and
// genomes in a strategy's state, the local searches' moves, and one maker per kind, each defined
// in its own file (strategy_<kind>.cpp). Private to src/core.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/strategy.hpp"

namespace galapagos::core::detail {

inline constexpr double inf = std::numeric_limits<double>::infinity();

std::string number_text(double v);  // "%.17g", "inf", "-inf": read back exactly by read_number
std::string genome_text(const genome& g);
[[noreturn]] void bad_state(const std::string& what);  // std::invalid_argument "strategy::restore: ..."
genome read_genome(std::istringstream& in, std::size_t length);
double read_number(std::istringstream& in);

// Single-parameter moves around a genome, and two-parameter ones, for the local searches.
class neighbourhood {
 public:
  explicit neighbourhood(const search_space& s) : space_(s) {}
  // Tier 1: one parameter to its next or previous value; tier 2: one parameter to any other
  // value; tier 3: two parameters to any other values. Shuffled by r.
  std::vector<genome> moves(const genome& g, int tier, rng& r) const;

 private:
  const search_space& space_;
};

std::unique_ptr<strategy> make_random_strategy(const search_space& s, std::uint64_t seed);
std::unique_ptr<strategy> make_exhaustive_strategy(const search_space& s, const strategy_settings& st, std::uint64_t seed);
std::unique_ptr<strategy> make_annealing_strategy(const search_space& s, const strategy_settings& st, std::uint64_t seed);
std::unique_ptr<strategy> make_ga_strategy(const search_space& s, const strategy_settings& st, std::uint64_t seed);
std::unique_ptr<strategy> make_hybrid_strategy(const search_space& s, const strategy_settings& st, std::uint64_t seed);
std::unique_ptr<strategy> make_forest_strategy(const search_space& s, const strategy_settings& st, std::uint64_t seed);

}  // namespace galapagos::core::detail
