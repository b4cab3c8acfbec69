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
  int64_t entries = entryPlace.size(), sums = entries + 1;

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
          // channels, with grad' = rescale * grad[n], and the sum of
          // <xl, W grad'>, which is <grad[n], message_e>.
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
            std::vector<Num> back = rotation.toEdgeFrame(g);
            std::vector<Num> out;
            for (Num value : back)
              out.push_back(weighted * value);
            storeRows(out, xlGrad, e, c);
            int64_t k = 0;
            rotation.forEachEntry([&](int64_t j, int64_t d) {
              partial[k] = partial[k] + in[j] * g[d];
              ++k;
            });
            for (int64_t j = 0; j < reduced; ++j)
              partial[entries] = partial[entries] + in[j] * back[j];
          }
          em.storeWarpSums(partial, lane, slots, [&](Idx index, Num total) {
            em.ifThenElse(
                equal(index, Idx(entries)),
                [&] {
                  em.store(em.load(norm, {n}) * total, envGrad, {e});
                  em.store(em.load(env, {e}) * total, normTerms, {e});
                },
                [&] {
                  Idx place = keptGrad ? index : em.lookup(index, entryPlace);
                  em.store(weighted * total, flatWignerGrad, {e, place});
                });
          });
        });
      });
}

} // namespace mlir::sezm::microkernels
