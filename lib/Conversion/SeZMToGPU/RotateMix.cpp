//===- RotateMix.cpp - rotate_mix: one warp per edge ----------------------===//

#include "Microkernels.h"
#include "WarpSchedules.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {

//===----------------------------------------------------------------------===//
// rotate_mix: one warp per edge
//===----------------------------------------------------------------------===//

/// The warp's lanes load the edge's Wigner-D non-zeros and degree kernel
/// together, one or two values each, and hand them round by shuffles (71
/// broadcast loads per edge were 71 requests in flight per warp); each lane
/// rotates, mixes and stores its channels (coalesced across lanes). Where the
/// channels fill the warp twice, a lane takes two neighbouring channels per
/// pass as one 8-byte access: half the load and store instructions, and the
/// edge's entries loaded once for both.
void emitRotateMix(RotateMixOp op, KernelIO &io, KernelConfigAttr config) {
  Emitter &em = io.emitter();
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  Value x = io.in(op.getX()), src = io.in(op.getSrc());
  Value wigner = io.in(op.getWigner());
  RadialMixer mixer = mixerOf(op, io);
  int64_t channels = channelsOf(op.getX()), rows = layout.packedRows();
  // A two-channel group must not straddle two focus streams.
  int64_t streams = static_cast<int64_t>(op.getFocusMajor().value_or(1));
  int64_t width =
      channels % (2 * kWarpSize) == 0 && (channels / streams) % 2 == 0 ? 2 : 1;
  int64_t step = width * kWarpSize;
  Idx edges = em.dim(src, 0);
  Value out = allocateEdgeRows(io, 0, edges, layout.reducedRows(), channels,
                               op.getFocusMajor());
  em.launchKernel(
      config.getKernel().getValue(),
      {ceilDiv(edges, kWarpsPerBlock), Idx(1), Idx(1)},
      {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)}, {},
      [&](const LaunchIds &ids) {
        Idx e = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
        Idx lane = ids.thread[0];
        em.ifThen(e < edges, [&] {
          Idx s = em.loadIndex(src, {e});
          EdgeRotation rotation(layout, wigner, e, lane);
          RadialMixer::Edge edge = mixer.atEdge(e, lane);
          for (int64_t part = 0; part < channels / step; ++part) {
            Idx first = lane * Idx(width) + Idx(part * step);
            std::vector<std::vector<Num>> result =
                loadRowGroups(x, s, rows, first, width);
            for (int64_t k = 0; k < width; ++k)
              result[k] = mixer.mix(edge, mixer.atChannel(edge, first + Idx(k)),
                                    rotation.toEdgeFrame(result[k]));
            storeRowGroups(result, out, e, first);
          }
        });
      },
      config.getBlocksPerSm());
}

bool rotateMixApplies(RotateMixOp op) { return channelsFillWarps(op.getX()); }

} // namespace mlir::sezm::microkernels
