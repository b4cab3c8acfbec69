//===- SO2Math.h - rotation and radial mixing in registers ------*- C++ -*-===//
//
// The per-edge pieces shared by the rotation, mixing and aggregation kernels:
// the Wigner-D restricted to its structural non-zeros (|m| <= 1 rows of the
// diagonal blocks), applied to one channel's rows, and the edge-conditioned
// degree kernel (sezm-ops.md 2.3, 3.3, 4.1).
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_LIB_CONVERSION_KERNELBUILDER_SO2MATH_H
#define SEZM_LIB_CONVERSION_KERNELBUILDER_SO2MATH_H

#include "KernelBuilder.h"

#include "SeZM/Dialect/SeZM/SO2Layout.h"

#include <vector>

namespace mlir::sezm::kernel {

/// rescale[d] of rotate_back: sqrt((2l+1)/3) for l(d) > 1, else 1.
double rotateBackRescale(int64_t packedRow);

/// The kept entries wigner[e, coeff[j], d] of one edge, d over block deg(j).
class EdgeRotation {
public:
  /// Loads the kept entries of edge `e` from a (E, D, D) buffer.
  EdgeRotation(SO2Layout layout, Value wigner, Idx e);

  /// xl[j] = sum_{d in block deg(j)} W[coeff[j], d] * x[d] (one channel).
  std::vector<Num> toEdgeFrame(ArrayRef<Num> packed) const;
  /// x[d] = sum_{j: deg(j) = l(d)} W[coeff[j], d] * xl[j]: the transpose,
  /// without the rotate_back rescale.
  std::vector<Num> fromEdgeFrame(ArrayRef<Num> reduced) const;

  /// Calls f(j, d) for every kept entry (reduced row j, packed column d).
  void forEachEntry(llvm::function_ref<void(int64_t, int64_t)> f) const;
  /// The number of kept entries.
  int64_t numEntries() const;

private:
  SO2Layout layout;
  /// entries[j][d - l^2] for l = deg(j).
  std::vector<std::vector<Num>> entries;
};

/// The edge-conditioned degree kernel of one edge: the compact coefficients
/// kc[e, k*rank + r], combined with the channel basis per channel.
class DegreeKernel {
public:
  /// Loads kc[e, :] from a (E, KSZ*rank) buffer (rank >= 1).
  DegreeKernel(SO2Layout layout, int64_t rank, Value kc, Value cb, Idx e);

  /// Keff[k] = sum_r kc[k*rank + r] * cb[r, c] for channel c.
  std::vector<Num> effective(Idx c) const;

  /// y = Keff applied per m group (mix); `keff` from effective().
  std::vector<Num> mix(ArrayRef<Num> keff, ArrayRef<Num> xl) const;
  /// The transpose of mix().
  std::vector<Num> mixTransposed(ArrayRef<Num> keff, ArrayRef<Num> g) const;

  /// The compact index k of each (input, output) pair and the products
  /// g[o] * xl[i] summed over the m groups that share it: d Keff[k].
  std::vector<Num> kernelProducts(ArrayRef<Num> g, ArrayRef<Num> xl) const;

  int64_t rank() const { return rankValue; }
  Num coefficient(int64_t k, int64_t r) const {
    return coefficients[k * rankValue + r];
  }

private:
  SO2Layout layout;
  int64_t rankValue;
  Value cb;
  std::vector<Num> coefficients;
};

/// Mixer-free mode (rank 0): y[j] = xl[j] * radial[deg(j)].
std::vector<Num> mixFree(SO2Layout layout, ArrayRef<Num> radial,
                         ArrayRef<Num> xl);

/// Loads buffer[e, r, c] for r = 0..count-1.
std::vector<Num> loadRows(Value buffer, Idx e, int64_t count, Idx c);
/// Stores rows[r] to buffer[e, r, c].
void storeRows(ArrayRef<Num> rows, Value buffer, Idx e, Idx c);

} // namespace mlir::sezm::kernel

#endif // SEZM_LIB_CONVERSION_KERNELBUILDER_SO2MATH_H
