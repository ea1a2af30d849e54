// A Bayesian-style model search after Willemsen, van Nieuwpoort and van Werkhoven,
// "Bayesian Optimization for auto-tuning GPU kernels": a Gaussian process over the
// configurations (each axis scaled to [0, 1] by value index, Matérn 5/2 covariance with
// a fixed length scale) models the standardized objective; after a random first sample,
// each evaluation takes the unevaluated configuration of highest expected improvement.
// Invalid configurations enter the model at the worst valid value observed (our choice),
// so the model steers away from them without a penalty that would distort its scale. Simplifications: fixed hyperparameters (no fitting), one
// acquisition function (EI), and at most 2048 candidates scored per step (a seeded random
// subset of a larger space).
#include <algorithm>
#include <cmath>

#include "tune/search.hpp"

namespace hetbench::tune {

namespace {

constexpr double kLength = 0.3, kNoise = 1e-4, kXi = 0.01;
constexpr std::size_t kCandidates = 2048;

double matern52(const std::vector<double>& a, const std::vector<double>& b) {
  double d2 = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d2 += (a[i] - b[i]) * (a[i] - b[i]);
  const double r = std::sqrt(5 * d2) / kLength;
  return (1 + r + r * r / 3) * std::exp(-r);
}

// In-place Cholesky factor (lower) of a symmetric positive definite n x n matrix.
void cholesky(std::vector<double>& a, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::size_t k = 0; k < j; ++k) d -= a[j * n + k] * a[j * n + k];
    d = std::sqrt(std::max(d, 1e-12));
    a[j * n + j] = d;
    for (std::size_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (std::size_t k = 0; k < j; ++k) s -= a[i * n + k] * a[j * n + k];
      a[i * n + j] = s / d;
    }
  }
}

// Solves L v = b (forward substitution) in place.
void forward(const std::vector<double>& l, std::size_t n, std::vector<double>& b) {
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < i; ++k) b[i] -= l[i * n + k] * b[k];
    b[i] /= l[i * n + i];
  }
}

}  // namespace

void bayes(Search& s, Rng& rng) {
  const Space& sp = s.space();
  auto coords = [&](std::size_t i) {
    std::vector<double> x;
    for (std::size_t a = 0; a < sp.axes().size(); ++a)
      x.push_back(sp.config(i)[a] / std::max(1.0, sp.axes()[a].values.size() - 1.0));
    return x;
  };
  const std::size_t first = std::max<std::size_t>(3, std::min<std::size_t>(20, s.budget() / 5));
  while (s.order().size() < first && !s.done()) {
    const std::size_t u = s.random_unseen(rng);
    if (u == sp.size() || !s.evaluate(u)) return;
  }
  while (!s.done()) {
    const auto& seen = s.order();
    const std::size_t n = seen.size();
    double worst = 0, mean = 0, var = 0;
    std::size_t valid = 0;
    for (auto i : seen)
      if (s.value(i) != kInvalid) worst = valid++ ? std::min(worst, s.value(i)) : s.value(i);
    std::vector<double> y(n);
    for (std::size_t k = 0; k < n; ++k) y[k] = s.value(seen[k]) == kInvalid ? worst : s.value(seen[k]);
    for (double v : y) mean += v / n;
    for (double v : y) var += (v - mean) * (v - mean) / n;
    const double sd = var > 0 ? std::sqrt(var) : 1;
    double best = -1e300;
    for (auto& v : y) best = std::max(best, v = (v - mean) / sd);
    std::vector<std::vector<double>> x;
    for (auto i : seen) x.push_back(coords(i));
    std::vector<double> l(n * n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) l[i * n + j] = matern52(x[i], x[j]) + (i == j ? kNoise : 0);
    cholesky(l, n);
    // alpha = K^-1 y through L and L^T.
    std::vector<double> alpha = y;
    forward(l, n, alpha);
    for (std::size_t i = n; i-- > 0;) {
      for (std::size_t k = i + 1; k < n; ++k) alpha[i] -= l[k * n + i] * alpha[k];
      alpha[i] /= l[i * n + i];
    }
    std::vector<std::size_t> cand;
    for (std::size_t i = 0; i < sp.size(); ++i)
      if (!s.seen(i)) cand.push_back(i);
    if (cand.empty()) return;
    if (cand.size() > kCandidates) {
      for (std::size_t i = 0; i < kCandidates; ++i) std::swap(cand[i], cand[i + uniform_index(rng, cand.size() - i)]);
      cand.resize(kCandidates);
    }
    std::size_t pick = cand[0];
    double top = -1;
    for (auto c : cand) {
      const auto xc = coords(c);
      std::vector<double> k(n);
      for (std::size_t i = 0; i < n; ++i) k[i] = matern52(xc, x[i]);
      double mu = 0;
      for (std::size_t i = 0; i < n; ++i) mu += k[i] * alpha[i];
      forward(l, n, k);
      double v = 1;
      for (double e : k) v -= e * e;
      const double sigma = std::sqrt(std::max(v, 1e-12));
      const double z = (mu - best - kXi) / sigma;
      const double ei = (mu - best - kXi) * 0.5 * std::erfc(-z / std::sqrt(2.0)) +
                        sigma * std::exp(-z * z / 2) / std::sqrt(2 * M_PI);
      if (ei > top) {
        top = ei;
        pick = c;
      }
    }
    if (!s.evaluate(pick)) return;
  }
}

}  // namespace hetbench::tune
