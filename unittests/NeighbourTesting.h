//===- NeighbourTesting.h - a brute-force neighbour search for tests -*- C++
//-*-===//
//
// What the neighbour-graph tests (StructureTest, CellListTest) compare a
// search against: every pair and periodic image, by brute force.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_UNITTESTS_NEIGHBOURTESTING_H
#define SEZM_UNITTESTS_NEIGHBOURTESTING_H

#include "SeZM/Support/Structure.h"

#include <set>
#include <tuple>

namespace sezmrt::neighbour_test {

/// An edge as (src, dst, image along a, b, c).
using EdgeKey = std::tuple<int64_t, int64_t, long long, long long, long long>;

/// Every (src, dst, image) with |r_src + image . cell - r_dst| < cutoff,
/// images up to `range` cells away on periodic axes.
inline std::set<EdgeKey> bruteForce(const Structure &s, double cutoff,
                                    int range) {
  std::set<EdgeKey> edges;
  int64_t n = s.positions.size();
  int rx = s.pbc[0] ? range : 0, ry = s.pbc[1] ? range : 0,
      rz = s.pbc[2] ? range : 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int a = -rx; a <= rx; ++a)
        for (int b = -ry; b <= ry; ++b)
          for (int c = -rz; c <= rz; ++c) {
            if (i == j && a == 0 && b == 0 && c == 0)
              continue;
            double r2 = 0;
            for (int d = 0; d < 3; ++d) {
              double v = s.positions[i][d] - s.positions[j][d] +
                         a * s.cell[0][d] + b * s.cell[1][d] + c * s.cell[2][d];
              r2 += v * v;
            }
            if (r2 < cutoff * cutoff)
              edges.insert({i, j, a, b, c});
          }
  return edges;
}

} // namespace sezmrt::neighbour_test

#endif // SEZM_UNITTESTS_NEIGHBOURTESTING_H
