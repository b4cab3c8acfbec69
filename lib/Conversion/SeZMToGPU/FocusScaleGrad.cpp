//===- FocusScaleGrad.cpp - focus_scale_grad: one warp per edge -----------===//
//
// The lanes take an edge's channels, so that its rows are read and written
// coalesced, and alpha's gradient (per stream, a sum over the stream's
// channels and rows) is added across the warp by shuffles. The loop kernel
// gave each (edge, stream) one thread reading its channels with a stride.
//
//===----------------------------------------------------------------------===//

#include "Microkernels.h"
#include "WarpSchedules.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {

bool focusScaleGradApplies(FocusScaleGradOp op) {
  return channelsFillWarps(op.getY());
}

void emitFocusScaleGrad(FocusScaleGradOp op, KernelIO &io,
                        KernelConfigAttr config) {
  Emitter &em = io.emitter();
  Value grad = io.in(op.getGrad()), y = io.in(op.getY());
  Value alpha = io.in(op.getAlpha());
  auto yType = cast<RankedTensorType>(op.getY().getType());
  int64_t rows = yType.getDimSize(1), channels = yType.getDimSize(2);
  FocusStreams streams = focusStreamsOf(op.getAlpha(), channels);
  int64_t focus = streams.count, width = streams.width;
  Idx edges = em.dim(y, 0);
  Value yGrad = io.allocate(0, {edges, Idx(rows), Idx(channels)});
  Value alphaGrad =
      io.needed(1) ? io.allocate(1, {edges, Idx(focus)}) : Value();
  em.launchKernel(
      config.getKernel().getValue(),
      {ceilDiv(edges, kWarpsPerBlock), Idx(1), Idx(1)},
      {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)}, {},
      [&](const LaunchIds &ids) {
        Idx e = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
        Idx lane = ids.thread[0];
        SpreadSlots slots = em.spreadSlots(focus, lane);
        em.ifThen(e < edges, [&] {
          SmallVector<Num> partial(focus, Num(0.0));
          for (int64_t c0 = 0; c0 < channels; c0 += kWarpSize) {
            Idx c = lane + Idx(c0);
            Idx f = c / Idx(width);
            Num scale = em.load(alpha, {e, f});
            std::optional<Num> term;
            for (int64_t j = 0; j < rows; ++j) {
              Num g = em.load(grad, {e, Idx(j), c});
              em.store(scale * g, yGrad, {e, Idx(j), c});
              if (!alphaGrad)
                continue;
              Num product = g * em.load(y, {e, Idx(j), c});
              term = term ? *term + product : product;
            }
            if (!alphaGrad)
              continue;
            // A pass of the warp spans one stream where streams are
            // whole multiples of it, else lanes of several.
            if (width % kWarpSize == 0) {
              int64_t stream = c0 / width;
              partial[stream] = partial[stream] + *term;
              continue;
            }
            for (int64_t k = 0; k < focus; ++k) {
              Cond mine = equal(f, Idx(k));
              partial[k] = partial[k] + select(mine, *term, Num(0.0));
            }
          }
          if (!alphaGrad)
            return;
          em.storeWarpSums(partial, lane, slots, [&](Idx f, Num total) {
            em.store(total, alphaGrad, {e, f});
          });
        });
      });
}

} // namespace mlir::sezm::microkernels
