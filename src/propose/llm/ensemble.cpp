#include "propose/llm/ensemble.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
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

std::string ensemble::state() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& a : arms_) out.push_back({{"calls", a.calls}, {"gain", a.gain}, {"cost", a.cost}});
  return out.dump();
}

void ensemble::restore(const std::string& text) {
  const auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_array() || j.size() != arms_.size())
    throw std::invalid_argument("the bandit's state holds " + std::string(j.is_array() ? std::to_string(j.size()) : "no") +
                                " models, the run has " + std::to_string(arms_.size()));
  std::vector<arm> restored = arms_;
  for (std::size_t i = 0; i < arms_.size(); ++i) {
    const auto& a = j[i];
    if (!a.is_object() || !a.contains("calls") || !a["calls"].is_number_integer() || !a.contains("gain") ||
        !a["gain"].is_number() || !a.contains("cost") || !a["cost"].is_number())
      throw std::invalid_argument("model " + std::to_string(i) + " of the bandit's state lacks calls, gain or cost");
    restored[i].calls = a["calls"].get<int>();
    restored[i].gain = a["gain"].get<double>();
    restored[i].cost = a["cost"].get<double>();
    if (restored[i].calls < 0 || !(restored[i].gain >= 0) || !(restored[i].cost >= 0))
      throw std::invalid_argument("model " + std::to_string(i) + " of the bandit's state has negative or non-finite figures");
  }
  arms_ = std::move(restored);
}

}  // namespace galapagos::propose
