//===- GridProducts.cpp - grid_product and its gradient, grids on chip ----===//
//
// One thread per (node, channel), a block's threads consecutive channels
// (the fields read and written in place, coalesced). The block first copies
// both grid matrices into workgroup memory as (P, J) rows padded to whole
// vectors: for grid point p every thread reads the same row, a broadcast,
// four coefficients a load, each used by two or three sums. The grid
// values live in registers only; the loop kernel read the matrices from
// global memory one word per product, and the linalg form wrote both
// fields' grid values and transposed copies of the coefficients.
//
//===----------------------------------------------------------------------===//

#include "Microkernels.h"

#include "KernelBuilder/GridMath.h"
#include "KernelBuilder/KernelIO.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {
namespace {
/// Threads per block: rows (node, channel) of the fields.
constexpr int64_t kGridThreads = 128;
/// Coefficients a workgroup-memory load reads.
constexpr int64_t kGridVector = 4;
/// The most workgroup memory both staged matrices may take (bytes).
constexpr int64_t kGridStagingBytes = 48 * 1024;

/// The sizes of a grid product: J coefficients (padded to whole vectors),
/// W channels, P grid points.
struct GridShape {
  int64_t coefficients, padded, channels, points;

  explicit GridShape(Value field, Value toGrid) {
    auto type = cast<RankedTensorType>(field.getType());
    coefficients = type.getDimSize(1);
    channels = type.getDimSize(2);
    points = cast<RankedTensorType>(toGrid.getType()).getDimSize(1);
    padded = llvm::alignTo(coefficients, kGridVector);
  }
  SmallVector<int64_t> stagedShape() const { return {points, padded}; }
};

/// Static coefficients, channels and points, and both matrices within the
/// workgroup memory the kernel asks for.
bool gridFits(Value field, Value toGrid, Value fromGrid) {
  auto type = cast<RankedTensorType>(field.getType());
  if (type.isDynamicDim(1) || type.isDynamicDim(2) ||
      !cast<RankedTensorType>(toGrid.getType()).hasStaticShape() ||
      !cast<RankedTensorType>(fromGrid.getType()).hasStaticShape())
    return false;
  GridShape shape(field, toGrid);
  int64_t bytes = type.getElementTypeBitWidth() / 8;
  return 2 * shape.points * shape.padded * bytes <= kGridStagingBytes;
}

/// Copies to_grid transposed and from_grid into the (P, padded J)
/// workgroup buffers, then waits for the block.
void stageGrid(Emitter &em, const LaunchIds &ids, const GridShape &shape,
               Value toGrid, Value fromGrid) {
  int64_t count = shape.coefficients;
  em.forRangeStep(
      ids.thread[0], Idx(shape.points * count), Idx(kGridThreads),
      [&](Idx flat) {
        Idx p = flat / Idx(count), j = flat % Idx(count);
        em.store(em.load(toGrid, {j, p}), ids.workgroup[0], {p, j});
        em.store(em.load(fromGrid, {p, j}), ids.workgroup[1], {p, j});
      });
  em.barrier();
}

/// Row p of a staged matrix: its J coefficients, read as vectors.
SmallVector<Num> stagedRow(Emitter &em, Value staged, const GridShape &shape,
                           Idx p) {
  SmallVector<Num> row;
  for (int64_t j = 0; j < shape.padded; j += kGridVector)
    llvm::append_range(row, em.loadVector(staged, {p, Idx(j)}, kGridVector));
  row.truncate(shape.coefficients);
  return row;
}

/// Launches `body(n, c)` once per (node, channel) of `field`, the grid
/// matrices staged.
void launchRows(Emitter &em, KernelConfigAttr config, const GridShape &shape,
                Value field, Value toGrid, Value fromGrid,
                llvm::function_ref<void(const LaunchIds &, Idx, Idx)> body) {
  Idx rows = em.dim(field, 0) * Idx(shape.channels);
  em.launchKernel(
      config.getKernel().getValue(),
      {ceilDiv(rows, kGridThreads), Idx(1), Idx(1)},
      {Idx(kGridThreads), Idx(1), Idx(1)},
      {shape.stagedShape(), shape.stagedShape()},
      [&](const LaunchIds &ids) {
        stageGrid(em, ids, shape, toGrid, fromGrid);
        Idx flat = ids.block[0] * Idx(kGridThreads) + ids.thread[0];
        em.ifThen(flat < rows, [&] {
          body(ids, flat / Idx(shape.channels), flat % Idx(shape.channels));
        });
      },
      config.getBlocksPerSm());
}
} // namespace

bool gridProductApplies(GridProductOp op) {
  return gridFits(op.getA(), op.getToGrid(), op.getFromGrid());
}

void emitGridProduct(GridProductOp op, KernelIO &io, KernelConfigAttr config) {
  Emitter &em = io.emitter();
  Value a = io.in(op.getA()), b = io.in(op.getB());
  GridShape shape(op.getA(), op.getToGrid());
  int64_t count = shape.coefficients;
  Value out = io.allocate(0, {em.dim(a, 0), Idx(count), Idx(shape.channels)});
  launchRows(
      em, config, shape, a, io.in(op.getToGrid()), io.in(op.getFromGrid()),
      [&](const LaunchIds &ids, Idx n, Idx c) {
        SmallVector<Num> as = loadGridCoefficients(em, a, count, n, c);
        SmallVector<Num> bs = loadGridCoefficients(em, b, count, n, c);
        SmallVector<Num> sums = em.foldRangeStep(
            Idx(0), Idx(shape.points), Idx(1), SmallVector<Num>(count, 0.0),
            [&](Idx p, ArrayRef<Num> partial) {
              Num value =
                  gridValue(as, bs, stagedRow(em, ids.workgroup[0], shape, p));
              return addGridPoint(partial, value,
                                  stagedRow(em, ids.workgroup[1], shape, p));
            });
        for (int64_t j = 0; j < count; ++j)
          em.store(sums[j], out, {n, Idx(j), c});
      });
}

bool gridProductGradApplies(GridProductGradOp op) {
  return gridFits(op.getA(), op.getToGrid(), op.getFromGrid());
}

void emitGridProductGrad(GridProductGradOp op, KernelIO &io,
                         KernelConfigAttr config) {
  Emitter &em = io.emitter();
  Value grad = io.in(op.getGrad()), a = io.in(op.getA()), b = io.in(op.getB());
  GridShape shape(op.getA(), op.getToGrid());
  int64_t count = shape.coefficients;
  Idx nodes = em.dim(a, 0);
  Value aGrad = io.allocate(0, {nodes, Idx(count), Idx(shape.channels)});
  Value bGrad = io.allocate(1, {nodes, Idx(count), Idx(shape.channels)});
  launchRows(
      em, config, shape, a, io.in(op.getToGrid()), io.in(op.getFromGrid()),
      [&](const LaunchIds &ids, Idx n, Idx c) {
        SmallVector<Num> gs = loadGridCoefficients(em, grad, count, n, c);
        SmallVector<Num> as = loadGridCoefficients(em, a, count, n, c);
        SmallVector<Num> bs = loadGridCoefficients(em, b, count, n, c);
        SmallVector<Num> sums = em.foldRangeStep(
            Idx(0), Idx(shape.points), Idx(1), SmallVector<Num>(2 * count, 0.0),
            [&](Idx p, ArrayRef<Num> partial) {
              SmallVector<Num> to = stagedRow(em, ids.workgroup[0], shape, p);
              return addGridPointGradient(
                  partial, gs, as, bs, to,
                  stagedRow(em, ids.workgroup[1], shape, p));
            });
        for (int64_t i = 0; i < count; ++i) {
          em.store(sums[i], aGrad, {n, Idx(i), c});
          em.store(sums[count + i], bGrad, {n, Idx(i), c});
        }
      });
}

} // namespace mlir::sezm::microkernels
