//===- Lebedev.h - Lebedev quadrature on the unit sphere --------*- C++ -*-===//
//
// The rules DPA4's S2-grid FFN integrates on: points in orbits of the
// octahedral group and weights, exact for every polynomial up to the rule's
// precision. The orbits are derived by utils/lebedev/make_lebedev_rules.py
// (LebedevRules.inc). Plain C++: the importer builds its grid constants
// from them.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_LEBEDEV_H
#define SEZM_SUPPORT_LEBEDEV_H

#include "SeZM/Support/Structure.h"

#include <optional>
#include <vector>

namespace sezmrt {

/// A quadrature rule on the unit sphere: the mean of f over the sphere is
/// sum_i weights[i] f(points[i]) (the weights sum to 1; times 4 pi for the
/// integral) for every polynomial f of degree <= precision.
struct SphereRule {
  int precision = 0;
  std::vector<Vec3> points;
  std::vector<double> weights;
};

/// The precisions of the rules sezm carries, increasing (3, 5, ..., 19).
std::vector<int> lebedevPrecisions();

/// The Lebedev rule of exactly `precision`, or nothing where sezm carries
/// none. Points come orbit by orbit, each orbit's in lexicographic order.
std::optional<SphereRule> lebedevRule(int precision);

/// DeePMD-kit's rule for an S2 grid of degree `lmax`: the smallest of
/// precision >= 3 lmax (lmax 1..6: 3, 7, 9, 13, 15, 19); -1 beyond what
/// sezm carries.
int lebedevPrecisionForLmax(int lmax);

} // namespace sezmrt

#endif // SEZM_SUPPORT_LEBEDEV_H
