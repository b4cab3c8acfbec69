//===- ReferenceTest.cpp - the fp64 reference against sezm-ops.md --------===//
//
// Checks the reference's Wigner-D against the worked test vector of
// sezm-ops.md 2.2 and against Definition A, the identity
// D^l(q) Yt_l(r) = Yt_l(R(q) r), so that the execution tests compare the
// compiler against something known to be right.
//
//===----------------------------------------------------------------------===//

#include "Reference/Reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace sezm::reference;

namespace {
std::array<double, 3> randomDirection(std::mt19937_64 &rng) {
  std::normal_distribution<double> normal;
  return {normal(rng), normal(rng), normal(rng)};
}

std::array<double, 3>
rotateVector(const std::array<std::array<double, 3>, 3> &m,
             const std::array<double, 3> &v) {
  std::array<double, 3> out{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      out[i] += m[i][j] * v[j];
  return out;
}
} // namespace

TEST(Reference, QuaternionOfTheTestVector) {
  Quaternion q = edgeQuaternion({1.0 / 3, 2.0 / 3, 2.0 / 3});
  const double expected[4] = {-0.9128464, -0.3637996, 0.1852472, 0.0066947};
  for (int i = 0; i < 4; ++i)
    EXPECT_NEAR(q[i], expected[i], 1e-6) << "component " << i;
}

TEST(Reference, WignerOfTheTestVector) {
  Quaternion q = edgeQuaternion({1.0 / 3, 2.0 / 3, 2.0 / 3});
  std::vector<double> d1 = wignerBlock(q, 1);
  const double rows[3][3] = {{0.7352101, -0.6617059, 0.1470082},
                             {0.6666667, 0.6666667, -0.3333333},
                             {0.1225632, 0.3430755, 0.9312773}};
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      EXPECT_NEAR(d1[a * 3 + b], rows[a][b], 1e-6)
          << "D^1[" << a << "][" << b << "]";
  std::vector<double> d2 = wignerBlock(q, 2);
  const double middle[5] = {-0.3849002, 0.7698004, 0.1666667, -0.3849002,
                            -0.2886751};
  for (int b = 0; b < 5; ++b)
    EXPECT_NEAR(d2[2 * 5 + b], middle[b], 1e-6) << "D^2[0][" << b << "]";
}

TEST(Reference, EdgeQuaternionRotatesTheEdgeOntoZ) {
  std::mt19937_64 rng(7);
  std::vector<std::array<double, 3>> edges = {
      {0, 0, 1}, {0, 0, -1}, {1e-9, 0, -1}, {1, 0, 0}, {0, -2, 0}};
  for (int i = 0; i < 200; ++i)
    edges.push_back(randomDirection(rng));
  for (const auto &v : edges) {
    auto r = rotateVector(rotationMatrix(edgeQuaternion(v)), v);
    double n = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    EXPECT_NEAR(r[0] / n, 0, 1e-9);
    EXPECT_NEAR(r[1] / n, 0, 1e-9);
    EXPECT_NEAR(r[2] / n, 1, 1e-9);
  }
}

// Definition A: D^l(q) Yt_l(r) = Yt_l(R(q) r) for all r, every l up to 6.
TEST(Reference, WignerRotatesRealHarmonics) {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    Quaternion q = edgeQuaternion(randomDirection(rng));
    auto rotation = rotationMatrix(q);
    std::array<double, 3> r = randomDirection(rng);
    for (int l = 0; l <= 6; ++l) {
      std::vector<double> d = wignerBlock(q, l);
      std::vector<double> before = realHarmonics(r, l);
      std::vector<double> after = realHarmonics(rotateVector(rotation, r), l);
      int w = 2 * l + 1;
      for (int a = 0; a < w; ++a) {
        double rotated = 0;
        for (int b = 0; b < w; ++b)
          rotated += d[a * w + b] * before[b];
        EXPECT_NEAR(rotated, after[a], 1e-10) << "l = " << l << ", row " << a;
      }
    }
  }
}

TEST(Reference, WignerBlocksAreOrthogonal) {
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 20; ++trial) {
    Quaternion q = edgeQuaternion(randomDirection(rng));
    for (int l = 0; l <= 6; ++l) {
      std::vector<double> d = wignerBlock(q, l);
      int w = 2 * l + 1;
      for (int a = 0; a < w; ++a)
        for (int b = 0; b < w; ++b) {
          double dot = 0;
          for (int k = 0; k < w; ++k)
            dot += d[a * w + k] * d[b * w + k];
          EXPECT_NEAR(dot, a == b ? 1.0 : 0.0, 1e-10);
        }
    }
  }
}

// The edge direction has only m = 0 content in its own frame.
TEST(Reference, EdgeDirectionHasOnlyMZeroContent) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 20; ++trial) {
    std::array<double, 3> v = randomDirection(rng);
    Quaternion q = edgeQuaternion(v);
    for (int l = 0; l <= 6; ++l) {
      std::vector<double> d = wignerBlock(q, l);
      std::vector<double> y = realHarmonics(v, l);
      int w = 2 * l + 1;
      for (int a = 0; a < w; ++a) {
        double rotated = 0;
        for (int b = 0; b < w; ++b)
          rotated += d[a * w + b] * y[b];
        double expected = a == l ? std::sqrt((2 * l + 1) / (4 * M_PI)) : 0.0;
        EXPECT_NEAR(rotated, expected, 1e-10);
      }
    }
  }
}

TEST(Reference, CsrListsEachEdgeOnceInStableOrder) {
  Csr csr = Csr::build({2, 0, 2, 1, 0}, 4);
  EXPECT_EQ(csr.rowptr, (std::vector<int64_t>{0, 2, 3, 5, 5}));
  EXPECT_EQ(csr.order, (std::vector<int64_t>{1, 4, 3, 0, 2}));
}
