#include "core/forest.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace galapagos::core {

void forest::fit(const std::vector<genome>& x, const std::vector<double>& y, rng& r) {
  if (x.empty() || x.size() != y.size())
    throw std::invalid_argument("forest::fit: needs as many targets as points, at least one");
  trees_.assign(static_cast<std::size_t>(settings_.trees), {});
  levels_.assign(x.front().size(), 1);
  for (const auto& g : x)
    for (std::size_t f = 0; f < g.size(); ++f) levels_[f] = std::max(levels_[f], g[f] + 1);
  const int n = static_cast<int>(x.size());
  for (auto& t : trees_) {
    std::vector<int> rows(static_cast<std::size_t>(n));
    for (auto& row : rows) row = r.below(n);  // bootstrap sample
    grow(t, rows, x, y, r);
  }
}

int forest::grow(tree& t, std::vector<int>& rows, const std::vector<genome>& x, const std::vector<double>& y, rng& r) {
  const int here = static_cast<int>(t.size());
  t.emplace_back();
  double sum = 0;
  for (const int row : rows) sum += y[static_cast<std::size_t>(row)];
  const double n = static_cast<double>(rows.size());
  t[static_cast<std::size_t>(here)].value = sum / n;
  if (static_cast<int>(rows.size()) < settings_.min_split) return here;

  // The parameters tried at this split: a random share of them, at least one.
  const int features = static_cast<int>(x.front().size());
  std::vector<int> order(static_cast<std::size_t>(features));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), r.engine());
  const int tried = std::max(1, static_cast<int>(std::lround(settings_.feature_share * features)));

  // Best split: the largest sum_left^2/n_left + sum_right^2/n_right (the smallest squared error),
  // from per-value sums (value indexes are small), so a node costs O(rows + values) per parameter.
  // Of every threshold of each tried parameter, or of one random threshold per parameter between
  // the smallest and the largest value the node's rows hold (random_thresholds).
  double best_gain = sum * sum / n + 1e-12 * std::abs(sum);
  int best_feature = -1, best_threshold = 0;
  for (int k = 0; k < tried; ++k) {
    const int f = order[static_cast<std::size_t>(k)];
    const auto levels = static_cast<std::size_t>(levels_[static_cast<std::size_t>(f)]);
    counts_.assign(levels, 0);
    sums_.assign(levels, 0.0);
    std::size_t lowest = levels, highest = 0;
    for (const int row : rows) {
      const auto v = static_cast<std::size_t>(x[static_cast<std::size_t>(row)][static_cast<std::size_t>(f)]);
      ++counts_[v];
      sums_[v] += y[static_cast<std::size_t>(row)];
      lowest = std::min(lowest, v);
      highest = std::max(highest, v);
    }
    if (lowest >= highest) continue;                 // one value here: nothing to split
    std::size_t first = lowest, last = highest - 1;  // thresholds: left holds values <= threshold
    if (settings_.random_thresholds)
      first = last = lowest + static_cast<std::size_t>(r.below(static_cast<int>(highest - lowest)));
    double left = 0, nl = 0;
    for (std::size_t v = lowest; v <= last; ++v) {
      left += sums_[v];
      nl += counts_[v];
      if (v < first || (!counts_[v] && v != last)) continue;
      const double nr = n - nl;
      const double gain = left * left / nl + (sum - left) * (sum - left) / nr;
      if (gain > best_gain) {
        best_gain = gain;
        best_feature = f;
        best_threshold = static_cast<int>(v);
      }
    }
  }
  if (best_feature < 0) return here;  // no split lowers the error: a leaf

  std::vector<int> left_rows, right_rows;
  for (const int row : rows)
    (x[static_cast<std::size_t>(row)][static_cast<std::size_t>(best_feature)] <= best_threshold ? left_rows : right_rows)
        .push_back(row);
  rows.clear();
  rows.shrink_to_fit();
  const int left = grow(t, left_rows, x, y, r);
  const int right = grow(t, right_rows, x, y, r);
  node& me = t[static_cast<std::size_t>(here)];
  me.feature = best_feature;
  me.threshold = best_threshold;
  me.left = left;
  me.right = right;
  return here;
}

double forest::leaf_value(const tree& t, const genome& g) {
  std::size_t i = 0;
  while (t[i].feature >= 0)
    i = static_cast<std::size_t>(g[static_cast<std::size_t>(t[i].feature)] <= t[i].threshold ? t[i].left : t[i].right);
  return t[i].value;
}

forest::prediction forest::predict(const genome& g) const {
  prediction p;
  if (trees_.empty()) return p;
  double sum = 0, squares = 0;
  for (const auto& t : trees_) {
    const double v = leaf_value(t, g);
    sum += v;
    squares += v * v;
  }
  const double n = static_cast<double>(trees_.size());
  p.mean = sum / n;
  p.spread = std::sqrt(std::max(0.0, squares / n - p.mean * p.mean));
  return p;
}

}  // namespace galapagos::core
