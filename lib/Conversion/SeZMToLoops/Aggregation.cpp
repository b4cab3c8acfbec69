//===- Aggregation.cpp - CPU kernels of aggregation into atoms ------------===//
//
// One loop over destination nodes, each walking its CSR segment: the
// per-edge message (the rotate-back of its edge-frame rows) is recomputed
// in registers and never stored.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "KernelBuilder/AttentionMath.h"
#include "KernelBuilder/SO2Math.h"

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

namespace {
/// The rotate-back message of edge e, channel c, with its rescale.
std::vector<Num> message(const EdgeRotation &rotation, Value xl,
                         SO2Layout layout, Idx e, Idx c,
                         std::optional<Num> scale = std::nullopt) {
  std::vector<Num> rows = loadRows(xl, e, layout.reducedRows(), c);
  // As sezm.focus_scale rounds each element before the rotation.
  if (scale)
    for (Num &value : rows)
      value = *scale * value;
  std::vector<Num> packed = rotation.fromEdgeFrame(rows);
  for (auto [d, value] : llvm::enumerate(packed)) {
    double factor = rotateBackRescale(d);
    if (factor != 1.0)
      value = Num(factor) * value;
  }
  return packed;
}

/// Sums terms in order.
Num total(ArrayRef<Num> terms) {
  Num sum = terms.front();
  for (Num term : terms.drop_front())
    sum = sum + term;
  return sum;
}

} // namespace

void sezm::emitKernel(EnvelopeAggregateOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value xl = io.in(op.getXl()), wigner = io.in(op.getWigner());
  Value env = io.in(op.getEnv()), norm = io.in(op.getInvSqrtDeg());
  Value order = io.in(op.getDstOrder()), rowptr = io.in(op.getDstRowptr());
  int64_t channels = staticDim(op.getXl(), 2), rows = layout.packedRows();
  Idx nodes = em.dim(rowptr, 0) - 1, edges = em.dim(env, 0);
  Value out = io.allocate(0, {nodes, rows, channels});
  Value alpha = op.getFocusAlpha() ? io.in(op.getFocusAlpha()) : Value();
  int64_t streamWidth =
      alpha ? channels / staticDim(op.getFocusAlpha(), 1) : channels;
  // One iteration per (node, channel), its rows summed in registers over
  // the node's segment (or its part in the op's range of edges) in CSR
  // order: N*C threads on a GPU, not N.
  em.parallelRange(0, nodes * Idx(channels), [&](Idx i) {
    Idx n = i / Idx(channels), c = i % Idx(channels);
    KernelIO::EdgeRange range = io.edgeRange(order, rowptr, n, edges);
    SmallVector<Num> init(rows, Num(0.0));
    SmallVector<Num> sums =
        em.sumRange(range.begin, range.end, init, [&](Idx t) {
          Idx e = em.loadIndex(order, {t}) - range.first;
          EdgeRotation rotation(layout, wigner, e);
          Num weight = em.load(env, {e});
          std::optional<Num> scale;
          if (alpha)
            scale = em.load(alpha, {e, c / Idx(streamWidth)});
          SmallVector<Num> terms;
          for (Num value : message(rotation, xl, layout, e, c, scale))
            terms.push_back(weight * value);
          return terms;
        });
    Num scale = em.load(norm, {n});
    for (int64_t d = 0; d < rows; ++d)
      em.store(scale * sums[d], out, {n, Idx(d), c});
  });
}

void sezm::emitKernel(EnvelopeAggregateGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value grad = io.in(op.getGrad()), xl = io.in(op.getXl());
  Value wigner = io.in(op.getWigner()), env = io.in(op.getEnv());
  Value norm = io.in(op.getInvSqrtDeg()), dst = io.in(op.getDst());
  int64_t channels = staticDim(op.getXl(), 2), rows = layout.packedRows();
  int64_t reduced = layout.reducedRows();
  Idx edges = em.dim(xl, 0);
  Value xlGrad = io.allocate(0, {edges, reduced, channels});
  Value wignerGrad = allocateEdgesLike(io, 1, op.getWigner(), edges);
  Value envGrad = io.allocate(2, {edges});
  Value normTerms = io.allocate(3, {edges});
  Value alpha = op.getFocusAlpha() ? io.in(op.getFocusAlpha()) : Value();
  int64_t focus = alpha ? staticDim(op.getFocusAlpha(), 1) : 0;
  int64_t streamWidth = alpha ? channels / focus : channels;
  Value alphaGrad = alpha ? io.allocate(4, {edges, Idx(focus)}) : Value();
  // The whole D x D form has entries no edge's sum reaches.
  if (!isKeptEntries(wignerGrad))
    em.fillZero(wignerGrad);
  // One iteration per edge, reading its destination's gradient rows.
  em.parallelRange(0, edges, [&](Idx e) {
    Idx n = em.loadIndex(dst, {e});
    Num scale = em.load(norm, {n});
    EdgeRotation rotation(layout, wigner, e);
    Num weight = em.load(env, {e});
    int64_t entries = rotation.numEntries();
    // Per channel, in channel order: each kept entry's term, then
    // <grad[n], message_e>, then each focus stream's term of alpha's
    // gradient (zero outside the channel's stream), as
    // sezm.focus_scale_grad sums them.
    SmallVector<Num> init(entries + 1 + focus, Num(0.0));
    SmallVector<Num> sums = em.sumRange(0, channels, init, [&](Idx c) {
      std::optional<Num> streamScale;
      if (alpha)
        streamScale = em.load(alpha, {e, c / Idx(streamWidth)});
      // g_e = inv_sqrt_deg[n] * env[e] * grad[n], with the rotate-back's
      // rescale.
      std::vector<Num> g = loadRows(grad, n, rows, c);
      for (auto [d, value] : llvm::enumerate(g)) {
        value = scale * weight * value;
        double factor = rotateBackRescale(d);
        if (factor != 1.0)
          value = Num(factor) * value;
      }
      std::vector<Num> in = loadRows(xl, e, reduced, c);
      std::vector<Num> messages = in;
      if (streamScale)
        for (Num &value : messages)
          value = *streamScale * value;
      std::vector<Num> messageGrad = rotation.toEdgeFrame(g);
      std::vector<Num> stored = messageGrad;
      if (streamScale)
        for (Num &value : stored)
          value = *streamScale * value;
      storeRows(stored, xlGrad, e, c);
      SmallVector<Num> terms;
      rotation.forEachEntry(
          [&](int64_t j, int64_t d) { terms.push_back(messages[j] * g[d]); });
      std::vector<Num> msg = message(rotation, xl, layout, e, c, streamScale);
      std::vector<Num> nodeGrad = loadRows(grad, n, rows, c);
      SmallVector<Num> products;
      for (int64_t d = 0; d < rows; ++d)
        products.push_back(nodeGrad[d] * msg[d]);
      terms.push_back(total(products));
      if (alpha) {
        SmallVector<Num> rowTerms;
        for (int64_t j = 0; j < reduced; ++j)
          rowTerms.push_back(messageGrad[j] * in[j]);
        Num rowSum = total(rowTerms);
        Idx stream = c / Idx(streamWidth);
        for (int64_t f = 0; f < focus; ++f)
          terms.push_back(select(equal(stream, Idx(f)), rowSum, Num(0.0)));
      }
      return terms;
    });
    rotation.storeGradient(ArrayRef<Num>(sums).take_front(entries), wignerGrad,
                           e);
    Num dot = sums[entries];
    em.store(scale * dot, envGrad, {e});
    em.store(weight * dot, normTerms, {e});
    for (int64_t f = 0; f < focus; ++f)
      em.store(sums[entries + 1 + f], alphaGrad, {e, Idx(f)});
  });
}

void sezm::emitKernel(AttentionAggregateOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value xl = io.in(op.getXl()), wigner = io.in(op.getWigner());
  Value order = io.in(op.getDstOrder()), rowptr = io.in(op.getDstRowptr());
  int64_t channels = staticDim(op.getXl(), 2), rows = layout.packedRows();
  AttentionStreams streams = AttentionStreams::of(em, op.getLogit(), channels);
  AttentionSoftmax softmax{io.in(op.getLogit()),
                           io.in(op.getEnv()),
                           io.in(op.getNullLogit()),
                           order,
                           rowptr,
                           streams};
  Idx nodes = softmax.nodes(), edges = em.dim(xl, 0);
  Value att = io.scratch({ShapedType::kDynamic, streams.focus, streams.heads},
                         {edges, streams.focus, streams.heads});
  softmax.emitWeights(att);
  Value out = io.allocate(0, {nodes, rows, channels});
  // One iteration per (node, channel), as envelope_aggregate's.
  em.parallelRange(0, nodes * Idx(channels), [&](Idx i) {
    Idx n = i / Idx(channels), c = i % Idx(channels);
    Idx s = streams.streamOf(c);
    SmallVector<Num> init(rows, Num(0.0));
    SmallVector<Num> sums =
        em.sumRange(em.loadIndex(rowptr, {n}), em.loadIndex(rowptr, {n + 1}),
                    init, [&](Idx t) {
                      Idx e = em.loadIndex(order, {t});
                      EdgeRotation rotation(layout, wigner, e);
                      Num weight = streams.load(att, e, s);
                      SmallVector<Num> terms;
                      for (Num value : message(rotation, xl, layout, e, c))
                        terms.push_back(weight * value);
                      return terms;
                    });
    for (int64_t d = 0; d < rows; ++d)
      em.store(sums[d], out, {n, Idx(d), c});
  });
}

void sezm::emitKernel(AttentionAggregateGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value grad = io.in(op.getGrad()), xl = io.in(op.getXl());
  Value wigner = io.in(op.getWigner());
  Value order = io.in(op.getDstOrder()), rowptr = io.in(op.getDstRowptr());
  int64_t channels = staticDim(op.getXl(), 2), rows = layout.packedRows();
  AttentionStreams streams = AttentionStreams::of(em, op.getLogit(), channels);
  AttentionSoftmax softmax{io.in(op.getLogit()),
                           io.in(op.getEnv()),
                           io.in(op.getNullLogit()),
                           order,
                           rowptr,
                           streams};
  int64_t focus = streams.focus, heads = streams.heads;
  Idx nodes = softmax.nodes(), edges = em.dim(xl, 0);
  Value xlGrad = io.allocate(0, {edges, layout.reducedRows(), channels});
  Value wignerGrad = allocateEdgesLike(io, 1, op.getWigner(), edges);
  Value logitGrad = io.allocate(2, {edges, focus, heads});
  Value envGrad = io.allocate(3, {edges});
  Value nullGrad = io.allocate(4, {focus, heads});
  // Edges in no segment receive no gradient.
  em.fillZero(xlGrad);
  em.fillZero(wignerGrad);
  em.fillZero(logitGrad);
  em.fillZero(envGrad);
  Value att =
      io.scratch({ShapedType::kDynamic, focus, heads}, {edges, focus, heads});
  Value nullWeight =
      io.scratch({ShapedType::kDynamic, focus, heads}, {nodes, focus, heads});
  softmax.emitWeights(att, nullWeight);
  // d att[e, s] = <grad[dst], message_e> over the stream's channels.
  Value attGrad =
      io.scratch({ShapedType::kDynamic, focus, heads}, {edges, focus, heads});
  // One iteration per CSR position: rotate_back_grad(att * grad[n]) of its
  // edge, stream by stream, and d att.
  softmax.forEachPosition([&](Idx t) {
    Idx n = em.segmentOf(rowptr, nodes, t), e = em.loadIndex(order, {t});
    EdgeRotation rotation(layout, wigner, e);
    int64_t entries = rotation.numEntries();
    SmallVector<Num> wignerSums(entries, Num(0.0));
    for (int64_t s = 0; s < streams.count(); ++s) {
      Num weight = streams.load(att, e, Idx(s));
      SmallVector<Num> init(entries + 1, Num(0.0));
      SmallVector<Num> sums =
          em.sumRange(0, streams.headWidth, init, [&](Idx ch) {
            Idx c = Idx(s * streams.headWidth) + ch;
            std::vector<Num> g = loadRows(grad, n, rows, c);
            for (auto [d, value] : llvm::enumerate(g)) {
              double factor = rotateBackRescale(d);
              if (factor != 1.0)
                value = Num(factor) * value;
            }
            std::vector<Num> in = loadRows(xl, e, layout.reducedRows(), c);
            std::vector<Num> back = rotation.toEdgeFrame(g);
            std::vector<Num> scaled;
            for (Num value : back)
              scaled.push_back(weight * value);
            storeRows(scaled, xlGrad, e, c);
            SmallVector<Num> terms;
            rotation.forEachEntry(
                [&](int64_t j, int64_t d) { terms.push_back(in[j] * g[d]); });
            SmallVector<Num> dots;
            for (auto [j, value] : llvm::enumerate(back))
              dots.push_back(in[j] * value);
            terms.push_back(total(dots));
            return terms;
          });
      streams.store(sums.back(), attGrad, e, Idx(s));
      for (int64_t k = 0; k < entries; ++k)
        wignerSums[k] = wignerSums[k] + weight * sums[k];
    }
    rotation.storeGradient(wignerSums, wignerGrad, e);
  });
  softmax.emitLogitGradients(io, att, attGrad, nullWeight, logitGrad, envGrad,
                             nullGrad);
}
