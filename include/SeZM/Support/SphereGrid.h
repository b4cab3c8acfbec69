//===- SphereGrid.h - DPA4's S2 and SO(3) grid constants --------*- C++ -*-===//
//
// What DeePMD-kit's DPA4 rebuilds at model construction for its grid nets
// and does not save: real spherical harmonics in e3nn's "norm" convention,
// and the to_grid / from_grid matrices on a Lebedev rule (S2) or on
// Lebedev points times rotations about the local axis (SO(3)).
// DeePMD-kit's grid products, from_grid(to_grid(a) * to_grid(b)) for
// coefficients of degree <= L, integrate polynomials of degree <= 3L on
// rules of precision >= 3L (and, on SO(3), frame frequencies below the
// number of rotations): they are exact, so they do not depend on which
// exact rule (or point order) carries them.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_SPHEREGRID_H
#define SEZM_SUPPORT_SPHEREGRID_H

#include "SeZM/Support/Lebedev.h"

#include <array>
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

/// A rotation as a unit quaternion (w, x, y, z).
using Quaternion = std::array<double, 4>;

/// The real-basis Wigner-D block of degree l of rotation q, row-major
/// (2l+1) x (2l+1), rows and columns by order m = -l..l: sezm's convention
/// (docs/sezm-ops.md 2.2), the one sezm.wigner evaluates per edge.
std::vector<double> wignerBlock(const Quaternion &q, int l);

/// DPA4's SO(3) grid (DeePMD-kit's SO3GridProjector) for degree lmax and
/// frames k in [0, -1, 1, ..., -kmax, kmax]: the rotations
/// R = Rz(gamma) Q(p), Q(p) a rotation taking point p of the Lebedev rule of
/// lebedevPrecisionForLmax(lmax) to +z, gamma = 2 pi j / (3 kmax + 1); with
/// coefficient j = d * frames + f (d = l*l + l + m):
///   toGrid[g][j]   = D^l[k_f][m](R_g)                       (zero where
///   fromGrid[j][g] = (2l + 1) w_p / gammas D^l[k_f][m](R_g)   |k_f| > l)
/// row-major. from_grid(to_grid(a)) = a for every a of degree <= lmax.
struct SO3Grid {
  int lmax = 0;
  SphereRule rule;
  int gammas = 1;
  std::vector<int> frames;
  std::vector<double> toGrid;
  std::vector<double> fromGrid;
  int coefficients() const {
    return (lmax + 1) * (lmax + 1) * static_cast<int>(frames.size());
  }
  int points() const { return static_cast<int>(rule.points.size()) * gammas; }
};

/// The grid for `lmax` and `kmax` (0 <= kmax <= lmax), or nothing beyond
/// the rules sezm carries (lmax 6).
std::optional<SO3Grid> so3Grid(int lmax, int kmax);

} // namespace sezmrt

#endif // SEZM_SUPPORT_SPHEREGRID_H
