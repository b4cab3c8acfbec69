//===- AttentionMath.cpp - the softmax passes of attention_aggregate ------===//

#include "AttentionMath.h"

#include "KernelIO.h"

#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

AttentionStreams AttentionStreams::of(Emitter &em, Value logit,
                                      int64_t channels) {
  auto type = cast<ShapedType>(logit.getType());
  int64_t focus = type.getDimSize(1), heads = type.getDimSize(2);
  return {em, focus, heads, channels / focus / heads};
}

Num AttentionStreams::load(Value buffer, Idx e, Idx s) const {
  return em.load(buffer, {e, s / Idx(heads), s % Idx(heads)});
}

void AttentionStreams::store(Num value, Value buffer, Idx e, Idx s) const {
  em.store(value, buffer, {e, s / Idx(heads), s % Idx(heads)});
}

Num AttentionStreams::load(Value buffer, Idx s) const {
  return em.load(buffer, {s / Idx(heads), s % Idx(heads)});
}

void AttentionStreams::store(Num value, Value buffer, Idx s) const {
  em.store(value, buffer, {s / Idx(heads), s % Idx(heads)});
}

namespace {
/// softplus(x) + 1e-7, evaluated without overflow.
Num nullMass(Num x) {
  return max(x, Num(0.0)) + log(Num(1.0) + exp(-max(x, -x))) + Num(1e-7);
}

/// The softmax of node n's segment in stream s: the log of the null mass,
/// the shift (the largest log mass) and the shifted partition sum.
struct SegmentSoftmax {
  Num logNull, shift, partition;
};
} // namespace

/// log(env^2 exp(logit)) of edge e in stream s.
static Num logMass(const AttentionSoftmax &a, Idx e, Idx s) {
  Emitter &em = a.streams.em;
  return Num(2.0) * log(em.load(a.env, {e})) + a.streams.load(a.logit, e, s);
}

static SegmentSoftmax segmentSoftmax(const AttentionSoftmax &a, Idx n, Idx s) {
  const AttentionStreams &streams = a.streams;
  Emitter &em = streams.em;
  Num logNull = log(nullMass(streams.load(a.nullLogit, s)));
  Idx begin = em.loadIndex(a.rowptr, {n}),
      end = em.loadIndex(a.rowptr, {n + 1});
  Num shift = em.maxRange(begin, end, logNull, [&](Idx t) {
    return logMass(a, em.loadIndex(a.order, {t}), s);
  });
  Num partition = exp(logNull - shift) + em.sumRange(begin, end, [&](Idx t) {
    return exp(logMass(a, em.loadIndex(a.order, {t}), s) - shift);
  });
  return {logNull, shift, partition};
}

Idx AttentionSoftmax::nodes() const { return streams.em.dim(rowptr, 0) - 1; }

void AttentionSoftmax::forEachPosition(
    llvm::function_ref<void(Idx)> body) const {
  Emitter &em = streams.em;
  // The loop bound is the order's extent (rowptr[N] lives on the device).
  Idx n0 = nodes();
  em.parallelRange(0, em.dim(order, 0), [&](Idx t) {
    em.ifThen(t < em.loadIndex(rowptr, {n0}), [&] { body(t); });
  });
}

void AttentionSoftmax::emitWeights(Value att, Value nullWeight) const {
  Emitter &em = streams.em;
  int64_t count = streams.count();
  em.parallelRange(0, nodes() * Idx(count), [&](Idx i) {
    Idx n = i / Idx(count), s = i % Idx(count);
    SegmentSoftmax softmax = segmentSoftmax(*this, n, s);
    em.forRange(em.loadIndex(rowptr, {n}), em.loadIndex(rowptr, {n + 1}),
                [&](Idx t) {
                  Idx e = em.loadIndex(order, {t});
                  streams.store(exp(logMass(*this, e, s) - softmax.shift) /
                                    softmax.partition,
                                att, e, s);
                });
    if (nullWeight)
      streams.store(exp(softmax.logNull - softmax.shift) / softmax.partition,
                    nullWeight, n, s);
  });
}

void AttentionSoftmax::emitLogitGradients(KernelIO &io, Value att,
                                          Value attGrad, Value nullWeight,
                                          Value logitGrad, Value envGrad,
                                          Value nullGrad) const {
  Emitter &em = streams.em;
  int64_t count = streams.count();
  int64_t focus = streams.focus, heads = streams.heads;
  Idx n0 = nodes();
  // S[n, s] = sum_e att_e * d att_e over the segment, and each node's share
  // of d null_logit: d null = -S / Z, d null / dz = sigmoid(z).
  Value weighted =
      io.scratch({ShapedType::kDynamic, focus, heads}, {n0, focus, heads});
  Value nullShares =
      io.scratch({ShapedType::kDynamic, focus, heads}, {n0, focus, heads});
  em.parallelRange(0, n0 * Idx(count), [&](Idx i) {
    Idx n = i / Idx(count), s = i % Idx(count);
    Num total = em.sumRange(
        em.loadIndex(rowptr, {n}), em.loadIndex(rowptr, {n + 1}), [&](Idx t) {
          Idx e = em.loadIndex(order, {t});
          return streams.load(att, e, s) * streams.load(attGrad, e, s);
        });
    streams.store(total, weighted, n, s);
    Num z = streams.load(nullLogit, s);
    Num sigmoidZ = sigmoid(z);
    streams.store(-total * streams.load(nullWeight, n, s) / nullMass(z) *
                      sigmoidZ,
                  nullShares, n, s);
  });
  // One iteration per CSR position: its edge's logit and env gradients.
  forEachPosition([&](Idx t) {
    Idx n = em.segmentOf(rowptr, n0, t), e = em.loadIndex(order, {t});
    Num w = em.load(env, {e});
    Num envSum(0.0);
    for (int64_t s = 0; s < count; ++s) {
      Num a = streams.load(att, e, Idx(s));
      Num centered =
          streams.load(attGrad, e, Idx(s)) - streams.load(weighted, n, Idx(s));
      streams.store(a * centered, logitGrad, e, Idx(s));
      // d mass / d env = 2 mass / env; masked edges (env = 0) get none.
      Num envSlope = select(Num(0.0) < w, Num(2.0) * a / w, Num(0.0));
      envSum = envSum + envSlope * centered;
    }
    em.store(envSum, envGrad, {e});
  });
  em.parallelRange(0, Idx(count), [&](Idx s) {
    streams.store(
        em.sumRange(0, n0,
                    [&](Idx n) { return streams.load(nullShares, n, s); }),
        nullGrad, s);
  });
}
