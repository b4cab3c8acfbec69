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

#include <optional>
#include <vector>

namespace mlir::sezm {
class KernelIO;
} // namespace mlir::sezm

namespace mlir::sezm::kernel {

/// rescale[d] of rotate_back: sqrt((2l+1)/3) for l(d) > 1, else 1.
double rotateBackRescale(int64_t packedRow);

/// Calls f(j, d) for every Wigner-D entry a rotation keeps: reduced row j,
/// packed column d in the block of degree deg(j).
void forEachKeptEntry(SO2Layout layout,
                      llvm::function_ref<void(int64_t, int64_t)> f);

/// Whether a Wigner-D (or its gradient) is stored as its kept entries,
/// (E, K) (SO2Layout::keptWignerEntries), rather than whole, (E, D, D).
bool isKeptEntries(Value wigner);

/// Stores entry (row, column) of edge e's Wigner-D (or gradient) into a
/// whole (E, D, D) buffer, or into a kept-entries one if it is kept there.
void storeWignerEntry(SO2Layout layout, Num value, Value wigner, Idx e,
                      int64_t row, int64_t column);
/// Loads entry (row, column) of edge e's Wigner-D (or gradient); nothing
/// where a kept-entries buffer does not hold it (an entry no rotation
/// uses).
std::optional<Num> loadWignerEntry(SO2Layout layout, Value wigner, Idx e,
                                   int64_t row, int64_t column);

/// The kept entries wigner[e, coeff[j], d] of one edge, d over block deg(j).
class EdgeRotation {
public:
  /// Loads the kept entries of edge `e` from a (E, D, D) buffer or a (E, K)
  /// one of the kept entries alone; with a `lane`, the warp's lanes load
  /// them together (warpSharedLoad).
  EdgeRotation(SO2Layout layout, Value wigner, Idx e,
               std::optional<Idx> lane = std::nullopt);
  /// The kept entries as loaded by the caller, in forEachEntry order.
  EdgeRotation(SO2Layout layout, ArrayRef<Num> kept);

  /// xl[j] = sum_{d in block deg(j)} W[coeff[j], d] * x[d] (one channel).
  std::vector<Num> toEdgeFrame(ArrayRef<Num> packed) const;
  /// x[d] = sum_{j: deg(j) = l(d)} W[coeff[j], d] * xl[j]: the transpose,
  /// without the rotate_back rescale.
  std::vector<Num> fromEdgeFrame(ArrayRef<Num> reduced) const;
  /// packed[d] += W[coeff[j], d] * reduced[j], one term at a time: the
  /// transpose added onto running sums (a node gradient over its edges).
  void addFromEdgeFrame(ArrayRef<Num> reduced,
                        MutableArrayRef<Num> packed) const;

  /// Appends, for every kept entry (j, d), gl[j] * packed[d]: one channel's
  /// term of d wigner[coeff[j], d].
  void appendGradientTerms(ArrayRef<Num> gl, ArrayRef<Num> packed,
                           SmallVectorImpl<Num> &terms) const;
  /// Stores one sum per kept entry, in forEachEntry order, at
  /// wignerGrad[e, coeff[j], d] (or [e, k] where it holds the kept entries
  /// alone).
  void storeGradient(ArrayRef<Num> sums, Value wignerGrad, Idx e) const;
  /// The same, added to what the places hold.
  void addGradient(ArrayRef<Num> sums, Value wignerGrad, Idx e) const;

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
  /// Loads kc[e, :] from a (E, KSZ*rank) buffer (rank >= 1); with a `lane`,
  /// the warp's lanes load it together (warpSharedLoad).
  DegreeKernel(SO2Layout layout, int64_t rank, Value kc, Value cb, Idx e,
               std::optional<Idx> lane = std::nullopt);

  /// cb[r, c] for each rank r: channel c's share of the kernel.
  std::vector<Num> basis(Idx c) const;

  /// y = Keff applied per m group, Keff[k] = sum_r kc[k*rank + r] * basis[r]
  /// (mix), applied per rank and then weighted, so that Keff never needs a
  /// register per coefficient; `basis` from basis().
  std::vector<Num> mix(ArrayRef<Num> basis, ArrayRef<Num> xl) const;
  /// The transpose of mix().
  std::vector<Num> mixTransposed(ArrayRef<Num> basis, ArrayRef<Num> g) const;

  /// The compact index k of each (input, output) pair and the products
  /// g[o] * xl[i] summed over the m groups that share it: d Keff[k].
  std::vector<Num> kernelProducts(ArrayRef<Num> g, ArrayRef<Num> xl) const;
  /// The k-th of kernelProducts().
  Num kernelProduct(int64_t k, ArrayRef<Num> g, ArrayRef<Num> xl) const;

  int64_t rank() const { return rankValue; }
  Num coefficient(int64_t k, int64_t r) const {
    return coefficients[k * rankValue + r];
  }

private:
  /// out[o] = sum_r basis[r] * sum_i kc[k(i, o), r] * in[i] over the m
  /// groups, with k(i, o) = `index`(i, o) per group.
  std::vector<Num> apply(ArrayRef<Num> basis, ArrayRef<Num> in,
                         bool transposed) const;

  SO2Layout layout;
  int64_t rankValue;
  Value cb;
  std::vector<Num> coefficients;
};

/// Mixer-free mode (rank 0): y[j] = xl[j] * radial[deg(j)].
std::vector<Num> mixFree(SO2Layout layout, ArrayRef<Num> radial,
                         ArrayRef<Num> xl);

/// buffer[e, ...] as a view of rank one less (static trailing extents), so
/// that its elements are addressed from one pointer with constant offsets.
Value edgeView(Value buffer, Idx e);

/// The focus-major buffer (F, E, rows*Cf) as the 4-D view (F, E, rows, Cf)
/// that the row accessors below take in place of an edge-frame buffer
/// (E, rows, C): row r of channel c = f*Cf + cf of edge e is then stored at
/// [f, e, r*Cf + cf]. A row group must not straddle two streams (Cf a
/// multiple of its width).
Value focusMajorRows(Emitter &em, Value buffer, int64_t rows);

/// Allocates result `index` of `io`'s op as edge-frame rows: the (E, rows,
/// C) buffer, or with `focusMajor` = F the (F, E, rows*C/F) buffer, returned
/// as the view of focusMajorRows.
Value allocateEdgeRows(KernelIO &io, unsigned index, Idx edges, int64_t rows,
                       int64_t channels, std::optional<int64_t> focusMajor);

/// Allocates result `index` of `io`'s op as an (E, ...) buffer with the
/// static trailing extents of the per-edge tensor `like` (the gradient of
/// a kernel `kc`; a Wigner-D whole or as its kept entries, or its
/// gradient).
Value allocateEdgesLike(KernelIO &io, unsigned index, Value like, Idx edges);
/// Allocates result `index` as a Wigner-D, or a gradient of one, in the form
/// of `like`, for a kernel that writes the entries it keeps: a whole
/// (E, D, D) one is zeroed first (its other entries stay zero), a
/// kept-entries one is not (every entry gets written).
Value allocateWignerLike(KernelIO &io, unsigned index, Value like, Idx edges);

/// Loads buffer[e, r, c] for r = 0..count-1.
std::vector<Num> loadRows(Value buffer, Idx e, int64_t count, Idx c);
/// Stores rows[r] to buffer[e, r, c].
void storeRows(ArrayRef<Num> rows, Value buffer, Idx e, Idx c);

/// Loads buffer[e, r, c + k] for r < count and k < width as one `width`-wide
/// access per row (c a multiple of width, the channel extent too), so that a
/// GPU lane moves several channels per instruction: result[k][r].
std::vector<std::vector<Num>> loadRowGroups(Value buffer, Idx e, int64_t count,
                                            Idx c, int64_t width);
/// Starts copying buffer[e, r, c + k] to stage[slot, r, c + k] for r <
/// count and k < width, one `width`-wide copy per row (copyAsync): the
/// rows of loadRowGroups, read later from the workgroup buffer `stage`.
void copyRowGroupsAsync(Value buffer, Idx e, int64_t count, Idx c,
                        int64_t width, Value stage, Idx slot);
/// Stores rows[k][r] to buffer[e, r, c + k], one wide access per row.
void storeRowGroups(ArrayRef<std::vector<Num>> rows, Value buffer, Idx e,
                    Idx c);

/// The radial mixing of one op: rank >= 1 with kc and cb, or mixer-free.
class RadialMixer {
public:
  RadialMixer(SO2Layout layout, int64_t rank, Value kc, Value cb)
      : layout(layout), rankValue(rank), kc(kc), cb(cb) {}

  /// Per-edge state: the loaded degree kernel for rank >= 1 (loaded by the
  /// warp's lanes together when `lane` is given).
  struct Edge {
    Idx e;
    std::optional<DegreeKernel> kernel;
  };
  Edge atEdge(Idx e, std::optional<Idx> lane = std::nullopt) const {
    Edge edge{e, std::nullopt};
    if (rankValue > 0)
      edge.kernel.emplace(layout, rankValue, kc, cb, e, lane);
    return edge;
  }

  /// Per-channel state: the basis weights for rank >= 1, the radial rows
  /// for rank 0.
  std::vector<Num> atChannel(const Edge &edge, Idx c) const {
    if (edge.kernel)
      return edge.kernel->basis(c);
    return loadRows(kc, edge.e, layout.lmax + 1, c);
  }

  std::vector<Num> mix(const Edge &edge, ArrayRef<Num> channel,
                       ArrayRef<Num> xl) const {
    if (edge.kernel)
      return edge.kernel->mix(channel, xl);
    return mixFree(layout, channel, xl);
  }

  /// The gradient of mix with respect to its input rows.
  std::vector<Num> mixTransposed(const Edge &edge, ArrayRef<Num> channel,
                                 ArrayRef<Num> g) const {
    if (edge.kernel)
      return edge.kernel->mixTransposed(channel, g);
    return mixFree(layout, channel, g);
  }

  /// Number of per-edge kc gradient sums carried over channels (rank >= 1).
  int64_t numKernelSums() const {
    return rankValue > 0 ? layout.compactKernelSize() * rankValue : 0;
  }

  /// The per-channel terms of the kc gradient sums (rank >= 1); `channel`
  /// from atChannel().
  std::vector<Num> kernelGradTerms(const Edge &edge, ArrayRef<Num> channel,
                                   ArrayRef<Num> g, ArrayRef<Num> xl) const {
    std::vector<Num> products = edge.kernel->kernelProducts(g, xl);
    std::vector<Num> terms;
    for (Num product : products)
      for (int64_t r = 0; r < rankValue; ++r)
        terms.push_back(channel[r] * product);
    return terms;
  }

  int64_t rank() const { return rankValue; }
  /// The kernel buffer: kc, or the radial rows for rank 0.
  Value kernel() const { return kc; }
  Value basis() const { return cb; }

  /// Stores the kc gradient of one edge: the channel sums for rank >= 1.
  void storeKernelGrad(ArrayRef<Num> sums, Value kcGrad, Idx e) const {
    Emitter &em = e.getEmitter();
    for (auto [k, value] : llvm::enumerate(sums))
      em.store(value, kcGrad, {e, Idx(static_cast<int64_t>(k))});
  }

  /// Stores the kc gradient of one channel for rank 0:
  /// d radial[l, c] = sum_{deg(j) = l} g[j] * xl[j].
  void storeFreeKernelGrad(ArrayRef<Num> g, ArrayRef<Num> xl, Value kcGrad,
                           Idx e, Idx c) const {
    Emitter &em = e.getEmitter();
    std::vector<std::optional<Num>> perDegree(layout.lmax + 1);
    for (int64_t j = 0; j < layout.reducedRows(); ++j) {
      Num term = g[j] * xl[j];
      std::optional<Num> &sum = perDegree[layout.degreeOfReduced(j)];
      sum = sum ? *sum + term : term;
    }
    for (auto [l, sum] : llvm::enumerate(perDegree))
      em.store(*sum, kcGrad, {e, Idx(static_cast<int64_t>(l)), c});
  }

private:
  SO2Layout layout;
  int64_t rankValue;
  Value kc, cb;
};

} // namespace mlir::sezm::kernel

#endif // SEZM_LIB_CONVERSION_KERNELBUILDER_SO2MATH_H
