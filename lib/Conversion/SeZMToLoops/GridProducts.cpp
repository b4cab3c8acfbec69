//===- GridProducts.cpp - CPU kernels of the grid product and its gradient ===//
//
// One thread per (node, channel): its J coefficients of each field in
// registers, a loop over the P grid points carrying the J sums of the
// result (or of both gradients). A warp reads consecutive channels.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

namespace {
/// sum_i values[i] * matrix[i, column] (or matrix[column, i] with
/// `byRow`), in order.
Num dot(Emitter &em, ArrayRef<Num> values, Value matrix, Idx column,
        bool byRow) {
  std::optional<Num> sum;
  for (auto [i, value] : llvm::enumerate(values)) {
    Idx at(static_cast<int64_t>(i));
    Num term = value * (byRow ? em.load(matrix, {column, at})
                              : em.load(matrix, {at, column}));
    sum = sum ? *sum + term : term;
  }
  return *sum;
}

/// The J coefficients of channel c of node n of `field` (N, J, W).
SmallVector<Num> loadCoefficients(Emitter &em, Value field, int64_t count,
                                  Idx n, Idx c) {
  SmallVector<Num> values;
  for (int64_t i = 0; i < count; ++i)
    values.push_back(em.load(field, {n, Idx(i), c}));
  return values;
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
    SmallVector<Num> as = loadCoefficients(em, a, count, n, c);
    SmallVector<Num> bs = loadCoefficients(em, b, count, n, c);
    SmallVector<Num> zeros(count, Num(0.0));
    SmallVector<Num> sums = em.foldRangeStep(
        Idx(0), Idx(points), Idx(1), zeros, [&](Idx p, ArrayRef<Num> partial) {
          Num product = dot(em, as, toGrid, p, /*byRow=*/false) *
                        dot(em, bs, toGrid, p, /*byRow=*/false);
          SmallVector<Num> next;
          for (int64_t j = 0; j < count; ++j)
            next.push_back(partial[j] +
                           product * em.load(fromGrid, {p, Idx(j)}));
          return next;
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
    SmallVector<Num> gs = loadCoefficients(em, grad, count, n, c);
    SmallVector<Num> as = loadCoefficients(em, a, count, n, c);
    SmallVector<Num> bs = loadCoefficients(em, b, count, n, c);
    SmallVector<Num> zeros(2 * count, Num(0.0));
    SmallVector<Num> sums = em.foldRangeStep(
        Idx(0), Idx(points), Idx(1), zeros, [&](Idx p, ArrayRef<Num> partial) {
          Num onGrid = dot(em, gs, fromGrid, p, /*byRow=*/true);
          Num toA = onGrid * dot(em, bs, toGrid, p, /*byRow=*/false);
          Num toB = onGrid * dot(em, as, toGrid, p, /*byRow=*/false);
          SmallVector<Num> next;
          for (int64_t i = 0; i < count; ++i)
            next.push_back(partial[i] + toA * em.load(toGrid, {Idx(i), p}));
          for (int64_t i = 0; i < count; ++i)
            next.push_back(partial[count + i] +
                           toB * em.load(toGrid, {Idx(i), p}));
          return next;
        });
    for (int64_t i = 0; i < count; ++i) {
      em.store(sums[i], aGrad, {n, Idx(i), c});
      em.store(sums[count + i], bGrad, {n, Idx(i), c});
    }
  });
}
