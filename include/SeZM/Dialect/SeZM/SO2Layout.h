//===- SO2Layout.h - sizes of the SO(3) and SO(2) row layouts ---*- C++ -*-===//
//
// The packed SO(3) axis has D = (lmax+1)^2 rows, degree-major with orders
// ascending. The edge frame keeps |m| <= 1 in m-major order: m = 0 for
// l = 0..lmax, then m = -1 and m = +1 for l = 1..lmax (sezm-ops.md 1.2-1.3).
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_DIALECT_SEZM_SO2LAYOUT_H
#define SEZM_DIALECT_SEZM_SO2LAYOUT_H

#include <array>
#include <cstdint>

namespace mlir::sezm {

/// The largest degree the dialect accepts.
constexpr int64_t kMaxLmax = 6;

/// Row counts derived from the maximum degree lmax (with mmax = 1).
struct SO2Layout {
  int64_t lmax;

  /// Rows of the packed SO(3) axis, (lmax+1)^2.
  int64_t packedRows() const { return (lmax + 1) * (lmax + 1); }
  /// Rows kept in the edge frame, 3*lmax+1.
  int64_t reducedRows() const { return 3 * lmax + 1; }
  /// Entries of the compact degree kernel per rank, (lmax+1)^2 + lmax^2.
  int64_t compactKernelSize() const {
    return (lmax + 1) * (lmax + 1) + lmax * lmax;
  }

  /// Wigner-D entries a rotation keeps (the |m| <= 1 rows of each degree's
  /// block): (lmax+1)^2 + 2*lmax*(lmax+2), 46 of 256 at lmax 3. A Wigner-D
  /// may be stored as these alone, (E, K), in the order of reduced row j,
  /// then packed column d in the block of degree deg(j).
  int64_t keptWignerEntries() const {
    return (lmax + 1) * (lmax + 1) + 2 * lmax * (lmax + 2);
  }

  /// The place of Wigner-D entry (row, column) among the kept entries, or
  /// -1 if a rotation does not keep it (|m| > 1, or off the diagonal
  /// blocks).
  int64_t keptWignerIndex(int64_t row, int64_t column) const {
    int64_t l = degreeOfPacked(row), m = row - l * l - l;
    if (m < -1 || m > 1 || degreeOfPacked(column) != l)
      return -1;
    int64_t j = m == 0 ? l : (m < 0 ? lmax + l : 2 * lmax + l);
    int64_t place = 0;
    for (int64_t i = 0; i < j; ++i)
      place += 2 * degreeOfReduced(i) + 1;
    return place + column - l * l;
  }

  /// The place of kept entry (reduced row j, packed column d) in a whole
  /// D x D Wigner-D stored row by row.
  int64_t wholeWignerPlace(int64_t j, int64_t d) const {
    return packedRowOfReduced(j) * packedRows() + d;
  }

  /// The reduced rows of degree l >= 1: its m = 0, m = -1 and m = +1 rows.
  std::array<int64_t, 3> reducedRowsOfDegree(int64_t l) const {
    return {l, lmax + l, 2 * lmax + l};
  }
  /// Degree of reduced row j.
  int64_t degreeOfReduced(int64_t j) const {
    if (j <= lmax)
      return j;
    return (j - lmax - 1) % lmax + 1;
  }
  /// Order m of reduced row j.
  int64_t orderOfReduced(int64_t j) const {
    if (j <= lmax)
      return 0;
    return j <= 2 * lmax ? -1 : 1;
  }
  /// Packed row of reduced row j: l^2 + l + m.
  int64_t packedRowOfReduced(int64_t j) const {
    int64_t l = degreeOfReduced(j);
    return l * l + l + orderOfReduced(j);
  }
  /// Degree of packed row d.
  static int64_t degreeOfPacked(int64_t d) {
    int64_t l = 0;
    while ((l + 1) * (l + 1) <= d)
      ++l;
    return l;
  }
};

} // namespace mlir::sezm

#endif // SEZM_DIALECT_SEZM_SO2LAYOUT_H
