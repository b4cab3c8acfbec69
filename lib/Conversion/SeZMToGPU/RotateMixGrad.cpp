//===- RotateMixGrad.cpp - rotate_mix_grad: one warp per edge -------------===//

#include "Microkernels.h"
#include "WarpSchedules.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "WarpEdgeBackward.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {

//===----------------------------------------------------------------------===//
// rotate_mix_grad: one warp per edge
//===----------------------------------------------------------------------===//

/// The per-edge backward where nothing reduces the node gradient (which is
/// then stored per edge, if used at all: a first block's features are
/// constants), and the channel-basis gradient is unused.
void emitRotateMixGrad(RotateMixGradOp op, KernelIO &io,
                       KernelConfigAttr config) {
  Emitter &em = io.emitter();
  Value x = io.in(op.getX()), src = io.in(op.getSrc());
  Idx edges = em.dim(src, 0);
  int64_t channels = channelsOf(op.getX());
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  int64_t rows = layout.packedRows();
  Value nodeGrad = io.needed(0)
                       ? io.allocate(0, {edges, Idx(rows), Idx(channels)})
                       : Value();
  WarpEdgeBackward backward(op, io,
                            allocateEdgesLike(io, 1, op.getWigner(), edges),
                            allocateEdgesLike(io, 2, op.getKc(), edges),
                            WarpEdgeBackward::EntryLoads::Broadcast);
  em.launchKernel(
      config.getKernel().getValue(),
      {ceilDiv(edges, kWarpsPerBlock), Idx(1), Idx(1)},
      {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)},
      WarpEdgeBackward::workgroupShapes(layout, isKeptEntries(op.getWigner()),
                                        WarpEdgeBackward::EntryLoads::Broadcast,
                                        op.getRank(), channels),
      [&](const LaunchIds &ids) {
        Idx e = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
        Idx lane = ids.thread[0];
        // Every lane of a warp has the same edge: the whole warp runs the
        // edge or skips it, as its warp barriers need.
        backward.begin(ids.workgroup, ids.thread[1], lane);
        em.ifThen(e < edges, [&] {
          Idx s = em.loadIndex(src, {e});
          std::vector<std::vector<std::vector<Num>>> packed;
          for (int64_t part = 0; part < backward.parts; ++part)
            packed.push_back(loadRowGroups(
                x, s, rows, backward.firstChannel(lane, part), backward.width));
          backward.emit(e, e, packed,
                        [&](int64_t part, ArrayRef<std::vector<Num>> gl,
                            const EdgeRotation &rotation) {
                          if (!nodeGrad)
                            return;
                          std::vector<std::vector<Num>> node;
                          for (ArrayRef<Num> channel : gl)
                            node.push_back(rotation.fromEdgeFrame(channel));
                          storeRowGroups(node, nodeGrad, e,
                                         backward.firstChannel(lane, part));
                        });
        });
      });
}

/// The per-edge backward computes no channel-basis gradient.
bool rotateMixGradApplies(RotateMixGradOp op) {
  return channelsFillWarps(op.getX()) && edgeGradsUsed(op) &&
         (!op.getCbGrad() || op.getCbGrad().use_empty());
}

} // namespace mlir::sezm::microkernels
