//===- FocusCompeteGrad.cpp - focus_compete_grad: one warp per edge -------===//
//
// The message gradient of the focus competition, for the force backward
// (the weight gradients unused): the lanes take an edge's channels, each
// stream's logit (and, normalized, its sum of squares) is a warp sum, and
// the lanes write every row of the edge coalesced: the l = 0 row's gradient
// (plus the addend's row), the other rows the addend or zero. The loop
// kernel gave each edge one thread reading and writing its row with a
// stride, after a separate launch had zero-filled (or copied) the tensor.
//
//===----------------------------------------------------------------------===//

#include "Microkernels.h"
#include "WarpSchedules.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {
namespace {
// As the loop kernel's (SeZMToLoops/MixingStack.cpp): sezm-ops.md 3.4.
constexpr double kCompeteSmoothing = 0.02;
constexpr double kCompeteNormEpsilon = 1e-7;
} // namespace

bool focusCompeteGradApplies(FocusCompeteGradOp op) {
  int64_t focus = op.getFocus();
  int64_t channels = channelsOf(op.getU());
  // Each pass of the warp spans one stream; the weight gradients (sums over
  // all edges) are left to the loop kernel.
  return focus > 1 && channels % (focus * kWarpSize) == 0 &&
         op.getWfcGrad().use_empty() &&
         (!op.getNormScaleGrad() || op.getNormScaleGrad().use_empty());
}

void emitFocusCompeteGrad(FocusCompeteGradOp op, KernelIO &io,
                          KernelConfigAttr config) {
  Emitter &em = io.emitter();
  Value grad = io.in(op.getGrad()), u = io.in(op.getU());
  Value wfc = io.in(op.getWfc());
  Value normScale = op.getNormScale() ? io.in(op.getNormScale()) : Value();
  Value acc = op.getAcc() ? io.in(op.getAcc()) : Value();
  auto uType = cast<RankedTensorType>(op.getU().getType());
  int64_t rows = uType.getDimSize(1), channels = uType.getDimSize(2);
  int64_t focus = op.getFocus(), width = channels / focus;
  int64_t passes = width / kWarpSize;
  Idx edges = em.dim(u, 0);
  Value uGrad = io.allocate(0, {edges, Idx(rows), Idx(channels)});
  em.launchKernel(
      config.getKernel().getValue(),
      {ceilDiv(edges, kWarpsPerBlock), Idx(1), Idx(1)},
      {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)}, {},
      [&](const LaunchIds &ids) {
        Idx e = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
        Idx lane = ids.thread[0];
        em.ifThen(e < edges, [&] {
          // The lane's channels of the l = 0 row, stream by stream: i is
          // the channel within its stream.
          auto channel = [&](int64_t f, int64_t p) {
            return Idx(f * width + p * kWarpSize) + lane;
          };
          auto within = [&](int64_t p) { return Idx(p * kWarpSize) + lane; };
          SmallVector<SmallVector<Num>> s(focus);
          SmallVector<Num> logits, inverseRms;
          for (int64_t f = 0; f < focus; ++f) {
            std::optional<Num> dot, squares;
            for (int64_t p = 0; p < passes; ++p) {
              Num value = em.load(u, {e, Idx(0), channel(f, p)});
              s[f].push_back(value);
              Num term = value * em.load(wfc, {within(p), Idx(f)});
              if (normScale)
                term = term * em.load(normScale, {Idx(f), within(p)});
              dot = dot ? *dot + term : term;
              if (normScale)
                squares = squares ? *squares + value * value : value * value;
            }
            Num logit = em.warpSum(*dot);
            if (normScale) {
              Num inv = Num(1.0) / sqrt(em.warpSum(*squares) /
                                            Num(static_cast<double>(width)) +
                                        Num(kCompeteNormEpsilon));
              inverseRms.push_back(inv);
              logit = logit * inv;
            }
            logits.push_back(logit);
          }
          Num shift = logits[0];
          for (Num logit : ArrayRef<Num>(logits).drop_front())
            shift = max(shift, logit);
          SmallVector<Num> weights;
          std::optional<Num> total;
          for (Num logit : logits) {
            weights.push_back(exp(logit - shift));
            total = total ? *total + weights.back() : weights.back();
          }
          std::optional<Num> mean;
          SmallVector<Num> probability, g;
          for (int64_t f = 0; f < focus; ++f) {
            probability.push_back(weights[f] / *total);
            g.push_back(em.load(grad, {e, Idx(f)}));
            Num term = probability[f] * g[f];
            mean = mean ? *mean + term : term;
          }
          auto storeRow = [&](Num value, Idx c) {
            std::array<Idx, 3> at{e, Idx(0), c};
            em.store(acc ? em.load(acc, at) + value : value, uGrad, at);
          };
          for (int64_t f = 0; f < focus; ++f) {
            Num dLogit =
                Num(1.0 - kCompeteSmoothing) * probability[f] * (g[f] - *mean);
            if (!normScale) {
              for (int64_t p = 0; p < passes; ++p)
                storeRow(dLogit * em.load(wfc, {within(p), Idx(f)}),
                         channel(f, p));
              continue;
            }
            // As the loop kernel: ds = inv * scale * dn - s * inv^3 / Cf * A,
            // A = sum_k dn_k * scale_k * s_k.
            Num inv = inverseRms[f];
            std::optional<Num> partial;
            for (int64_t p = 0; p < passes; ++p) {
              Num term = dLogit * em.load(wfc, {within(p), Idx(f)}) *
                         em.load(normScale, {Idx(f), within(p)}) * s[f][p];
              partial = partial ? *partial + term : term;
            }
            Num cubic = inv * inv * inv * em.warpSum(*partial) /
                        Num(static_cast<double>(width));
            for (int64_t p = 0; p < passes; ++p) {
              Num dn = dLogit * em.load(wfc, {within(p), Idx(f)});
              storeRow(inv * em.load(normScale, {Idx(f), within(p)}) * dn -
                           s[f][p] * cubic,
                       channel(f, p));
            }
          }
          // The rows the competition does not read: the addend, or zero.
          for (int64_t j = 1; j < rows; ++j)
            for (int64_t c0 = 0; c0 < channels; c0 += kWarpSize) {
              std::array<Idx, 3> at{e, Idx(j), lane + Idx(c0)};
              em.store(acc ? em.load(acc, at) : Num(0.0), uGrad, at);
            }
        });
      });
}

} // namespace mlir::sezm::microkernels
