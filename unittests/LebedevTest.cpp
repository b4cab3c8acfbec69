//===- LebedevTest.cpp - the Lebedev rules integrate exactly --------------===//
//
// Every rule integrates every real spherical harmonic up to its precision
// exactly (mean 0 for l > 0, 1/sqrt(4 pi) for Y_00) and keeps the
// harmonics up to half its precision orthonormal, to 1e-13 in fp64; one
// degree more, some harmonic's mean is far from zero, so the check can
// fail. The harmonics are computed here from associated Legendre
// functions, apart from any table.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Support/Lebedev.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace sezmrt;

namespace {
/// Every real spherical harmonic of degree <= lmax at `p` (orthonormal on
/// the sphere), in the order (0,0), (1,-1), (1,0), (1,1), (2,-2), ...
std::vector<double> realHarmonics(const Vec3 &p, int lmax) {
  double z = p[2], phi = std::atan2(p[1], p[0]);
  double s = std::sqrt(std::max(0.0, 1 - z * z));
  // Associated Legendre P_l^m(z) without the Condon-Shortley phase.
  std::vector<std::vector<double>> legendre(lmax + 1,
                                            std::vector<double>(lmax + 1));
  for (int m = 0; m <= lmax; ++m) {
    double pmm = 1;
    for (int k = 1; k <= m; ++k)
      pmm *= (2 * k - 1) * s;
    legendre[m][m] = pmm;
    if (m + 1 <= lmax)
      legendre[m + 1][m] = z * (2 * m + 1) * pmm;
    for (int l = m + 2; l <= lmax; ++l)
      legendre[l][m] = ((2 * l - 1) * z * legendre[l - 1][m] -
                        (l + m - 1) * legendre[l - 2][m]) /
                       (l - m);
  }
  std::vector<double> out;
  for (int l = 0; l <= lmax; ++l)
    for (int m = -l; m <= l; ++m) {
      int a = std::abs(m);
      double norm =
          std::sqrt((2 * l + 1) / (4 * M_PI) *
                    std::exp(std::lgamma(l - a + 1) - std::lgamma(l + a + 1)));
      double value = norm * legendre[l][a];
      if (m > 0)
        value *= std::sqrt(2.0) * std::cos(m * phi);
      else if (m < 0)
        value *= std::sqrt(2.0) * std::sin(a * phi);
      out.push_back(value);
    }
  return out;
}

/// The rule's mean of each harmonic up to `lmax`.
std::vector<double> harmonicMeans(const SphereRule &rule, int lmax) {
  std::vector<double> means((lmax + 1) * (lmax + 1), 0.0);
  for (size_t i = 0; i < rule.points.size(); ++i) {
    std::vector<double> y = realHarmonics(rule.points[i], lmax);
    for (size_t k = 0; k < y.size(); ++k)
      means[k] += rule.weights[i] * y[k];
  }
  return means;
}
} // namespace

TEST(Lebedev, RulesSezmNeedsAreThere) {
  std::vector<int> expected = {3, 7, 9, 13, 15, 19};
  for (int lmax = 1; lmax <= 6; ++lmax)
    EXPECT_EQ(lebedevPrecisionForLmax(lmax), expected[lmax - 1]) << lmax;
  EXPECT_FALSE(lebedevRule(6));
  ASSERT_TRUE(lebedevRule(9));
  EXPECT_EQ(lebedevRule(9)->points.size(), 38u);
}

TEST(Lebedev, IntegratesEveryHarmonicUpToItsPrecision) {
  for (int precision : lebedevPrecisions()) {
    SphereRule rule = *lebedevRule(precision);
    double total = 0;
    for (size_t i = 0; i < rule.points.size(); ++i) {
      const Vec3 &p = rule.points[i];
      EXPECT_NEAR(p[0] * p[0] + p[1] * p[1] + p[2] * p[2], 1.0, 1e-15);
      total += rule.weights[i];
    }
    EXPECT_NEAR(total, 1.0, 1e-14) << precision;
    std::vector<double> means = harmonicMeans(rule, precision);
    EXPECT_NEAR(means[0], 1 / std::sqrt(4 * M_PI), 1e-13) << precision;
    for (size_t k = 1; k < means.size(); ++k)
      EXPECT_NEAR(means[k], 0.0, 1e-13)
          << "precision " << precision << ", harmonic " << k;

    // One degree more: not exact.
    std::vector<double> beyond = harmonicMeans(rule, precision + 1);
    double worst = 0;
    for (size_t k = means.size(); k < beyond.size(); ++k)
      worst = std::max(worst, std::abs(beyond[k]));
    EXPECT_GT(worst, 1e-4) << precision;
  }
}

TEST(Lebedev, KeepsHarmonicsOrthonormal) {
  for (int precision : lebedevPrecisions()) {
    SphereRule rule = *lebedevRule(precision);
    int lmax = precision / 2;
    int count = (lmax + 1) * (lmax + 1);
    std::vector<double> gram(count * count, 0.0);
    for (size_t i = 0; i < rule.points.size(); ++i) {
      std::vector<double> y = realHarmonics(rule.points[i], lmax);
      for (int a = 0; a < count; ++a)
        for (int b = 0; b < count; ++b)
          gram[a * count + b] += 4 * M_PI * rule.weights[i] * y[a] * y[b];
    }
    for (int a = 0; a < count; ++a)
      for (int b = 0; b < count; ++b)
        EXPECT_NEAR(gram[a * count + b], a == b ? 1.0 : 0.0, 1e-13)
            << "precision " << precision << ", " << a << " " << b;
  }
}
