//===- EnvelopeAggregateGrad.cpp - one warp per edge ----------------------===//
//
// The backward of the envelope-weighted aggregation, one warp per CSR
// position (its edge e and destination n): the lanes take the channels, so
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
  Value norm = io.in(op.getInvSqrtDeg());
  Value order = io.in(op.getDstOrder()), rowptr = io.in(op.getDstRowptr());
  int64_t channels = channelsOf(op.getXl()), rows = layout.packedRows();
  int64_t reduced = layout.reducedRows();
  Idx nodes = em.dim(rowptr, 0) - 1, edges = em.dim(xl, 0);
  Value xlGrad = io.allocate(0, {edges, Idx(reduced), Idx(channels)});
  Value wignerGrad = allocateEdgesLike(io, 1, op.getWigner(), edges);
  Value envGrad = io.allocate(2, {edges});
  Value normGrad = io.allocate(3, {nodes});
  // Edges in no segment receive no gradient.
  em.fillZero(xlGrad);
  em.fillZero(wignerGrad);
  em.fillZero(envGrad);
  // Each edge's term of its node's norm gradient, summed in CSR order after.
  Value normTerms = io.scratch({ShapedType::kDynamic}, {edges});
  Value flatWignerGrad = flattenRows(em, wignerGrad);
  bool keptGrad = isKeptEntries(wignerGrad);
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
        Idx t = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
        Idx lane = ids.thread[0];
        SpreadSlots slots = em.spreadSlots(sums, lane);
        // The warp runs a position or skips it whole (its shuffles need
        // every lane); rowptr[N] = E by the CSR contract.
        em.ifThen(t < em.loadIndex(rowptr, {nodes}), [&] {
          Idx n = em.segmentOf(rowptr, nodes, t), e = em.loadIndex(order, {t});
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
  em.launchKernel(
      (config.getKernel().getValue() + "_nodes").str(),
      {ceilDiv(nodes, kBlockThreads), Idx(1), Idx(1)},
      {Idx(kBlockThreads), Idx(1), Idx(1)}, {}, [&](const LaunchIds &ids) {
        Idx n = ids.block[0] * Idx(kBlockThreads) + ids.thread[0];
        em.ifThen(n < nodes, [&] {
          em.store(em.sumRange(em.loadIndex(rowptr, {n}),
                               em.loadIndex(rowptr, {n + Idx(1)}),
                               [&](Idx t) {
                                 return em.load(normTerms,
                                                {em.loadIndex(order, {t})});
                               }),
                   normGrad, {n});
        });
      });
}

} // namespace mlir::sezm::microkernels
