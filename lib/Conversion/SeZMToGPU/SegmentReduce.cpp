//===- SegmentReduce.cpp - segment_reduce and its gradient (a gather) -----===//

#include "Microkernels.h"
#include "WarpSchedules.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {

//===----------------------------------------------------------------------===//
// segment_reduce: one thread per (node, row element), the sum in a register
//===----------------------------------------------------------------------===//

void emitSegmentReduce(SegmentReduceOp op, KernelIO &io,
                       KernelConfigAttr config) {
  Emitter &em = io.emitter();
  Value values = io.in(op.getValues());
  Value order = io.in(op.getOrder()), rowptr = io.in(op.getRowptr());
  Idx nodes = em.dim(rowptr, 0) - 1;
  auto type = cast<RankedTensorType>(op.getResult().getType());
  SmallVector<Idx> extents{nodes};
  for (int64_t axis = 1; axis < type.getRank(); ++axis)
    extents.push_back(em.dim(values, axis));
  Value out = io.allocate(0, extents);
  Value flatValues = flattenRows(em, values), flatOut = flattenRows(em, out);
  Idx row = em.dim(flatValues, 1);
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
              [&](Idx t) {
                return em.load(flatValues, {em.loadIndex(order, {t}), p});
              });
          em.store(sum, flatOut, {n, p});
        });
      });
}

bool segmentReduceApplies(SegmentReduceOp) { return true; }

//===----------------------------------------------------------------------===//
// segment_reduce_grad: one thread per (CSR position, row element), so that
// a warp copies consecutive elements of its node's row to its edge's; the
// loop kernel gave each node one thread walking its segment.
//===----------------------------------------------------------------------===//

void emitSegmentReduceGrad(SegmentReduceGradOp op, KernelIO &io,
                           KernelConfigAttr config) {
  Emitter &em = io.emitter();
  Value grad = io.in(op.getGrad());
  Value order = io.in(op.getOrder()), rowptr = io.in(op.getRowptr());
  Idx nodes = em.dim(rowptr, 0) - 1, edges = em.dim(order, 0);
  auto type = cast<RankedTensorType>(op.getResult().getType());
  SmallVector<Idx> extents{edges};
  for (int64_t axis = 1; axis < type.getRank(); ++axis)
    extents.push_back(em.dim(grad, axis));
  Value out = io.allocate(0, extents);
  // Edges in no segment receive no gradient.
  em.fillZero(out);
  Value flatGrad = flattenRows(em, grad), flatOut = flattenRows(em, out);
  Idx row = em.dim(flatGrad, 1);
  em.launchKernel(config.getKernel().getValue(),
                  {ceilDiv(edges * row, kBlockThreads), Idx(1), Idx(1)},
                  {Idx(kBlockThreads), Idx(1), Idx(1)}, {},
                  [&](const LaunchIds &ids) {
                    Idx i = ids.block[0] * Idx(kBlockThreads) + ids.thread[0];
                    Idx t = i / row, p = i % row;
                    // rowptr[N] = E for a CSR over every edge; positions past
                    // it (edges in no segment) have nothing to copy.
                    em.ifThen(t < em.loadIndex(rowptr, {nodes}), [&] {
                      Idx n = em.segmentOf(rowptr, nodes, t);
                      em.store(em.load(flatGrad, {n, p}), flatOut,
                               {em.loadIndex(order, {t}), p});
                    });
                  });
}

bool segmentReduceGradApplies(SegmentReduceGradOp) { return true; }

} // namespace mlir::sezm::microkernels
