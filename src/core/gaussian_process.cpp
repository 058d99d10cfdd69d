#include "core/gaussian_process.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace galapagos::core {

namespace {

// In place: the lower Cholesky factor of the n x n row-major a. False where a is not positive
// definite. The matrices are a few dozen rows: a LAPACK call would cost more to link than it saves.
bool cholesky(std::vector<double>& a, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    if (!(d > 0)) return false;
    d = std::sqrt(d);
    a[j * n + j] = d;
    for (std::size_t i = j + 1; i < n; ++i) {
      double v = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) v -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = v / d;
    }
  }
  return true;
}

// b = L^-1 b, then (with `transposed`) b = L^-T b.
void solve(const std::vector<double>& l, std::size_t n, std::vector<double>& b, bool transposed) {
  for (std::size_t i = 0; i < n; ++i) {
    double v = b[i];
    for (std::size_t k = 0; k < i; ++k) v -= l[i * n + k] * b[k];
    b[i] = v / l[i * n + i];
  }
  if (!transposed) return;
  for (std::size_t i = n; i-- > 0;) {
    double v = b[i];
    for (std::size_t k = i + 1; k < n; ++k) v -= l[k * n + i] * b[k];
    b[i] = v / l[i * n + i];
  }
}

// The grid of lengths (times the square root of the dimension) and noises tried by fit.
constexpr double lengths[] = {0.05, 0.1, 0.2, 0.35, 0.6, 1.0};
constexpr double noises[] = {1e-3, 1e-2, 1e-1};

}  // namespace

std::vector<double> gaussian_process::features(const genome& g) const {
  std::vector<double> f;
  for (std::size_t p = 0; p < g.size(); ++p)
    if (levels_[p] > 1) f.push_back(g[p] / static_cast<double>(levels_[p] - 1));
  return f;
}

double gaussian_process::kernel(const std::vector<double>& a, const std::vector<double>& b) const {
  double squares = 0;
  for (std::size_t i = 0; i < a.size(); ++i) squares += (a[i] - b[i]) * (a[i] - b[i]);
  const double r = std::sqrt(5.0 * squares) / length_;
  return (1 + r + r * r / 3) * std::exp(-r);
}

bool gaussian_process::factor() {
  const std::size_t n = x_.size();
  chol_.assign(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j <= i; ++j) chol_[i * n + j] = chol_[j * n + i] = kernel(x_[i], x_[j]) + (i == j ? noise_ : 0.0);
  if (!cholesky(chol_, n)) return false;
  alpha_ = y_;
  solve(chol_, n, alpha_, true);
  return true;
}

void gaussian_process::fit(const std::vector<genome>& x, const std::vector<double>& y, const std::vector<int>& levels) {
  if (x.empty() || x.size() != y.size())
    throw std::invalid_argument("gaussian_process::fit: needs as many targets as points, at least one");
  levels_ = levels;
  x_.clear();
  for (const auto& g : x) x_.push_back(features(g));
  const double n = static_cast<double>(y.size());
  offset_ = 0;
  for (const double v : y) offset_ += v / n;
  double squares = 0;
  for (const double v : y) squares += (v - offset_) * (v - offset_);
  scale_ = squares > 0 ? std::sqrt(squares / n) : 1.0;
  y_.clear();
  for (const double v : y) y_.push_back((v - offset_) / scale_);
  lowest_ = *std::min_element(y_.begin(), y_.end());

  // The (length, noise) of the grid with the highest log marginal likelihood,
  // -y'K^-1y/2 - log det(L) (constants dropped).
  const double root = std::sqrt(static_cast<double>(std::max<std::size_t>(1, x_.front().size())));
  double best = -std::numeric_limits<double>::infinity(), best_length = lengths[0] * root, best_noise = noises[2];
  for (const double c : lengths)
    for (const double noise : noises) {
      length_ = c * root;
      noise_ = noise;
      if (!factor()) continue;
      auto a = y_;
      solve(chol_, x_.size(), a, false);
      double likelihood = 0;
      for (std::size_t i = 0; i < x_.size(); ++i) likelihood -= 0.5 * a[i] * a[i] + std::log(chol_[i * x_.size() + i]);
      if (likelihood > best) {
        best = likelihood;
        best_length = length_;
        best_noise = noise_;
      }
    }
  length_ = best_length;
  noise_ = best_noise;
  if (!factor()) throw std::runtime_error("gaussian_process::fit: the kernel matrix is not positive definite");
}

gaussian_process::prediction gaussian_process::predict(const genome& g) const {
  const auto f = features(g);
  const std::size_t n = x_.size();
  std::vector<double> k(n);
  double mean = 0;
  for (std::size_t i = 0; i < n; ++i) {
    k[i] = kernel(f, x_[i]);
    mean += k[i] * alpha_[i];
  }
  solve(chol_, n, k, false);
  double variance = 1.0;
  for (const double v : k) variance -= v * v;
  return {offset_ + scale_ * mean, scale_ * std::sqrt(std::max(variance, 1e-12))};
}

double gaussian_process::expected_improvement(const genome& g) const {
  const auto p = predict(g);
  const double lowest = offset_ + scale_ * lowest_, gap = lowest - p.mean, z = gap / p.sd;
  return gap * 0.5 * std::erfc(-z / std::numbers::sqrt2) + p.sd * std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi);
}

void gaussian_process::believe(const genome& g) {
  const double mean = predict(g).mean;
  x_.push_back(features(g));
  y_.push_back((mean - offset_) / scale_);
  if (!factor()) {  // a point on top of a measured one: drop it again
    x_.pop_back();
    y_.pop_back();
    factor();
  }
}

}  // namespace galapagos::core
