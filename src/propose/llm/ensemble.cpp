#include "propose/llm/ensemble.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace galapagos::propose {

ensemble::ensemble(std::vector<double> weights, bool bandit, double sharpness, int warmup)
    : bandit_(bandit), sharpness_(sharpness), warmup_(warmup) {
  if (weights.empty()) throw std::invalid_argument("an ensemble needs at least one model");
  for (double w : weights) {
    if (!(w > 0) || !std::isfinite(w)) throw std::invalid_argument("model weights must be > 0");
    arms_.push_back({w, 0, 0, 0});
  }
}

std::vector<double> ensemble::shares() const {
  std::vector<double> rate(arms_.size(), 0.0);
  double best = 0;
  for (std::size_t i = 0; i < arms_.size(); ++i) {
    const auto& a = arms_[i];
    rate[i] = a.cost > 0 ? a.gain / a.cost : 0.0;
    best = std::max(best, rate[i]);
  }
  std::vector<double> p(arms_.size());
  double total = 0;
  for (std::size_t i = 0; i < arms_.size(); ++i) {
    double score = 1.0;
    if (bandit_) {
      const double relative = arms_[i].calls < warmup_ || best <= 0 ? 1.0 : rate[i] / best;
      score = std::exp(sharpness_ * (relative - 1.0));
    }
    p[i] = arms_[i].weight * score;
    total += p[i];
  }
  for (double& x : p) x /= total;
  return p;
}

int ensemble::pick(core::rng& r) const {
  const auto p = shares();
  double u = r.uniform();
  for (std::size_t i = 0; i + 1 < p.size(); ++i) {
    if (u < p[i]) return static_cast<int>(i);
    u -= p[i];
  }
  return static_cast<int>(p.size()) - 1;
}

void ensemble::reward(int model, double gain, double cost) {
  auto& a = arms_.at(static_cast<std::size_t>(model));
  ++a.calls;
  a.gain += std::max(0.0, gain);
  a.cost += std::max(0.0, cost);
}

}  // namespace galapagos::propose
