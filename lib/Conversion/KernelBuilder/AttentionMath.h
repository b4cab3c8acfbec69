//===- AttentionMath.h - the softmax passes of attention_aggregate -*- C++ -*-//
//
// sezm.attention_aggregate and its gradient in passes that each have work
// for every node and stream, or every edge: the attention weights once per
// (node, stream), then the per-edge (or per-(node, channel)) work reads
// them. The loop kernels and the GPU microkernel share these passes; they
// differ only in the per-edge pass over channels (sezm-ops.md 3.6b, 4.5).
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_LIB_CONVERSION_KERNELBUILDER_ATTENTIONMATH_H
#define SEZM_LIB_CONVERSION_KERNELBUILDER_ATTENTIONMATH_H

#include "KernelBuilder.h"

namespace mlir::sezm {
class KernelIO;
} // namespace mlir::sezm

namespace mlir::sezm::kernel {

/// The streams of an attention: channel c = f*Cf + h*(Cf/H) + ch belongs
/// to stream s = f*H + h = c / (Cf/H), whose per-edge values sit at
/// [e, f, h] of an (E, F, H) buffer.
struct AttentionStreams {
  Emitter &em;
  int64_t focus, heads, headWidth;

  /// The streams of a logit tensor (E, F, H) over `channels` channels.
  static AttentionStreams of(Emitter &em, Value logit, int64_t channels);

  int64_t count() const { return focus * heads; }
  Idx streamOf(Idx c) const { return c / Idx(headWidth); }
  /// buffer[e, f, h] of an (E, F, H) (or (N, F, H)) buffer.
  Num load(Value buffer, Idx e, Idx s) const;
  void store(Num value, Value buffer, Idx e, Idx s) const;
  /// buffer[f, h] of an (F, H) buffer.
  Num load(Value buffer, Idx s) const;
  void store(Num value, Value buffer, Idx s) const;
};

/// The softmax of one attention over the destination CSR.
struct AttentionSoftmax {
  Value logit, env, nullLogit, order, rowptr;
  AttentionStreams streams;

  Idx nodes() const;
  /// body(t) for every CSR position t < rowptr[N], one iteration each.
  void forEachPosition(llvm::function_ref<void(Idx)> body) const;

  /// att[e, f, h] of every edge of a segment, one iteration per (node,
  /// stream); with `nullWeight` (N, F, H), each node's null weight
  /// exp(log null - shift) / Z too.
  void emitWeights(Value att, Value nullWeight = Value()) const;

  /// From attGrad[e, f, h] = <grad[dst], message_e> over the stream's
  /// channels: logit_grad and env_grad of every segment edge (the caller
  /// zeroes the others) and null_logit_grad. Sums run in CSR order, and
  /// over nodes in order for null_logit_grad.
  void emitLogitGradients(KernelIO &io, Value att, Value attGrad,
                          Value nullWeight, Value logitGrad, Value envGrad,
                          Value nullGrad) const;
};

} // namespace mlir::sezm::kernel

#endif // SEZM_LIB_CONVERSION_KERNELBUILDER_ATTENTIONMATH_H
