//===- SphereGrid.h - DPA4's S2 grid constants ------------------*- C++ -*-===//
//
// What DeePMD-kit's DPA4 rebuilds at model construction for its S2-grid
// FFN and does not save: real spherical harmonics in e3nn's "norm"
// convention, and the to_grid / from_grid matrices on a Lebedev rule.
// DeePMD-kit's S2 product, from_grid(to_grid(a) * to_grid(b)) for
// coefficients of degree <= L, integrates a polynomial of degree <= 3L
// and the rule has precision >= 3L: it is exact, so it does not depend on
// which exact rule (or point order) carries it.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_SPHEREGRID_H
#define SEZM_SUPPORT_SPHEREGRID_H

#include "SeZM/Support/Lebedev.h"

#include <optional>
#include <vector>

namespace sezmrt {

/// The real spherical harmonics of degree <= lmax at the direction of `v`
/// as e3nn's spherical_harmonics(normalize=True, normalization="norm")
/// gives them and DeePMD-kit uses them: degree by degree, orders m = -l..l
/// (index l*l + l + m); y is the polar axis and phi = atan2(x, z); no
/// Condon-Shortley phase; sum_m Y_lm^2 = 1 on the sphere (the orthonormal
/// harmonics times sqrt(4 pi / (2l + 1))). The zero vector gives
/// [1, 0, 0, ...], as e3nn's clamped norm does.
std::vector<double> e3nnHarmonics(const Vec3 &v, int lmax);

/// DPA4's S2 grid for degree lmax (all orders): the Lebedev rule of
/// lebedevPrecisionForLmax(lmax), and
///   toGrid[p][j]   = Y_j(point p) / sqrt(lmax + 1)          (points x coeffs)
///   fromGrid[j][p] = Y_j(point p) w_p sqrt(lmax + 1) (2l + 1) (coeffs x
///   points)
/// row-major, with j = l*l + l + m. from_grid(to_grid(a)) = a for every a
/// of degree <= lmax.
struct S2Grid {
  int lmax = 0;
  SphereRule rule;
  std::vector<double> toGrid;
  std::vector<double> fromGrid;
  int coefficients() const { return (lmax + 1) * (lmax + 1); }
  int points() const { return static_cast<int>(rule.points.size()); }
};

/// The grid for `lmax`, or nothing beyond the rules sezm carries (lmax 6).
std::optional<S2Grid> s2Grid(int lmax);

} // namespace sezmrt

#endif // SEZM_SUPPORT_SPHEREGRID_H
