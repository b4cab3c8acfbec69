//===- SegmentReduce.cpp - segment_reduce and its gradient (a gather) -----===//

#include "Microkernels.h"
#include "WarpSchedules.h"

#include "KernelBuilder/KernelIO.h"
#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {

//===----------------------------------------------------------------------===//
// segment_reduce: one thread per (node, row element), the sum in a register
//===----------------------------------------------------------------------===//

void emitSegmentReduce(SegmentReduceOp op, KernelIO &io,
                       KernelConfigAttr config) {
  Emitter &em = io.emitter();
  Value order = io.in(op.getOrder()), rowptr = io.in(op.getRowptr());
  Idx nodes = em.dim(rowptr, 0) - 1;
  auto type = cast<RankedTensorType>(op.getValues().getType());
  // Values an elementwise generic computes, where the strategy room fused
  // it, are computed here as they are added (their rows are static).
  Value values = op.getValues();
  bool computed =
      values.getDefiningOp() && isFusedIntoUser(values.getDefiningOp());
  Value flatValues = computed ? Value() : flattenRows(em, io.in(values));
  SmallVector<Idx> extents{nodes};
  for (int64_t axis = 1; axis < type.getRank(); ++axis)
    extents.push_back(computed ? Idx(type.getDimSize(axis))
                               : em.dim(io.in(values), axis));
  Value out = io.allocate(0, extents);
  Value flatOut = flattenRows(em, out);
  Idx row = em.dim(flatOut, 1);
  // The value at edge e and place p of the flattened row.
  auto valueAt = [&](Idx e, Idx p) -> Num {
    if (!computed)
      return em.load(flatValues, {e, p});
    SmallVector<Idx> indices{e};
    int64_t stride = llvm::product_of(type.getShape().drop_front());
    for (int64_t size : type.getShape().drop_front()) {
      stride /= size;
      indices.push_back(p / Idx(stride) % Idx(size));
    }
    return loadOrCompute(io, values, indices);
  };
  // Nodes on the grid's x (up to 2^31 - 1 blocks; y stops at 65,535).
  em.launchKernel(
      config.getKernel().getValue(),
      {nodes, ceilDiv(row, kBlockThreads), Idx(1)},
      {Idx(kBlockThreads), Idx(1), Idx(1)}, {}, [&](const LaunchIds &ids) {
        Idx p = ids.block[1] * Idx(kBlockThreads) + ids.thread[0];
        Idx n = ids.block[0];
        em.ifThen(p < row, [&] {
          Num sum = em.sumRange(
              em.loadIndex(rowptr, {n}), em.loadIndex(rowptr, {n + 1}),
              [&](Idx t) { return valueAt(em.loadIndex(order, {t}), p); });
          em.store(sum, flatOut, {n, p});
        });
      });
}

bool segmentReduceApplies(SegmentReduceOp) { return true; }

//===----------------------------------------------------------------------===//
// segment_reduce_grad: one warp per node, which loads the node's row once
// and stores it to each edge of its segment, lanes over the row (or, for a
// row narrower than a warp, over several edges at once): every store
// coalesced, no search. One thread per (CSR position, element) had to find
// its node by bisecting rowptr, 13 dependent loads per element at 4096
// atoms, and a fill zeroed every edge first for those in no segment.
//===----------------------------------------------------------------------===//

namespace {
/// Elements of a row a lane keeps at once.
constexpr int64_t kGatherValuesPerLane = 8;
} // namespace

void emitSegmentReduceGrad(SegmentReduceGradOp op, KernelIO &io,
                           KernelConfigAttr config) {
  Emitter &em = io.emitter();
  Value grad = io.in(op.getGrad());
  Value order = io.in(op.getOrder()), rowptr = io.in(op.getRowptr());
  Idx nodes = em.dim(rowptr, 0) - 1, edges = em.dim(order, 0);
  auto type = cast<RankedTensorType>(op.getResult().getType());
  SmallVector<Idx> extents{edges};
  for (int64_t axis = 1; axis < type.getRank(); ++axis)
    extents.push_back(Idx(type.getDimSize(axis)));
  Value out = io.allocate(0, extents);
  Value flatGrad = flattenRows(em, grad), flatOut = flattenRows(em, out);
  const int64_t row = llvm::product_of(type.getShape().drop_front());
  // A warp stores `slots` edges at a time, each `span` lanes wide.
  const int64_t span = std::min(row, kWarpSize), slots = kWarpSize / span;
  const int64_t chunk = kWarpSize * kGatherValuesPerLane;
  // Warp `nodes` takes the positions past rowptr[nodes] (edges in no
  // segment), which receive zeros.
  forEachWarp(
      em, config.getKernel().getValue(), nodes + Idx(1), [&](Idx n, Idx lane) {
        Cond tail = equal(n, nodes);
        Idx first = em.loadIndex(rowptr, {n});
        Idx end = em.index(arith::SelectOp::create(
            em.builder, em.loc, tail, edges.in(em),
            em.loadIndex(rowptr, {min(n + Idx(1), nodes)}).in(em)));
        Idx slot = lane / Idx(span), element = lane % Idx(span);
        auto gather = [&] {
          for (int64_t c0 = 0; c0 < row; c0 += chunk) {
            SmallVector<Idx> places;
            for (int64_t p = c0; p < std::min(row, c0 + chunk); p += span)
              places.push_back(Idx(p) + element);
            // The node's elements (zeros for the tail), read clamped to the
            // row where the row is not a whole number of warps.
            SmallVector<Value> values = em.ifThenElseValues(
                tail,
                [&] {
                  return SmallVector<Value>(places.size(), Num(0.0).in(em));
                },
                [&] {
                  SmallVector<Value> loaded;
                  for (Idx p : places)
                    loaded.push_back(em.load(
                        flatGrad,
                        {n, row % span == 0 ? p : min(p, Idx(row - 1))}));
                  return loaded;
                });
            em.forRangeStep(first + slot, end, Idx(slots), [&](Idx t) {
              Idx e = em.loadIndex(order, {t});
              for (auto [p, loaded] : llvm::zip(places, values)) {
                Num value = em.num(loaded);
                if (row % span == 0) {
                  em.store(value, flatOut, {e, p});
                  continue;
                }
                em.ifThen(p < Idx(row), [&, p = p] {
                  em.store(value, flatOut, {e, p});
                });
              }
            });
          }
        };
        // Lanes past the last slot idle where a warp is no whole number of
        // rows wide.
        if (slots * span == kWarpSize)
          gather();
        else
          em.ifThen(slot < Idx(slots), gather);
      });
}

/// Rows of a static size.
bool segmentReduceGradApplies(SegmentReduceGradOp op) {
  return llvm::none_of(
      cast<RankedTensorType>(op.getResult().getType()).getShape().drop_front(),
      ShapedType::isDynamic);
}

} // namespace mlir::sezm::microkernels
