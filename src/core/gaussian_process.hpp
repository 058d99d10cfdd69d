// A Gaussian process over genomes: the `forest` strategy's second model, for its first few dozen
// evaluations. Each parameter's value index is scaled to [0, 1] (parameters of one value drop
// out); the kernel is Matern 5/2 of the Euclidean distance, one length for every parameter; the
// length and the noise are the pair of a small grid with the highest marginal likelihood of the
// targets (standardised). Small on purpose: exact inference, a few dozen points.
#pragma once

#include <vector>

#include "core/search_space.hpp"

namespace galapagos::core {

class gaussian_process {
 public:
  // Fits to (x[i], y[i]); levels[p] is the number of values of parameter p. Needs one point.
  void fit(const std::vector<genome>& x, const std::vector<double>& y, const std::vector<int>& levels);

  struct prediction {
    double mean = 0;
    double sd = 0;  // the posterior's standard deviation, noise excluded
  };
  prediction predict(const genome& g) const;
  // Expected improvement over the lowest target fitted, at g (in the targets' units).
  double expected_improvement(const genome& g) const;
  // Adds g with the model's own mean there as its target (the kriging believer), keeping the
  // length and noise: the model is then about as sure at g as at a measured point, so the next
  // pick of a batch goes elsewhere.
  void believe(const genome& g);

  double length() const { return length_; }
  double noise() const { return noise_; }

 private:
  std::vector<double> features(const genome& g) const;
  double kernel(const std::vector<double>& a, const std::vector<double>& b) const;
  bool factor();  // the Cholesky factor of K + noise I, and alpha = (K + noise I)^-1 y

  std::vector<int> levels_;
  std::vector<std::vector<double>> x_;
  std::vector<double> y_;  // standardised
  double offset_ = 0, scale_ = 1, lowest_ = 0;
  double length_ = 1, noise_ = 1e-2;
  std::vector<double> chol_, alpha_;
};

}  // namespace galapagos::core
