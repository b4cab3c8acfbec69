//===- SphereGrid.cpp - DPA4's S2 grid constants --------------------------===//

#include "SeZM/Support/SphereGrid.h"

#include <algorithm>
#include <cmath>

using namespace sezmrt;

std::vector<double> sezmrt::e3nnHarmonics(const Vec3 &v, int lmax) {
  std::vector<double> out((lmax + 1) * (lmax + 1), 0.0);
  double length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  out[0] = 1.0;
  if (length == 0.0)
    return out;
  double x = v[0] / length, y = v[1] / length, z = v[2] / length;
  double cosTheta = std::clamp(y, -1.0, 1.0);
  double sinTheta = std::hypot(x, z);
  double phi = std::atan2(x, z);
  // Fully normalised associated Legendre functions without the
  // Condon-Shortley phase, by the recurrences on the normalised functions
  // (no factorials): pbar[l][m] = sqrt((2l+1)/(4pi) (l-m)!/(l+m)!) P_l^m.
  std::vector<std::vector<double>> pbar(lmax + 1);
  for (int l = 0; l <= lmax; ++l)
    pbar[l].assign(l + 1, 0.0);
  pbar[0][0] = std::sqrt(1.0 / (4.0 * M_PI));
  for (int m = 1; m <= lmax; ++m)
    pbar[m][m] =
        std::sqrt((2.0 * m + 1.0) / (2.0 * m)) * sinTheta * pbar[m - 1][m - 1];
  for (int m = 0; m < lmax; ++m)
    pbar[m + 1][m] = std::sqrt(2.0 * m + 3.0) * cosTheta * pbar[m][m];
  for (int m = 0; m <= lmax; ++m)
    for (int l = m + 2; l <= lmax; ++l) {
      double a = std::sqrt((4.0 * l * l - 1.0) / (l * l - m * m));
      double b = std::sqrt(((l - 1.0) * (l - 1.0) - m * m) /
                           (4.0 * (l - 1.0) * (l - 1.0) - 1.0));
      pbar[l][m] = a * (cosTheta * pbar[l - 1][m] - b * pbar[l - 2][m]);
    }
  for (int l = 0; l <= lmax; ++l) {
    double scale = std::sqrt(4.0 * M_PI / (2.0 * l + 1.0));
    int centre = l * l + l;
    out[centre] = scale * pbar[l][0];
    for (int m = 1; m <= l; ++m) {
      double base = std::sqrt(2.0) * scale * pbar[l][m];
      out[centre - m] = base * std::sin(m * phi);
      out[centre + m] = base * std::cos(m * phi);
    }
  }
  return out;
}

std::optional<S2Grid> sezmrt::s2Grid(int lmax) {
  if (lmax < 0)
    return std::nullopt;
  std::optional<SphereRule> rule = lebedevRule(lebedevPrecisionForLmax(lmax));
  if (!rule)
    return std::nullopt;
  S2Grid grid;
  grid.lmax = lmax;
  grid.rule = std::move(*rule);
  int coefficients = grid.coefficients(), points = grid.points();
  double scale = std::sqrt(lmax + 1.0);
  grid.toGrid.assign(static_cast<size_t>(points) * coefficients, 0.0);
  grid.fromGrid.assign(static_cast<size_t>(coefficients) * points, 0.0);
  for (int p = 0; p < points; ++p) {
    std::vector<double> y = e3nnHarmonics(grid.rule.points[p], lmax);
    for (int l = 0; l <= lmax; ++l)
      for (int j = l * l; j < (l + 1) * (l + 1); ++j) {
        grid.toGrid[p * coefficients + j] = y[j] / scale;
        grid.fromGrid[j * points + p] =
            y[j] * grid.rule.weights[p] * scale * (2 * l + 1);
      }
  }
  return grid;
}
