// Quantiles of a sample, one definition for the evaluator's timing statistics and for the
// summaries of `galapagos simulate`.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace galapagos::util {

// The q-quantile (q in [0, 1]) of an ascending sample, interpolated linearly between the order
// statistics around q * (n - 1) (numpy's default method). NaN for an empty sample.
inline double quantile_of_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return NAN;
  const double x = q * static_cast<double>(sorted.size() - 1);
  const auto i = static_cast<std::size_t>(x);
  const double frac = x - static_cast<double>(i);
  return i + 1 < sorted.size() ? sorted[i] * (1 - frac) + sorted[i + 1] * frac : sorted[i];
}

}  // namespace galapagos::util
