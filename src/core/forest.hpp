// A random forest of regression trees over genomes: the surrogate model of the `forest`
// strategy. Each tree is grown on a bootstrap sample of the evaluated points; a split sends a
// genome left when its value index for one parameter is at most a threshold (parameter values
// are ordered, so thresholds are ranges of values). By default the thresholds are drawn at random
// (extremely randomised trees): the split is the best of a random threshold per tried parameter.
// The spread of the trees' predictions stands in for the model's uncertainty. Small on purpose:
// a few hundred points, a few dozen trees.
#pragma once

#include <vector>

#include "core/rng.hpp"
#include "core/search_space.hpp"

namespace galapagos::core {

struct forest_settings {
  int trees = 24;
  int min_split = 3;           // nodes with fewer samples are leaves
  double feature_share = 0.6;  // share of the parameters tried at each split (at least one)
  // Extremely randomised trees: each parameter tried at a split gets one threshold drawn at
  // random within the node's range of its values, instead of the best of all thresholds.
  bool random_thresholds = true;
};

class forest {
 public:
  explicit forest(forest_settings settings = {}) : settings_(settings) {}

  // Grows the trees on (x[i], y[i]); x holds genomes of one length. Needs at least one point.
  void fit(const std::vector<genome>& x, const std::vector<double>& y, rng& r);

  struct prediction {
    double mean = 0;
    double spread = 0;  // standard deviation of the trees' predictions
  };
  prediction predict(const genome& g) const;
  // One tree's prediction (a sample of the model, for Thompson sampling).
  double predict(const genome& g, int tree) const { return leaf_value(trees_[static_cast<std::size_t>(tree)], g); }
  int trees() const { return static_cast<int>(trees_.size()); }
  bool empty() const { return trees_.empty(); }

 private:
  struct node {
    int feature = -1;  // -1: a leaf holding `value`
    int threshold = 0;
    int left = -1, right = -1;
    double value = 0;
  };
  using tree = std::vector<node>;

  int grow(tree& t, std::vector<int>& rows, const std::vector<genome>& x, const std::vector<double>& y, rng& r);
  static double leaf_value(const tree& t, const genome& g);

  forest_settings settings_;
  std::vector<tree> trees_;
  std::vector<int> levels_;   // per parameter: 1 + the largest value index seen
  std::vector<int> counts_;   // scratch of grow: rows per value index
  std::vector<double> sums_;  // and their targets' sum
};

}  // namespace galapagos::core
