//===- NodeActivations.cpp - CPU kernels of the node-feature GLU and norm -===//
//
// GLU: one thread per (node, channel of the value half): it reads its
// node's gate row and its column of gw, so that a warp reads consecutive
// channels. Each gate logit sums over the gate channels in order, on every
// backend. The equivariant RMS norm: one thread per node, its sums over the
// node's rows in order.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "KernelBuilder/NormMath.h"

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

namespace {

/// The packed rows of degree l: l^2 .. (l+1)^2 - 1.
std::pair<int64_t, int64_t> rowsOfDegree(int64_t l) {
  return {l * l, (l + 1) * (l + 1)};
}

/// sigmoid(g[n, 0, :] @ gw)[(l-1)*H + c]: the gate of channel c's rows of
/// degree l, with the gate half at channels H .. 2H-1 of x.
Num gateOf(Value x, Value gw, int64_t width, Idx n, int64_t l, Idx c) {
  Emitter &em = n.getEmitter();
  Num logit = em.sumRange(0, width, [&](Idx i) {
    return em.load(x, {n, 0, Idx(width) + i}) *
           em.load(gw, {i, Idx((l - 1) * width) + c});
  });
  return sigmoid(logit);
}
} // namespace

void sezm::emitKernel(GluOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value x = io.in(op.getX());
  Value gw = op.getGw() ? io.in(op.getGw()) : Value();
  int64_t lmax = op.getLmax(), width = staticDim(op.getResult(), 2);
  int64_t rows = (lmax + 1) * (lmax + 1);
  Idx nodes = em.dim(x, 0);
  Value out = io.allocate(0, {nodes, rows, width});
  em.parallelRange(0, nodes * Idx(width), [&](Idx flat) {
    Idx n = flat / Idx(width), c = flat % Idx(width);
    Num gate = em.load(x, {n, 0, Idx(width) + c});
    em.store(em.load(x, {n, 0, c}) * gate * sigmoid(gate), out, {n, 0, c});
    for (int64_t l = 1; l <= lmax; ++l) {
      Num s = gateOf(x, gw, width, n, l, c);
      auto [first, last] = rowsOfDegree(l);
      for (int64_t d = first; d < last; ++d)
        em.store(em.load(x, {n, Idx(d), c}) * s, out, {n, Idx(d), c});
    }
  });
}

void sezm::emitKernel(GluGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value grad = io.in(op.getGrad()), x = io.in(op.getX());
  Value gw = op.getGw() ? io.in(op.getGw()) : Value();
  int64_t lmax = op.getLmax(), width = staticDim(op.getGrad(), 2);
  int64_t rows = (lmax + 1) * (lmax + 1), gates = lmax * width;
  Idx nodes = em.dim(x, 0);
  Value xGrad = io.allocate(0, {nodes, rows, 2 * width});
  // d logit of every gate, which the gate row's second pass sums over.
  Value logitGrad =
      gates ? io.scratch({ShapedType::kDynamic, gates}, {nodes, Idx(gates)})
            : Value();
  em.parallelRange(0, nodes * Idx(width), [&](Idx flat) {
    Idx n = flat / Idx(width), c = flat % Idx(width);
    Num gate = em.load(x, {n, 0, Idx(width) + c});
    Num sig = sigmoid(gate);
    em.store(em.load(grad, {n, 0, c}) * gate * sig, xGrad, {n, 0, c});
    for (int64_t l = 1; l <= lmax; ++l) {
      Num s = gateOf(x, gw, width, n, l, c);
      auto [first, last] = rowsOfDegree(l);
      std::optional<Num> gateGrad;
      for (int64_t d = first; d < last; ++d) {
        Num g = em.load(grad, {n, Idx(d), c});
        em.store(g * s, xGrad, {n, Idx(d), c});
        em.store(Num(0.0), xGrad, {n, Idx(d), Idx(width) + c});
        Num term = g * em.load(x, {n, Idx(d), c});
        gateGrad = gateGrad ? *gateGrad + term : term;
      }
      em.store(*gateGrad * s * (Num(1.0) - s), logitGrad,
               {n, Idx((l - 1) * width) + c});
    }
  });
  // The gate half's l = 0 row: the silu path and every gate's d logit.
  em.parallelRange(0, nodes * Idx(width), [&](Idx flat) {
    Idx n = flat / Idx(width), i = flat % Idx(width);
    Num gate = em.load(x, {n, 0, Idx(width) + i});
    Num sig = sigmoid(gate);
    Num total = em.load(grad, {n, 0, i}) * em.load(x, {n, 0, i}) * sig *
                (Num(1.0) + gate * (Num(1.0) - sig));
    if (gates)
      total = total + em.sumRange(0, gates, [&](Idx k) {
        return em.load(logitGrad, {n, k}) * em.load(gw, {i, k});
      });
    em.store(total, xGrad, {n, 0, Idx(width) + i});
  });
}

namespace {
/// One node's statistics of an equivariant RMS norm: the l = 0 row's mean
/// and r = rsqrt(ms + eps) (sezm-ops.md 3.7).
struct NodeNorm {
  Num mean, r;
};

/// The flat (row, channel) position where degree l's rows start, l^2 C:
/// a node's rows of degree l are [firstOfDegree(l), firstOfDegree(l + 1)).
Idx firstOfDegree(int64_t l, int64_t channels) { return Idx(l * l * channels); }

NodeNorm nodeNorm(Value x, Idx n, int64_t lmax, int64_t channels, double eps,
                  ArrayRef<double> weight) {
  Emitter &em = n.getEmitter();
  Idx width(channels);
  Num mean = em.sumRange(0, width, [&](Idx c) {
    return em.load(x, {n, 0, c});
  }) / Num(static_cast<double>(channels));
  Num ms = em.sumRange(0, width, [&](Idx c) {
    Num u = em.load(x, {n, 0, c}) - mean;
    return u * u;
  }) * Num(weight[0]);
  for (int64_t l = 1; l <= lmax; ++l) {
    Num rows = em.sumRange(firstOfDegree(l, channels),
                           firstOfDegree(l + 1, channels), [&](Idx k) {
                             Num v = em.load(x, {n, k / width, k % width});
                             return v * v;
                           });
    ms = ms + rows * Num(weight[l]);
  }
  return {mean, Num(1.0) / sqrt(ms + Num(eps))};
}
} // namespace

void sezm::emitKernel(EquivariantRmsNormOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value x = io.in(op.getX()), scale = io.in(op.getScale());
  Value bias = io.in(op.getBias());
  int64_t lmax = op.getLmax(), channels = staticDim(op.getX(), 2);
  int64_t rows = (lmax + 1) * (lmax + 1);
  double eps = op.getEps().convertToDouble();
  SmallVector<double> weight = meanSquareWeights(op, channels);
  Idx nodes = em.dim(x, 0), width(channels);
  Value out = io.allocate(0, {nodes, rows, channels});
  em.parallelRange(0, nodes, [&](Idx n) {
    NodeNorm norm = nodeNorm(x, n, lmax, channels, eps, weight);
    em.forRange(0, width, [&](Idx c) {
      Num u = em.load(x, {n, 0, c}) - norm.mean;
      em.store(u * norm.r * em.load(scale, {0, c}) + em.load(bias, {c}), out,
               {n, 0, c});
    });
    for (int64_t l = 1; l <= lmax; ++l)
      em.forRange(firstOfDegree(l, channels), firstOfDegree(l + 1, channels),
                  [&](Idx k) {
                    Idx d = k / width, c = k % width;
                    em.store(em.load(x, {n, d, c}) * norm.r *
                                 em.load(scale, {Idx(l), c}),
                             out, {n, d, c});
                  });
  });
}

void sezm::emitKernel(EquivariantRmsNormGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value grad = io.in(op.getGrad()), x = io.in(op.getX());
  Value scale = io.in(op.getScale());
  int64_t lmax = op.getLmax(), channels = staticDim(op.getX(), 2);
  int64_t rows = (lmax + 1) * (lmax + 1);
  double eps = op.getEps().convertToDouble();
  SmallVector<double> weight = meanSquareWeights(op, channels);
  Idx nodes = em.dim(x, 0), width(channels);
  Value out = io.allocate(0, {nodes, rows, channels});
  em.parallelRange(0, nodes, [&](Idx n) {
    NodeNorm norm = nodeNorm(x, n, lmax, channels, eps, weight);
    auto u0 = [&](Idx c) { return em.load(x, {n, 0, c}) - norm.mean; };
    // A = sum G scale u over every row.
    Num a = em.sumRange(0, width, [&](Idx c) {
      return em.load(grad, {n, 0, c}) * em.load(scale, {0, c}) * u0(c);
    });
    for (int64_t l = 1; l <= lmax; ++l)
      a = a + em.sumRange(firstOfDegree(l, channels),
                          firstOfDegree(l + 1, channels), [&](Idx k) {
                            Idx d = k / width, c = k % width;
                            return em.load(grad, {n, d, c}) *
                                   em.load(scale, {Idx(l), c}) *
                                   em.load(x, {n, d, c});
                          });
    Num r3a = norm.r * norm.r * norm.r * a;
    auto du0 = [&](Idx c) {
      return norm.r * em.load(grad, {n, 0, c}) * em.load(scale, {0, c}) -
             r3a * Num(weight[0]) * u0(c);
    };
    Num meanDu0 =
        em.sumRange(0, width, du0) / Num(static_cast<double>(channels));
    em.forRange(0, width, [&](Idx c) {
      em.store(du0(c) - meanDu0, out, {n, 0, c});
    });
    for (int64_t l = 1; l <= lmax; ++l) {
      Num w = Num(weight[l]);
      em.forRange(firstOfDegree(l, channels), firstOfDegree(l + 1, channels),
                  [&](Idx k) {
                    Idx d = k / width, c = k % width;
                    em.store(norm.r * em.load(grad, {n, d, c}) *
                                     em.load(scale, {Idx(l), c}) -
                                 r3a * w * em.load(x, {n, d, c}),
                             out, {n, d, c});
                  });
    }
  });
}

namespace {
/// rsqrt(mean_c x[i, c]^2 + eps) of row i.
Num rowInverseRms(Value x, Idx i, int64_t channels, double eps) {
  Emitter &em = i.getEmitter();
  Num ms = em.sumRange(0, Idx(channels), [&](Idx c) {
    Num v = em.load(x, {i, c});
    return v * v;
  }) / Num(static_cast<double>(channels));
  return Num(1.0) / sqrt(ms + Num(eps));
}
} // namespace

void sezm::emitKernel(RmsNormOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value x = io.in(op.getX()), scale = io.in(op.getScale());
  int64_t channels = staticDim(op.getX(), 1);
  double eps = op.getEps().convertToDouble();
  Idx rows = em.dim(x, 0);
  Value out = io.allocate(0, {rows, channels});
  em.parallelRange(0, rows, [&](Idx i) {
    Num r = rowInverseRms(x, i, channels, eps);
    em.forRange(0, Idx(channels), [&](Idx c) {
      em.store(em.load(x, {i, c}) * r * em.load(scale, {c}), out, {i, c});
    });
  });
}

void sezm::emitKernel(RmsNormGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value grad = io.in(op.getGrad()), x = io.in(op.getX());
  Value scale = io.in(op.getScale());
  int64_t channels = staticDim(op.getX(), 1);
  double eps = op.getEps().convertToDouble();
  Idx rows = em.dim(x, 0);
  Value out = io.allocate(0, {rows, channels});
  em.parallelRange(0, rows, [&](Idx i) {
    Num r = rowInverseRms(x, i, channels, eps);
    Num a = em.sumRange(0, Idx(channels), [&](Idx c) {
      return em.load(grad, {i, c}) * em.load(scale, {c}) * em.load(x, {i, c});
    });
    Num r3a = r * r * r * a / Num(static_cast<double>(channels));
    em.forRange(0, Idx(channels), [&](Idx c) {
      em.store(r * em.load(grad, {i, c}) * em.load(scale, {c}) -
                   r3a * em.load(x, {i, c}),
               out, {i, c});
    });
  });
}
