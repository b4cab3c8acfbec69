//===- EnvelopeAggregateGrad.cpp - one warp per edge ----------------------===//
//
// The backward of the envelope-weighted aggregation, one warp per edge e
// (its destination n = dst[e]): the lanes take the channels, so
// that the node's gradient rows and the edge's rows are read coalesced, and
// the per-edge sums over channels (the kept Wigner-D entries' gradients and
// <grad[n], message_e>) are added across the warp by shuffles. The loop
// kernel gave each edge one thread walking all channels.
//
//===----------------------------------------------------------------------===//

#include "Microkernels.h"
#include "WarpSchedules.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {

bool envelopeAggregateGradApplies(EnvelopeAggregateGradOp op) {
  return channelsFillWarps(op.getXl());
}

void emitEnvelopeAggregateGrad(EnvelopeAggregateGradOp op, KernelIO &io,
                               KernelConfigAttr config) {
  Emitter &em = io.emitter();
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  Value grad = io.in(op.getGrad()), xl = io.in(op.getXl());
  Value wigner = io.in(op.getWigner()), env = io.in(op.getEnv());
  Value norm = io.in(op.getInvSqrtDeg()), dst = io.in(op.getDst());
  int64_t channels = channelsOf(op.getXl()), rows = layout.packedRows();
  int64_t reduced = layout.reducedRows();
  Idx edges = em.dim(xl, 0);
  Value xlGrad = io.allocate(0, {edges, Idx(reduced), Idx(channels)});
  Value wignerGrad = allocateEdgesLike(io, 1, op.getWigner(), edges);
  Value envGrad = io.allocate(2, {edges});
  Value normTerms = io.allocate(3, {edges});
  // With `scaled`: alpha per (edge, focus stream), its gradient summed per
  // stream as further warp sums.
  Value alpha = op.getFocusAlpha() ? io.in(op.getFocusAlpha()) : Value();
  FocusStreams streams = alpha ? focusStreamsOf(op.getFocusAlpha(), channels)
                               : FocusStreams{0, channels};
  int64_t focus = streams.count, streamWidth = streams.width;
  Value alphaGrad = alpha ? io.allocate(4, {edges, Idx(focus)}) : Value();
  bool keptGrad = isKeptEntries(wignerGrad);
  // The whole D x D form has entries no edge's sum reaches.
  if (!keptGrad)
    em.fillZero(wignerGrad);
  Value flatWignerGrad = flattenRows(em, wignerGrad);
  // The kept entries' places in a whole D x D gradient.
  SmallVector<int64_t> entryPlace;
  forEachKeptEntry(layout, [&](int64_t j, int64_t d) {
    entryPlace.push_back(layout.wholeWignerPlace(j, d));
  });
  int64_t entries = entryPlace.size(), sums = entries + 1 + focus;

  em.launchKernel(
      config.getKernel().getValue(),
      {ceilDiv(edges, kWarpsPerBlock), Idx(1), Idx(1)},
      {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)}, {},
      [&](const LaunchIds &ids) {
        Idx e = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
        Idx lane = ids.thread[0];
        SpreadSlots slots = em.spreadSlots(sums, lane);
        // The warp runs an edge or skips it whole (its shuffles need every
        // lane).
        em.ifThen(e < edges, [&] {
          Idx n = em.loadIndex(dst, {e});
          Num weighted = em.load(norm, {n}) * em.load(env, {e});
          EdgeRotation rotation(layout, wigner, e, lane);
          // Per lane: each kept entry's sum of xl[j] * grad'[d] over its
          // channels, with grad' = rescale * grad[n], the sum of
          // <xl, W grad'>, which is <grad[n], message_e>, and with
          // `scaled` each stream's sum of the messages' gradient times xl.
          SmallVector<Num> partial(sums, Num(0.0));
          for (int64_t c0 = 0; c0 < channels; c0 += kWarpSize) {
            Idx c = lane + Idx(c0);
            std::vector<Num> g = loadRows(grad, n, rows, c);
            for (auto [d, value] : llvm::enumerate(g)) {
              double factor = rotateBackRescale(d);
              if (factor != 1.0)
                value = Num(factor) * value;
            }
            std::vector<Num> in = loadRows(xl, e, reduced, c);
            std::vector<Num> messages = in;
            std::optional<Num> streamScale;
            if (alpha) {
              streamScale = em.load(alpha, {e, c / Idx(streamWidth)});
              for (Num &value : messages)
                value = *streamScale * value;
            }
            std::vector<Num> back = rotation.toEdgeFrame(g);
            std::vector<Num> out;
            for (Num value : back)
              out.push_back(weighted * value);
            std::vector<Num> stored = out;
            if (streamScale)
              for (Num &value : stored)
                value = *streamScale * value;
            storeRows(stored, xlGrad, e, c);
            int64_t k = 0;
            rotation.forEachEntry([&](int64_t j, int64_t d) {
              partial[k] = partial[k] + messages[j] * g[d];
              ++k;
            });
            for (int64_t j = 0; j < reduced; ++j)
              partial[entries] = partial[entries] + messages[j] * back[j];
            if (!alpha)
              continue;
            Num rowSum = out[0] * in[0];
            for (int64_t j = 1; j < reduced; ++j)
              rowSum = rowSum + out[j] * in[j];
            // A stream covers whole warps of channels where its width is
            // a multiple of the warp's: then this chunk's stream is known.
            if (streamWidth % kWarpSize == 0) {
              Num &slot = partial[entries + 1 + c0 / streamWidth];
              slot = slot + rowSum;
              continue;
            }
            Idx stream = c / Idx(streamWidth);
            for (int64_t f = 0; f < focus; ++f)
              partial[entries + 1 + f] =
                  partial[entries + 1 + f] +
                  select(equal(stream, Idx(f)), rowSum, Num(0.0));
          }
          auto storeEntry = [&](Idx index, Num total) {
            Idx place = keptGrad ? index : em.lookup(index, entryPlace);
            em.store(weighted * total, flatWignerGrad, {e, place});
          };
          auto storeDot = [&](Num total) {
            em.store(em.load(norm, {n}) * total, envGrad, {e});
            em.store(em.load(env, {e}) * total, normTerms, {e});
          };
          em.storeWarpSums(partial, lane, slots, [&](Idx index, Num total) {
            if (!alpha) {
              em.ifThenElse(
                  equal(index, Idx(entries)), [&] { storeDot(total); },
                  [&] { storeEntry(index, total); });
              return;
            }
            em.ifThenElse(
                index < Idx(entries), [&] { storeEntry(index, total); },
                [&] {
                  em.ifThenElse(
                      equal(index, Idx(entries)), [&] { storeDot(total); },
                      [&] {
                        em.store(total, alphaGrad,
                                 {e, index - Idx(entries + 1)});
                      });
                });
          });
        });
      });
}

} // namespace mlir::sezm::microkernels
