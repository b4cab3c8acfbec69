//===- GridProducts.cpp - CPU kernels of the grid product and its gradient ===//
//
// One thread per (node, channel): its J coefficients of each field in
// registers, a loop over the P grid points carrying the J sums of the
// result (or of both gradients), each point's column of to_grid and row of
// from_grid read as it comes (KernelBuilder/GridMath.h, the GPU's
// arithmetic too). A warp reads consecutive channels.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "KernelBuilder/GridMath.h"

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

namespace {
/// Column p of to_grid (J, P) and row p of from_grid (P, J).
std::pair<SmallVector<Num>, SmallVector<Num>>
loadGridPoint(Emitter &em, Value toGrid, Value fromGrid, int64_t count, Idx p) {
  SmallVector<Num> to, from;
  for (int64_t j = 0; j < count; ++j) {
    to.push_back(em.load(toGrid, {Idx(j), p}));
    from.push_back(em.load(fromGrid, {p, Idx(j)}));
  }
  return {to, from};
}
} // namespace

void sezm::emitKernel(GridProductOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value a = io.in(op.getA()), b = io.in(op.getB());
  Value toGrid = io.in(op.getToGrid()), fromGrid = io.in(op.getFromGrid());
  int64_t count = staticDim(op.getA(), 1), width = staticDim(op.getA(), 2);
  int64_t points = staticDim(op.getToGrid(), 1);
  Idx nodes = em.dim(a, 0);
  Value out = io.allocate(0, {nodes, Idx(count), Idx(width)});
  em.parallelRange(0, nodes * Idx(width), [&](Idx flat) {
    Idx n = flat / Idx(width), c = flat % Idx(width);
    SmallVector<Num> as = loadGridCoefficients(em, a, count, n, c);
    SmallVector<Num> bs = loadGridCoefficients(em, b, count, n, c);
    SmallVector<Num> sums = em.foldRangeStep(
        Idx(0), Idx(points), Idx(1), SmallVector<Num>(count, Num(0.0)),
        [&](Idx p, ArrayRef<Num> partial) {
          auto [to, from] = loadGridPoint(em, toGrid, fromGrid, count, p);
          return addGridPoint(partial, gridValue(as, bs, to), from);
        });
    for (int64_t j = 0; j < count; ++j)
      em.store(sums[j], out, {n, Idx(j), c});
  });
}

void sezm::emitKernel(GridProductGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value grad = io.in(op.getGrad()), a = io.in(op.getA()), b = io.in(op.getB());
  Value toGrid = io.in(op.getToGrid()), fromGrid = io.in(op.getFromGrid());
  int64_t count = staticDim(op.getA(), 1), width = staticDim(op.getA(), 2);
  int64_t points = staticDim(op.getToGrid(), 1);
  Idx nodes = em.dim(a, 0);
  Value aGrad = io.allocate(0, {nodes, Idx(count), Idx(width)});
  Value bGrad = io.allocate(1, {nodes, Idx(count), Idx(width)});
  em.parallelRange(0, nodes * Idx(width), [&](Idx flat) {
    Idx n = flat / Idx(width), c = flat % Idx(width);
    SmallVector<Num> gs = loadGridCoefficients(em, grad, count, n, c);
    SmallVector<Num> as = loadGridCoefficients(em, a, count, n, c);
    SmallVector<Num> bs = loadGridCoefficients(em, b, count, n, c);
    SmallVector<Num> sums = em.foldRangeStep(
        Idx(0), Idx(points), Idx(1), SmallVector<Num>(2 * count, Num(0.0)),
        [&](Idx p, ArrayRef<Num> partial) {
          auto [to, from] = loadGridPoint(em, toGrid, fromGrid, count, p);
          return addGridPointGradient(partial, gs, as, bs, to, from);
        });
    for (int64_t i = 0; i < count; ++i) {
      em.store(sums[i], aGrad, {n, Idx(i), c});
      em.store(sums[count + i], bGrad, {n, Idx(i), c});
    }
  });
}
