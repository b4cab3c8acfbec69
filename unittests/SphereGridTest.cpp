//===- SphereGridTest.cpp - DPA4's S2 grid constants against DeePMD-kit ---===//
//
// The e3nn "norm" harmonics equal DeePMD-kit's on seeded vectors; the S2
// product from_grid(to_grid(a) * to_grid(b)) on sezm's Lebedev rules equals
// DeePMD-kit's on its own rules (test/Import/make_grid_fixtures.py) for
// lmax 1..6 to 1e-12, which holds because the product is exact on any rule
// of precision >= 3 lmax; from_grid inverts to_grid.
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
    int j = grid->coefficients(), p = grid->points(), c = 4;
    std::string prefix = "s2grid-l" + std::to_string(lmax) + "-";
    HostTensor a = fixture(prefix + "a.npy"), b = fixture(prefix + "b.npy");
    HostTensor expected = fixture(prefix + "product.npy");
    ASSERT_EQ(expected.shape, (std::vector<int64_t>{j, c}));
    // Grid values of a and b, their product, back to coefficients.
    std::vector<double> onGrid(p * c, 0.0), product(j * c, 0.0);
    for (int q = 0; q < p; ++q)
      for (int k = 0; k < c; ++k) {
        double ga = 0, gb = 0;
        for (int i = 0; i < j; ++i) {
          ga += grid->toGrid[q * j + i] * a.data<double>()[i * c + k];
          gb += grid->toGrid[q * j + i] * b.data<double>()[i * c + k];
        }
        onGrid[q * c + k] = ga * gb;
      }
    for (int i = 0; i < j; ++i)
      for (int k = 0; k < c; ++k)
        for (int q = 0; q < p; ++q)
          product[i * c + k] += grid->fromGrid[i * p + q] * onGrid[q * c + k];
    std::vector<double> diff(j * c);
    std::vector<double> want(expected.data<double>(),
                             expected.data<double>() + j * c);
    for (int i = 0; i < j * c; ++i)
      diff[i] = product[i] - want[i];
    EXPECT_LT(maxAbs(diff) / maxAbs(want), 1e-12) << "lmax " << lmax;

    // from_grid inverts to_grid.
    double worst = 0;
    for (int i = 0; i < j; ++i)
      for (int k = 0; k < j; ++k) {
        double sum = 0;
        for (int q = 0; q < p; ++q)
          sum += grid->fromGrid[i * p + q] * grid->toGrid[q * j + k];
        worst = std::max(worst, std::abs(sum - (i == k ? 1.0 : 0.0)));
      }
    EXPECT_LT(worst, 1e-13) << "lmax " << lmax;
  }
  EXPECT_FALSE(s2Grid(7));
}
