// An ensemble of models with weights (a fast one for breadth, a strong one for depth). With the
// bandit on, the weight moves towards the model whose candidates improve most per cost: each
// model's share is its configured weight times exp(sharpness * its gain per cost relative to the
// best model's), where gain is log(parent time / child time) when the child is faster (0 for a
// failed or slower child) and cost is money, or tokens where no price is set. A model with
// fewer than `warmup` calls is treated as the best, so every model is tried.
#pragma once

#include <string>
#include <vector>

#include "core/rng.hpp"

namespace galapagos::propose {

class ensemble {
 public:
  // Throws std::invalid_argument for no weights or a weight that is not > 0.
  ensemble(std::vector<double> weights, bool bandit, double sharpness = 3.0, int warmup = 2);
  int pick(core::rng& r) const;
  void reward(int model, double gain, double cost);
  std::vector<double> shares() const;  // the probabilities pick() draws from, summing to 1
  int calls(int model) const { return arms_.at(static_cast<std::size_t>(model)).calls; }
  // The statistics (calls, gain, cost per model) as text, for a checkpoint, and back. restore()
  // throws std::invalid_argument for text that is not such a state or holds another number of
  // models; the weights stay the configured ones.
  std::string state() const;
  void restore(const std::string& text);

 private:
  struct arm {
    double weight = 1;
    int calls = 0;
    double gain = 0, cost = 0;
  };
  std::vector<arm> arms_;
  bool bandit_;
  double sharpness_;
  int warmup_;
};

}  // namespace galapagos::propose
