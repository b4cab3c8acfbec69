//===- FocusScale.cpp - focus_scale: one warp per edge --------------------===//
//
// The lanes take an edge's channels, so that its rows are read and written
// coalesced, and each lane loads its stream's alpha once. The loop kernel
// gave each element a thread, which recomputed the edge, row and stream of
// its flat index (64-bit divisions) and reached half the DRAM bandwidth.
//
//===----------------------------------------------------------------------===//

#include "Microkernels.h"
#include "WarpSchedules.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {

bool focusScaleApplies(FocusScaleOp op) { return channelsFillWarps(op.getY()); }

void emitFocusScale(FocusScaleOp op, KernelIO &io, KernelConfigAttr config) {
  Emitter &em = io.emitter();
  Value y = io.in(op.getY()), alpha = io.in(op.getAlpha());
  auto yType = cast<RankedTensorType>(op.getY().getType());
  int64_t rows = yType.getDimSize(1), channels = yType.getDimSize(2);
  int64_t width = focusStreamsOf(op.getAlpha(), channels).width;
  Idx edges = em.dim(y, 0);
  Value out = io.allocate(0, {edges, Idx(rows), Idx(channels)});
  em.launchKernel(
      config.getKernel().getValue(),
      {ceilDiv(edges, kWarpsPerBlock), Idx(1), Idx(1)},
      {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)}, {},
      [&](const LaunchIds &ids) {
        Idx e = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
        Idx lane = ids.thread[0];
        em.ifThen(e < edges, [&] {
          for (int64_t c0 = 0; c0 < channels; c0 += kWarpSize) {
            Idx c = lane + Idx(c0);
            Num scale = em.load(alpha, {e, c / Idx(width)});
            for (int64_t j = 0; j < rows; ++j)
              em.store(scale * em.load(y, {e, Idx(j), c}), out, {e, Idx(j), c});
          }
        });
      });
}

} // namespace mlir::sezm::microkernels
