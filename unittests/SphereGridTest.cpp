//===- SphereGridTest.cpp - DPA4's grid constants against DeePMD-kit ------===//
//
// The e3nn "norm" harmonics equal DeePMD-kit's on seeded vectors; the S2
// product from_grid(to_grid(a) * to_grid(b)) on sezm's Lebedev rules equals
// DeePMD-kit's on its own rules (test/Import/make_grid_fixtures.py) for
// lmax 1..6 to 1e-12, which holds because the product is exact on any rule
// of precision >= 3 lmax; from_grid inverts to_grid. The same for the SO(3)
// grid (frames |k| <= kmax), whose rotations sezm chooses on its own: the
// Wigner-D blocks are rotations and compose.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Support/SphereGrid.h"
#include "SeZM/Support/Npy.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace sezmrt;

namespace {
HostTensor fixture(const std::string &name) {
  HostTensor tensor;
  std::string error;
  EXPECT_TRUE(
      readNpy(std::string(SEZM_IMPORT_FIXTURES) + "/" + name, tensor, error))
      << error;
  return tensor;
}

double maxAbs(const std::vector<double> &values) {
  double out = 0;
  for (double v : values)
    out = std::max(out, std::abs(v));
  return out;
}

/// The relative distance of from_grid(to_grid(a) * to_grid(b)) on a grid of
/// j coefficients and p points from DeePMD-kit's, for the fixtures
/// <prefix>{a,b,product}.npy (j x 4 each).
double productError(const std::vector<double> &toGrid,
                    const std::vector<double> &fromGrid, int j, int p,
                    const std::string &prefix) {
  const int c = 4;
  HostTensor a = fixture(prefix + "a.npy"), b = fixture(prefix + "b.npy");
  HostTensor expected = fixture(prefix + "product.npy");
  EXPECT_EQ(expected.shape, (std::vector<int64_t>{j, c})) << prefix;
  if (expected.shape != std::vector<int64_t>{j, c})
    return 1.0;
  std::vector<double> onGrid(p * c, 0.0), product(j * c, 0.0);
  for (int q = 0; q < p; ++q)
    for (int k = 0; k < c; ++k) {
      double ga = 0, gb = 0;
      for (int i = 0; i < j; ++i) {
        ga += toGrid[q * j + i] * a.data<double>()[i * c + k];
        gb += toGrid[q * j + i] * b.data<double>()[i * c + k];
      }
      onGrid[q * c + k] = ga * gb;
    }
  for (int i = 0; i < j; ++i)
    for (int k = 0; k < c; ++k)
      for (int q = 0; q < p; ++q)
        product[i * c + k] += fromGrid[i * p + q] * onGrid[q * c + k];
  std::vector<double> diff(j * c),
      want(expected.data<double>(), expected.data<double>() + j * c);
  for (int i = 0; i < j * c; ++i)
    diff[i] = product[i] - want[i];
  return maxAbs(diff) / maxAbs(want);
}

/// max |from_grid to_grid - I|.
double inverseError(const std::vector<double> &toGrid,
                    const std::vector<double> &fromGrid, int j, int p) {
  double worst = 0;
  for (int i = 0; i < j; ++i)
    for (int k = 0; k < j; ++k) {
      double sum = 0;
      for (int q = 0; q < p; ++q)
        sum += fromGrid[i * p + q] * toGrid[q * j + k];
      worst = std::max(worst, std::abs(sum - (i == k ? 1.0 : 0.0)));
    }
  return worst;
}
} // namespace

TEST(SphereGrid, HarmonicsAreDeePMDKits) {
  HostTensor vectors = fixture("s2grid-vectors.npy");
  HostTensor expected = fixture("s2grid-harmonics.npy");
  ASSERT_EQ(expected.shape, (std::vector<int64_t>{20, 49}));
  for (int i = 0; i < 20; ++i) {
    const double *v = vectors.data<double>() + 3 * i;
    std::vector<double> y = e3nnHarmonics({v[0], v[1], v[2]}, 6);
    for (int j = 0; j < 49; ++j)
      EXPECT_NEAR(y[j], expected.data<double>()[49 * i + j], 1e-14)
          << "vector " << i << ", harmonic " << j;
  }
  // The l = 1 block is the unit vector itself; the zero vector gives Y_00.
  std::vector<double> y = e3nnHarmonics({0.0, 3.0, 4.0}, 1);
  EXPECT_NEAR(y[1], 0.0, 1e-15);
  EXPECT_NEAR(y[2], 0.6, 1e-15);
  EXPECT_NEAR(y[3], 0.8, 1e-15);
  EXPECT_EQ(e3nnHarmonics({0.0, 0.0, 0.0}, 2),
            (std::vector<double>{1, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(SphereGrid, ProductIsDeePMDKits) {
  for (int lmax = 1; lmax <= 6; ++lmax) {
    std::optional<S2Grid> grid = s2Grid(lmax);
    ASSERT_TRUE(grid);
    std::string prefix = "s2grid-l" + std::to_string(lmax) + "-";
    EXPECT_LT(productError(grid->toGrid, grid->fromGrid, grid->coefficients(),
                           grid->points(), prefix),
              1e-12)
        << "lmax " << lmax;
    EXPECT_LT(inverseError(grid->toGrid, grid->fromGrid, grid->coefficients(),
                           grid->points()),
              1e-13)
        << "lmax " << lmax;
  }
  EXPECT_FALSE(s2Grid(7));
}

TEST(SphereGrid, WignerBlocksAreRotations) {
  // D^1 of a rotation by 90 degrees about z, in sezm's real basis
  // (orders -1, 0, 1 ~ y, z, x): an orthogonal matrix fixing the z row.
  double h = std::sqrt(0.5);
  std::vector<double> d = wignerBlock({h, 0.0, 0.0, h}, 1);
  EXPECT_NEAR(d[4], 1.0, 1e-15);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) {
      double dot = 0;
      for (int k = 0; k < 3; ++k)
        dot += d[a * 3 + k] * d[b * 3 + k];
      EXPECT_NEAR(dot, a == b ? 1.0 : 0.0, 1e-15);
    }
  // D of a product is the product of the D's (here at l = 3).
  Quaternion q = {0.5, 0.5, -0.5, 0.5},
             r = {std::cos(0.3), 0.0, 0.0, std::sin(0.3)};
  Quaternion qr = {r[0] * q[0] - r[3] * q[3], r[0] * q[1] - r[3] * q[2],
                   r[0] * q[2] + r[3] * q[1], r[0] * q[3] + r[3] * q[0]};
  std::vector<double> dq = wignerBlock(q, 3), dr = wignerBlock(r, 3),
                      dqr = wignerBlock(qr, 3);
  for (int a = 0; a < 7; ++a)
    for (int b = 0; b < 7; ++b) {
      double sum = 0;
      for (int k = 0; k < 7; ++k)
        sum += dr[a * 7 + k] * dq[k * 7 + b];
      EXPECT_NEAR(dqr[a * 7 + b], sum, 1e-14) << a << ", " << b;
    }
}

TEST(SphereGrid, SO3ProductIsDeePMDKits) {
  for (auto [lmax, kmax] : {std::pair{1, 1}, {2, 1}, {3, 1}, {2, 2}, {4, 1}}) {
    std::optional<SO3Grid> grid = so3Grid(lmax, kmax);
    ASSERT_TRUE(grid);
    EXPECT_EQ(grid->gammas, 3 * kmax + 1);
    EXPECT_EQ(grid->frames.size(), static_cast<size_t>(2 * kmax + 1));
    std::string prefix =
        "so3grid-l" + std::to_string(lmax) + "-k" + std::to_string(kmax) + "-";
    EXPECT_LT(productError(grid->toGrid, grid->fromGrid, grid->coefficients(),
                           grid->points(), prefix),
              1e-12)
        << "lmax " << lmax << ", kmax " << kmax;
    // from_grid inverts to_grid on the frames each degree has (the others
    // are zero rows and columns).
    int frames = static_cast<int>(grid->frames.size());
    int j = grid->coefficients(), p = grid->points();
    double worst = 0;
    for (int i = 0; i < j; ++i)
      for (int k = 0; k < j; ++k) {
        double sum = 0;
        for (int q = 0; q < p; ++q)
          sum += grid->fromGrid[i * p + q] * grid->toGrid[q * j + k];
        int l = static_cast<int>(std::sqrt(i / frames));
        bool kept = std::abs(grid->frames[i % frames]) <= l;
        worst = std::max(worst, std::abs(sum - (i == k && kept ? 1.0 : 0.0)));
      }
    EXPECT_LT(worst, 1e-13) << "lmax " << lmax << ", kmax " << kmax;
  }
  EXPECT_FALSE(so3Grid(2, 3));
  EXPECT_FALSE(so3Grid(7, 1));
}
