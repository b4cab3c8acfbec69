//===- SphereGrid.cpp - DPA4's S2 and SO(3) grid constants -------------===//

#include "SeZM/Support/SphereGrid.h"

#include <algorithm>
#include <cmath>
#include <complex>

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

namespace {
double factorial(int n) {
  double f = 1;
  for (int i = 2; i <= n; ++i)
    f *= i;
  return f;
}

double binomial(int n, int k) {
  return factorial(n) / (factorial(k) * factorial(n - k));
}

Quaternion hamilton(const Quaternion &a, const Quaternion &b) {
  return {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
          a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
          a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
          a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
}

Quaternion normalized(Quaternion q) {
  double norm =
      std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  for (double &c : q)
    c /= norm;
  return q;
}

/// A rotation taking the unit vector p to +z: the shortest arc, or, near
/// p = -z where that arc is undefined, the arc through the x-z plane
/// (sezm's two edge-frame charts). The rotation about z that follows is
/// free: the grid sums every gamma.
Quaternion toPole(const Vec3 &p) {
  if (p[2] > -0.5)
    return normalized({1.0 + p[2], p[1], -p[0], 0.0});
  return normalized({-p[0], 0.0, 1.0 - p[2], p[1]});
}
} // namespace

std::vector<double> sezmrt::wignerBlock(const Quaternion &q, int l) {
  using Complex = std::complex<double>;
  // Cayley-Klein parameters of q; the complex-basis block, then the change
  // to real orders U Dc U^H (its real part).
  Complex ra(q[0], -q[3]), rb(q[2], -q[1]);
  int width = 2 * l + 1;
  auto power = [](Complex z, int k) {
    Complex out = 1.0;
    for (int i = 0; i < k; ++i)
      out *= z;
    return out;
  };
  std::vector<Complex> dc(width * width);
  for (int mu = -l; mu <= l; ++mu)
    for (int nu = -l; nu <= l; ++nu) {
      Complex sum = 0.0;
      for (int rho = std::max(0, mu - nu); rho <= std::min(l + mu, l - nu);
           ++rho)
        sum += (rho % 2 ? -1.0 : 1.0) * binomial(l + mu, rho) *
               binomial(l - mu, l - nu - rho) * power(ra, l + mu - rho) *
               power(std::conj(ra), l - nu - rho) * power(rb, rho - mu + nu) *
               power(std::conj(rb), rho);
      dc[(mu + l) * width + nu + l] =
          std::sqrt(factorial(l + nu) * factorial(l - nu) /
                    (factorial(l + mu) * factorial(l - mu))) *
          sum;
    }
  std::vector<Complex> u(width * width, 0.0);
  double h = 1.0 / std::sqrt(2.0);
  for (int m = -l; m <= l; ++m) {
    double parity = std::abs(m) % 2 ? -1.0 : 1.0;
    Complex *row = &u[(m + l) * width + l];
    if (m == 0) {
      row[0] = 1.0;
    } else if (m > 0) {
      row[m] = h;
      row[-m] = parity * h;
    } else {
      row[-m] = Complex(0.0, -h);
      row[m] = Complex(0.0, parity * h);
    }
  }
  std::vector<double> d(width * width);
  for (int a = 0; a < width; ++a)
    for (int b = 0; b < width; ++b) {
      Complex sum = 0.0;
      for (int i = 0; i < width; ++i)
        for (int k = 0; k < width; ++k)
          sum += u[a * width + i] * dc[i * width + k] *
                 std::conj(u[b * width + k]);
      d[a * width + b] = sum.real();
    }
  return d;
}

std::optional<SO3Grid> sezmrt::so3Grid(int lmax, int kmax) {
  if (lmax < 0 || kmax < 0 || kmax > lmax)
    return std::nullopt;
  std::optional<SphereRule> rule = lebedevRule(lebedevPrecisionForLmax(lmax));
  if (!rule)
    return std::nullopt;
  SO3Grid grid;
  grid.lmax = lmax;
  grid.rule = std::move(*rule);
  // A product of two frame fields holds frame frequencies up to 3 kmax
  // against the output's frame: 3 kmax + 1 angles resolve them.
  grid.gammas = kmax == 0 ? 1 : 3 * kmax + 1;
  grid.frames.push_back(0);
  for (int k = 1; k <= kmax; ++k) {
    grid.frames.push_back(-k);
    grid.frames.push_back(k);
  }
  const int frames = static_cast<int>(grid.frames.size());
  const int coefficients = grid.coefficients(), points = grid.points();
  grid.toGrid.assign(static_cast<size_t>(points) * coefficients, 0.0);
  grid.fromGrid.assign(static_cast<size_t>(coefficients) * points, 0.0);
  for (size_t p = 0; p < grid.rule.points.size(); ++p) {
    Quaternion pole = toPole(grid.rule.points[p]);
    for (int j = 0; j < grid.gammas; ++j) {
      double half = M_PI * j / grid.gammas;
      Quaternion rotation =
          hamilton({std::cos(half), 0.0, 0.0, std::sin(half)}, pole);
      int g = static_cast<int>(p) * grid.gammas + j;
      double weight = grid.rule.weights[p] / grid.gammas;
      for (int l = 0; l <= lmax; ++l) {
        std::vector<double> block = wignerBlock(rotation, l);
        for (int m = -l; m <= l; ++m)
          for (int f = 0; f < frames; ++f) {
            int k = grid.frames[f];
            if (std::abs(k) > l)
              continue;
            double value = block[(k + l) * (2 * l + 1) + m + l];
            int column = (l * l + l + m) * frames + f;
            grid.toGrid[static_cast<size_t>(g) * coefficients + column] = value;
            grid.fromGrid[static_cast<size_t>(column) * points + g] =
                (2 * l + 1) * weight * value;
          }
      }
    }
  }
  return grid;
}
