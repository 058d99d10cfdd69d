// The tunable-parameter space of one kernel family on one backend: each parameter has a finite
// list of values; a genome holds one value index per parameter. Validity (the family's
// constraints) is an injected predicate so that this module stays free of any parser.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/rng.hpp"

namespace galapagos::core {

struct parameter {
  std::string name;
  std::vector<std::string> values;  // textual values, passed to the compiler as -DGLP_<name>=<value>
};

using genome = std::vector<int>;  // genome[i] indexes parameters()[i].values

class search_space {
 public:
  using predicate = std::function<bool(const genome&)>;
  // Throws std::invalid_argument for an empty parameter list entry (no values) or duplicate names.
  search_space(std::vector<parameter> params, predicate valid);
  // A space whose valid points are all known (a recording): `points` must be sorted, distinct
  // and in range; enumerate walks them, sample draws from them, is_valid still asks `valid`.
  search_space(std::vector<parameter> params, predicate valid, std::vector<genome> points);

  const std::vector<parameter>& parameters() const { return params_; }
  bool is_valid(const genome& g) const;                       // in range and satisfies the predicate
  double cardinality() const;                                 // product of value counts (may be huge)
  std::optional<genome> sample(rng& r, int max_tries) const;  // uniform over valid points (rejection)
  // The first of up to max_tries samples for which `fresh` holds; a sample that finds no valid
  // point in max_tries is not the end where valid points are rare (one in 540 of the gemm CUDA
  // space: one such sample in 40 fails): up to 16 of them are drawn again.
  std::optional<genome> sample_fresh(rng& r, int max_tries, const std::function<bool(const genome&)>& fresh) const;
  // As sample_fresh, among the valid points whose parameter `param` holds value index `value`:
  // drawn with that value fixed (a listed space: from its points), none when max_tries find none.
  std::optional<genome> sample_fresh_with(rng& r, int max_tries, std::size_t param, int value,
                                          const std::function<bool(const genome&)>& fresh) const;
  // A uniform pick among the `points` for which `wanted` holds: max_tries random picks, then one
  // pass over them all (a rare match is still found); none when no point matches.
  static std::optional<genome> pick_listed(const std::vector<genome>& points, rng& r, int max_tries,
                                           const std::function<bool(const genome&)>& wanted);
  // Counts valid points by enumeration, stopping at `limit` (returns limit when reached).
  std::uint64_t count_valid(std::uint64_t limit) const;
  // Calls f on every valid genome in lexicographic order until f returns false.
  void enumerate(const std::function<bool(const genome&)>& f) const;
  std::map<std::string, std::string> values(const genome& g) const;
  std::string to_json(const genome& g) const;  // {"NAME": value, ...}; numbers unquoted
  std::optional<genome> from_values(const std::map<std::string, std::string>& v) const;

 private:
  std::vector<parameter> params_;
  predicate valid_;
  std::optional<std::vector<genome>> points_;
};

}  // namespace galapagos::core
