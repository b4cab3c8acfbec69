//===- Lebedev.cpp - Lebedev quadrature on the unit sphere ----------------===//

#include "SeZM/Support/Lebedev.h"

#include <algorithm>
#include <cassert>

using namespace sezmrt;

namespace {
struct Orbit {
  int precision;
  Vec3 generator;
  double weight;
};
struct RuleSize {
  int precision;
  int points;
};

#define SEZM_LEBEDEV_RULE(precision, points) RuleSize{precision, points},
constexpr RuleSize kRuleSizes[] = {
#define SEZM_LEBEDEV_ORBIT(precision, kind, x, y, z, w)
#include "LebedevRules.inc"
#undef SEZM_LEBEDEV_ORBIT
};
#undef SEZM_LEBEDEV_RULE

#define SEZM_LEBEDEV_RULE(precision, points)
#define SEZM_LEBEDEV_ORBIT(precision, kind, x, y, z, w)                        \
  Orbit{precision, {x, y, z}, w},
const Orbit kOrbits[] = {
#include "LebedevRules.inc"
};
#undef SEZM_LEBEDEV_ORBIT
#undef SEZM_LEBEDEV_RULE

/// Every distinct point (+-a, +-b, +-c) over the permutations of the
/// generator, in lexicographic order.
std::vector<Vec3> orbitPoints(const Vec3 &generator) {
  std::vector<Vec3> points;
  std::array<int, 3> order{0, 1, 2};
  do {
    for (int signs = 0; signs < 8; ++signs) {
      Vec3 p;
      for (int k = 0; k < 3; ++k) {
        double v = generator[order[k]];
        p[k] = (signs >> k & 1) ? -v : v;
        if (p[k] == 0.0)
          p[k] = 0.0; // one zero, not two
      }
      points.push_back(p);
    }
  } while (std::next_permutation(order.begin(), order.end()));
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  return points;
}
} // namespace

std::vector<int> sezmrt::lebedevPrecisions() {
  std::vector<int> out;
  for (const RuleSize &rule : kRuleSizes)
    out.push_back(rule.precision);
  return out;
}

std::optional<SphereRule> sezmrt::lebedevRule(int precision) {
  const RuleSize *size =
      std::find_if(std::begin(kRuleSizes), std::end(kRuleSizes),
                   [&](const RuleSize &r) { return r.precision == precision; });
  if (size == std::end(kRuleSizes))
    return std::nullopt;
  SphereRule rule;
  rule.precision = precision;
  for (const Orbit &orbit : kOrbits) {
    if (orbit.precision != precision)
      continue;
    for (const Vec3 &p : orbitPoints(orbit.generator)) {
      rule.points.push_back(p);
      rule.weights.push_back(orbit.weight);
    }
  }
  assert(static_cast<int>(rule.points.size()) == size->points &&
         "an orbit table that does not add up to its rule");
  return rule;
}

int sezmrt::lebedevPrecisionForLmax(int lmax) {
  for (const RuleSize &rule : kRuleSizes)
    if (rule.precision >= 3 * lmax)
      return rule.precision;
  return -1;
}
