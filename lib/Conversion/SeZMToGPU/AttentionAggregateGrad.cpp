//===- AttentionAggregateGrad.cpp - one warp per edge ---------------------===//
//
// The backward of the attention aggregation. The softmax passes (weights
// per node and stream, then the logit and env gradients per edge) are the
// loop kernel's (AttentionMath.h); the per-edge pass over channels, which
// carries the work, takes one warp per CSR position as
// envelope_aggregate_grad does: lanes over channels, each lane's channel
// weighted by its stream's attention, and the per-edge sums (the kept
// Wigner-D entries' gradients and each stream's <grad[n], message_e>)
// added across the warp by shuffles.
//
//===----------------------------------------------------------------------===//

#include "Microkernels.h"
#include "WarpSchedules.h"

#include "KernelBuilder/AttentionMath.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {

bool attentionAggregateGradApplies(AttentionAggregateGradOp op) {
  return channelsFillWarps(op.getXl());
}

void emitAttentionAggregateGrad(AttentionAggregateGradOp op, KernelIO &io,
                                KernelConfigAttr config) {
  Emitter &em = io.emitter();
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  Value grad = io.in(op.getGrad()), xl = io.in(op.getXl());
  Value wigner = io.in(op.getWigner());
  Value order = io.in(op.getDstOrder()), rowptr = io.in(op.getDstRowptr());
  int64_t channels = channelsOf(op.getXl()), rows = layout.packedRows();
  int64_t reduced = layout.reducedRows();
  AttentionStreams streams = AttentionStreams::of(em, op.getLogit(), channels);
  AttentionSoftmax softmax{io.in(op.getLogit()),
                           io.in(op.getEnv()),
                           io.in(op.getNullLogit()),
                           order,
                           rowptr,
                           streams};
  int64_t focus = streams.focus, heads = streams.heads;
  Idx nodes = softmax.nodes(), edges = em.dim(xl, 0);
  Value xlGrad = io.allocate(0, {edges, Idx(reduced), Idx(channels)});
  Value wignerGrad = allocateEdgesLike(io, 1, op.getWigner(), edges);
  Value logitGrad = io.allocate(2, {edges, focus, heads});
  Value envGrad = io.allocate(3, {edges});
  Value nullGrad = io.allocate(4, {focus, heads});
  bool keptGrad = isKeptEntries(wignerGrad);
  // The whole D x D form has entries no edge's sum reaches. (Edges in no
  // segment get zeros from the warps of the positions past rowptr[N].)
  if (!keptGrad)
    em.fillZero(wignerGrad);
  Value att =
      io.scratch({ShapedType::kDynamic, focus, heads}, {edges, focus, heads});
  Value nullWeight =
      io.scratch({ShapedType::kDynamic, focus, heads}, {nodes, focus, heads});
  softmax.emitWeights(att, nullWeight);
  Value attGrad =
      io.scratch({ShapedType::kDynamic, focus, heads}, {edges, focus, heads});
  Value flatWignerGrad = flattenRows(em, wignerGrad);
  SmallVector<int64_t> entryPlace;
  forEachKeptEntry(layout, [&](int64_t j, int64_t d) {
    entryPlace.push_back(layout.wholeWignerPlace(j, d));
  });
  int64_t entries = entryPlace.size(), sums = entries + streams.count();

  em.launchKernel(
      config.getKernel().getValue(),
      {ceilDiv(edges, kWarpsPerBlock), Idx(1), Idx(1)},
      {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)}, {},
      [&](const LaunchIds &ids) {
        Idx t = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
        Idx lane = ids.thread[0];
        SpreadSlots slots = em.spreadSlots(sums, lane);
        // The warp runs a position or skips it whole (its shuffles need
        // every lane); a position past rowptr[N] holds an edge in no
        // segment, which receives zero gradients.
        Idx segmented = em.loadIndex(rowptr, {nodes});
        auto zeroEdge = [&] {
          Idx e = em.loadIndex(order, {t});
          for (int64_t c0 = 0; c0 < channels; c0 += kWarpSize)
            storeRows(std::vector<Num>(reduced, Num(0.0)), xlGrad, e,
                      lane + Idx(c0));
          for (int64_t k0 = 0; k0 < entries; k0 += kWarpSize)
            em.ifThen(lane + Idx(k0) < Idx(entries), [&] {
              Idx k = lane + Idx(k0);
              em.store(Num(0.0), flatWignerGrad,
                       {e, keptGrad ? k : em.lookup(k, entryPlace)});
            });
          em.ifThen(equal(lane, Idx(0)), [&] {
            for (int64_t s = 0; s < streams.count(); ++s)
              streams.store(Num(0.0), logitGrad, e, Idx(s));
            em.store(Num(0.0), envGrad, {e});
          });
        };
        em.ifThenElse(
            t < segmented,
            [&] {
              Idx n = em.segmentOf(rowptr, nodes, t),
                  e = em.loadIndex(order, {t});
              EdgeRotation rotation(layout, wigner, e, lane);
              // Per lane: each kept entry's sum of att * xl[j] * grad'[d] over
              // its channels (grad' = rescale * grad[n]), and per stream the
              // sum of <xl, W grad'>, which is <grad[n], message_e>.
              SmallVector<Num> partial(sums, Num(0.0));
              for (int64_t c0 = 0; c0 < channels; c0 += kWarpSize) {
                Idx c = lane + Idx(c0);
                Idx s = streams.streamOf(c);
                Num weight = streams.load(att, e, s);
                std::vector<Num> g = loadRows(grad, n, rows, c);
                for (auto [d, value] : llvm::enumerate(g)) {
                  double factor = rotateBackRescale(d);
                  if (factor != 1.0)
                    value = Num(factor) * value;
                }
                std::vector<Num> in = loadRows(xl, e, reduced, c);
                std::vector<Num> back = rotation.toEdgeFrame(g);
                std::vector<Num> out, weightedIn;
                Num dot(0.0);
                for (auto [j, value] : llvm::enumerate(back)) {
                  out.push_back(weight * value);
                  weightedIn.push_back(weight * in[j]);
                  dot = dot + in[j] * value;
                }
                storeRows(out, xlGrad, e, c);
                int64_t k = 0;
                rotation.forEachEntry([&](int64_t j, int64_t d) {
                  partial[k] = partial[k] + weightedIn[j] * g[d];
                  ++k;
                });
                // A 32-channel group lies in one stream when the streams are
                // at least a warp wide; else each lane adds to its own.
                if (streams.headWidth % kWarpSize == 0) {
                  int64_t stream = c0 / streams.headWidth;
                  partial[entries + stream] = partial[entries + stream] + dot;
                  continue;
                }
                for (int64_t stream = 0; stream < streams.count(); ++stream)
                  partial[entries + stream] =
                      partial[entries + stream] +
                      select(equal(s, Idx(stream)), dot, Num(0.0));
              }
              em.storeWarpSums(partial, lane, slots, [&](Idx index, Num total) {
                em.ifThenElse(
                    index < Idx(entries),
                    [&] {
                      Idx place =
                          keptGrad ? index : em.lookup(index, entryPlace);
                      em.store(total, flatWignerGrad, {e, place});
                    },
                    [&] {
                      streams.store(total, attGrad, e, index - Idx(entries));
                    });
              });
            },
            [&] { em.ifThen(t < edges, zeroEdge); });
      });
  softmax.emitLogitGradients(io, att, attGrad, nullWeight, logitGrad, envGrad,
                             nullGrad);
}

} // namespace mlir::sezm::microkernels
