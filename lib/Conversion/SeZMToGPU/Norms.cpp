//===- Norms.cpp - RMS norms and their gradients: one warp per row --------===//
//
// sezm.rms_norm normalizes each row (an edge's radial features) and
// sezm.equivariant_rms_norm each node's packed rows over one shared mean
// square. The loop kernels give a row or a node to one thread, which reads
// its channels alone (a warp's loads 32 rows apart) and, per node, leaves
// most of the GPU idle (4096 threads at 4096 atoms). Here a warp takes a
// row or a node: lanes over channels, every load and store coalesced, the
// row's values kept in registers between the statistics and the output,
// the sums over channels finished by the warp's butterfly. The math is the
// loop kernels' (sezm-ops.md 3.2, 3.7, 4.7); sums over channels are added
// in a different order, so results agree to fp32 rounding.
//
//===----------------------------------------------------------------------===//

#include "Microkernels.h"
#include "WarpSchedules.h"

#include "KernelBuilder/KernelIO.h"
#include "KernelBuilder/NormMath.h"

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

namespace mlir::sezm::microkernels {
namespace {
/// The channels (last axis) of a statically shaped feature tensor.
int64_t lastDim(Value tensor) {
  auto type = cast<RankedTensorType>(tensor.getType());
  return type.getDimSize(type.getRank() - 1);
}

/// Whether every axis but the first is static and the channels fill whole
/// warps.
bool warpRowsTaken(Value x) {
  auto type = cast<RankedTensorType>(x.getType());
  for (int64_t axis = 1; axis < type.getRank(); ++axis)
    if (type.isDynamicDim(axis))
      return false;
  return lastDim(x) % kWarpSize == 0;
}

/// The lane's channels of a row: lane, lane + 32, ...
SmallVector<Idx> laneChannels(Idx lane, int64_t channels) {
  SmallVector<Idx> result;
  for (int64_t c = 0; c < channels; c += kWarpSize)
    result.push_back(Idx(c) + lane);
  return result;
}

/// The sum over the lane's values, then over the warp.
Num warpTotal(Emitter &em, ArrayRef<Num> values) {
  Num sum(0.0);
  for (Num value : values)
    sum = sum + value;
  return em.warpSum(sum);
}

/// One node of an equivariant norm, in the lanes of a warp: its rows
/// (rows[d][p], channel p * 32 + lane), the l = 0 row centred, and
/// r = rsqrt(ms + eps).
struct WarpNodeNorm {
  SmallVector<SmallVector<Num>> rows;
  Num r;
  /// Each degree's weight in the mean square.
  SmallVector<double> weight;

  WarpNodeNorm(Emitter &em, Value x, Idx n, ArrayRef<Idx> channels,
               int64_t lmax, double eps, ArrayRef<double> weight)
      : r(0.0), weight(weight) {
    const int64_t width = channels.size() * kWarpSize;
    for (int64_t d = 0; d < (lmax + 1) * (lmax + 1); ++d) {
      SmallVector<Num> row;
      for (Idx c : channels)
        row.push_back(em.load(x, {n, Idx(d), c}));
      rows.push_back(row);
    }
    Num mean = warpTotal(em, rows[0]) / Num(static_cast<double>(width));
    for (Num &u : rows[0])
      u = u - mean;
    Num partial(0.0);
    for (int64_t l = 0; l <= lmax; ++l) {
      Num squares(0.0);
      for (int64_t d = l * l; d < (l + 1) * (l + 1); ++d)
        for (Num v : rows[d])
          squares = squares + v * v;
      partial = partial + squares * Num(weight[l]);
    }
    r = Num(1.0) / sqrt(em.warpSum(partial) + Num(eps));
  }
};

/// Launches `config`'s kernel over the nodes of an equivariant norm `op`
/// (forward or gradient), one warp each: body(n, channels, norm, out) with
/// the lane's channels, the node's statistics and the result (N, D, C).
template <typename NormOp>
void forEachNodeNorm(
    NormOp op, KernelIO &io, KernelConfigAttr config,
    llvm::function_ref<void(Idx, ArrayRef<Idx>, const WarpNodeNorm &, Value)>
        body) {
  Emitter &em = io.emitter();
  Value x = io.in(op.getX());
  const int64_t lmax = op.getLmax(), width = lastDim(op.getX());
  SmallVector<double> weight = meanSquareWeights(op, width);
  Idx nodes = em.dim(x, 0);
  Value out = io.allocate(0, {nodes, Idx((lmax + 1) * (lmax + 1)), Idx(width)});
  forEachWarp(em, config.getKernel().getValue(), nodes, [&](Idx n, Idx lane) {
    SmallVector<Idx> channels = laneChannels(lane, width);
    WarpNodeNorm norm(em, x, n, channels, lmax, op.getEps().convertToDouble(),
                      weight);
    body(n, channels, norm, out);
  });
}
} // namespace

bool rmsNormApplies(RmsNormOp op) { return warpRowsTaken(op.getX()); }

void emitRmsNorm(RmsNormOp op, KernelIO &io, KernelConfigAttr config) {
  Emitter &em = io.emitter();
  Value x = io.in(op.getX()), scale = io.in(op.getScale());
  const int64_t width = lastDim(op.getX());
  const double eps = op.getEps().convertToDouble();
  Idx rows = em.dim(x, 0);
  Value out = io.allocate(0, {rows, Idx(width)});
  forEachWarp(em, config.getKernel().getValue(), rows, [&](Idx i, Idx lane) {
    SmallVector<Idx> channels = laneChannels(lane, width);
    SmallVector<Num> v, squares;
    for (Idx c : channels) {
      v.push_back(em.load(x, {i, c}));
      squares.push_back(v.back() * v.back());
    }
    Num ms = warpTotal(em, squares) / Num(static_cast<double>(width));
    Num r = Num(1.0) / sqrt(ms + Num(eps));
    for (auto [c, value] : llvm::zip(channels, v))
      em.store(value * r * em.load(scale, {c}), out, {i, c});
  });
}

bool rmsNormGradApplies(RmsNormGradOp op) { return warpRowsTaken(op.getX()); }

void emitRmsNormGrad(RmsNormGradOp op, KernelIO &io, KernelConfigAttr config) {
  Emitter &em = io.emitter();
  Value grad = io.in(op.getGrad()), x = io.in(op.getX());
  Value scale = io.in(op.getScale());
  const int64_t width = lastDim(op.getX());
  const double eps = op.getEps().convertToDouble();
  Idx rows = em.dim(x, 0);
  Value out = io.allocate(0, {rows, Idx(width)});
  forEachWarp(em, config.getKernel().getValue(), rows, [&](Idx i, Idx lane) {
    SmallVector<Idx> channels = laneChannels(lane, width);
    SmallVector<Num> v, gs, squares, products;
    for (Idx c : channels) {
      v.push_back(em.load(x, {i, c}));
      gs.push_back(em.load(grad, {i, c}) * em.load(scale, {c}));
      squares.push_back(v.back() * v.back());
      products.push_back(gs.back() * v.back());
    }
    Num ms = warpTotal(em, squares) / Num(static_cast<double>(width));
    Num r = Num(1.0) / sqrt(ms + Num(eps));
    Num r3a =
        r * r * r * warpTotal(em, products) / Num(static_cast<double>(width));
    for (auto [k, c] : llvm::enumerate(channels))
      em.store(r * gs[k] - r3a * v[k], out, {i, c});
  });
}

bool equivariantRmsNormApplies(EquivariantRmsNormOp op) {
  return warpRowsTaken(op.getX());
}

void emitEquivariantRmsNorm(EquivariantRmsNormOp op, KernelIO &io,
                            KernelConfigAttr config) {
  Emitter &em = io.emitter();
  Value scale = io.in(op.getScale()), bias = io.in(op.getBias());
  forEachNodeNorm(
      op, io, config,
      [&](Idx n, ArrayRef<Idx> channels, const WarpNodeNorm &norm, Value out) {
        for (auto [d, row] : llvm::enumerate(norm.rows)) {
          Idx l(SO2Layout::degreeOfPacked(d));
          for (auto [k, c] : llvm::enumerate(channels)) {
            Num value = row[k] * norm.r * em.load(scale, {l, c});
            if (d == 0)
              value = value + em.load(bias, {c});
            em.store(value, out, {n, Idx(d), c});
          }
        }
      });
}

bool equivariantRmsNormGradApplies(EquivariantRmsNormGradOp op) {
  return warpRowsTaken(op.getX());
}

void emitEquivariantRmsNormGrad(EquivariantRmsNormGradOp op, KernelIO &io,
                                KernelConfigAttr config) {
  Emitter &em = io.emitter();
  Value grad = io.in(op.getGrad()), scale = io.in(op.getScale());
  const int64_t width = lastDim(op.getX());
  forEachNodeNorm(
      op, io, config,
      [&](Idx n, ArrayRef<Idx> channels, const WarpNodeNorm &norm, Value out) {
        const int64_t rows = norm.rows.size();
        // G scale, and A = sum G scale u over every row.
        SmallVector<SmallVector<Num>> gs;
        Num partial(0.0);
        for (int64_t d = 0; d < rows; ++d) {
          Idx l(SO2Layout::degreeOfPacked(d));
          SmallVector<Num> row;
          for (auto [k, c] : llvm::enumerate(channels)) {
            row.push_back(em.load(grad, {n, Idx(d), c}) *
                          em.load(scale, {l, c}));
            partial = partial + row.back() * norm.rows[d][k];
          }
          gs.push_back(row);
        }
        Num r3a = norm.r * norm.r * norm.r * em.warpSum(partial);
        auto du = [&](int64_t d, int64_t k) {
          return norm.r * gs[d][k] -
                 r3a * Num(norm.weight[SO2Layout::degreeOfPacked(d)]) *
                     norm.rows[d][k];
        };
        SmallVector<Num> du0;
        for (int64_t k = 0; k < static_cast<int64_t>(channels.size()); ++k)
          du0.push_back(du(0, k));
        Num meanDu0 = warpTotal(em, du0) / Num(static_cast<double>(width));
        for (int64_t d = 0; d < rows; ++d)
          for (auto [k, c] : llvm::enumerate(channels))
            em.store(d == 0 ? du0[k] - meanDu0 : du(d, k), out, {n, Idx(d), c});
      });
}

} // namespace mlir::sezm::microkernels
