//===- Aggregation.cpp - CPU kernels of aggregation into atoms ------------===//
//
// One loop over destination nodes, each walking its CSR segment: the
// per-edge message (the rotate-back of its edge-frame rows) is recomputed
// in registers and never stored.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "KernelBuilder/SO2Math.h"

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

namespace {
/// The rotate-back message of edge e, channel c, with its rescale.
std::vector<Num> message(const EdgeRotation &rotation, Value xl,
                         SO2Layout layout, Idx e, Idx c) {
  std::vector<Num> packed =
      rotation.fromEdgeFrame(loadRows(xl, e, layout.reducedRows(), c));
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

/// Calls body(t, e) for each edge of node n's segment, in CSR order.
void forEachSegmentEdge(Value order, Value rowptr, Idx n,
                        llvm::function_ref<void(Idx, Idx)> body) {
  forRange(loadIndex(rowptr, {n}), loadIndex(rowptr, {n + 1}),
           [&](Idx t) { body(t, loadIndex(order, {t})); });
}

/// The rotate_back_grad of one edge for the gradient rows `g` of each
/// channel (given by `rows`): stores xl_grad and returns nothing; the
/// Wigner-D gradient sums are returned per kept entry along with the extra
/// per-channel sums `extra` produces.
SmallVector<Num>
rotateBackGradient(const EdgeRotation &rotation, SO2Layout layout, Value xl,
                   Value xlGrad, Idx e, int64_t channels, int64_t numExtra,
                   llvm::function_ref<std::vector<Num>(Idx c)> rows,
                   llvm::function_ref<SmallVector<Num>(Idx c)> extra) {
  SmallVector<Num> init(rotation.numEntries() + numExtra, Num(0.0));
  return sumRange(0, channels, init, [&](Idx c) {
    std::vector<Num> g = rows(c);
    for (auto [d, value] : llvm::enumerate(g)) {
      double factor = rotateBackRescale(d);
      if (factor != 1.0)
        value = Num(factor) * value;
    }
    std::vector<Num> in = loadRows(xl, e, layout.reducedRows(), c);
    storeRows(rotation.toEdgeFrame(g), xlGrad, e, c);
    SmallVector<Num> terms;
    rotation.forEachEntry(
        [&](int64_t j, int64_t d) { terms.push_back(in[j] * g[d]); });
    llvm::append_range(terms, extra(c));
    return terms;
  });
}

} // namespace

void sezm::emitKernel(EnvelopeAggregateOp op, KernelIO &io) {
  SO2Layout layout = layoutOf(op);
  Value xl = io.in(op.getXl()), wigner = io.in(op.getWigner());
  Value env = io.in(op.getEnv()), norm = io.in(op.getInvSqrtDeg());
  Value order = io.in(op.getDstOrder()), rowptr = io.in(op.getDstRowptr());
  int64_t channels = staticDim(op.getXl(), 2), rows = layout.packedRows();
  Idx nodes = dim(rowptr, 0) - 1;
  Value out = io.allocate(0, {nodes, rows, channels});
  // One iteration per (node, channel), its rows summed in registers over
  // the node's segment in CSR order: N*C threads on a GPU, not N.
  parallelRange(0, nodes * Idx(channels), [&](Idx i) {
    Idx n = i / Idx(channels), c = i % Idx(channels);
    SmallVector<Num> init(rows, Num(0.0));
    SmallVector<Num> sums = sumRange(
        loadIndex(rowptr, {n}), loadIndex(rowptr, {n + 1}), init, [&](Idx t) {
          Idx e = loadIndex(order, {t});
          EdgeRotation rotation(layout, wigner, e);
          Num weight = load(env, {e});
          SmallVector<Num> terms;
          for (Num value : message(rotation, xl, layout, e, c))
            terms.push_back(weight * value);
          return terms;
        });
    Num scale = load(norm, {n});
    for (int64_t d = 0; d < rows; ++d)
      store(scale * sums[d], out, {n, Idx(d), c});
  });
}

void sezm::emitKernel(EnvelopeAggregateGradOp op, KernelIO &io) {
  SO2Layout layout = layoutOf(op);
  Value grad = io.in(op.getGrad()), xl = io.in(op.getXl());
  Value wigner = io.in(op.getWigner()), env = io.in(op.getEnv());
  Value norm = io.in(op.getInvSqrtDeg());
  Value order = io.in(op.getDstOrder()), rowptr = io.in(op.getDstRowptr());
  int64_t channels = staticDim(op.getXl(), 2), rows = layout.packedRows();
  Idx nodes = dim(rowptr, 0) - 1, edges = dim(xl, 0);
  Value xlGrad = io.allocate(0, {edges, layout.reducedRows(), channels});
  Value wignerGrad = allocateEdgesLike(io, 1, op.getWigner(), edges);
  Value envGrad = io.allocate(2, {edges});
  Value normGrad = io.allocate(3, {nodes});
  // Edges in no segment receive no gradient.
  fillZero(xlGrad);
  fillZero(wignerGrad);
  fillZero(envGrad);
  // One iteration per edge (its position t in the CSR, its node found by
  // bisection): E threads on a GPU, not N. Each stores its term of its
  // node's norm gradient, which a second loop sums in CSR order.
  Value normTerms = io.scratch({ShapedType::kDynamic}, {edges});
  // The bound is the edge count known on the host (on a GPU rowptr lives in
  // device memory); rowptr[N] = E by the CSR contract, and a position past
  // rowptr[N] does nothing.
  parallelRange(0, edges, [&](Idx t) {
    ifThen(t < loadIndex(rowptr, {nodes}), [&] {
      Idx n = segmentOf(rowptr, nodes, t), e = loadIndex(order, {t});
      Num scale = load(norm, {n});
      EdgeRotation rotation(layout, wigner, e);
      Num weight = load(env, {e});
      // g_e = inv_sqrt_deg[n] * env[e] * grad[n]; the extra sum is
      // <grad[n], message_e>.
      SmallVector<Num> sums = rotateBackGradient(
          rotation, layout, xl, xlGrad, e, channels, /*numExtra=*/1,
          [&](Idx c) {
            std::vector<Num> g = loadRows(grad, n, rows, c);
            for (Num &value : g)
              value = scale * weight * value;
            return g;
          },
          [&](Idx c) {
            std::vector<Num> msg = message(rotation, xl, layout, e, c);
            std::vector<Num> g = loadRows(grad, n, rows, c);
            SmallVector<Num> products;
            for (int64_t d = 0; d < rows; ++d)
              products.push_back(g[d] * msg[d]);
            return SmallVector<Num>{total(products)};
          });
      rotation.storeGradient(ArrayRef<Num>(sums).drop_back(), wignerGrad, e);
      Num dot = sums.back();
      store(scale * dot, envGrad, {e});
      store(weight * dot, normTerms, {e});
    });
  });
  parallelRange(0, nodes, [&](Idx n) {
    store(sumRange(
              loadIndex(rowptr, {n}), loadIndex(rowptr, {n + 1}),
              [&](Idx t) { return load(normTerms, {loadIndex(order, {t})}); }),
          normGrad, {n});
  });
}

namespace {
/// The attention of one destination node for stream (f, h): the log of the
/// null mass, the shift, and the shifted partition sum; att_e follows.
struct Attention {
  Num logNull, shift, partition;
  Num logMass(Value logit, Value env, Idx e, int64_t f, int64_t h) const {
    Num w = load(env, {e});
    return Num(2.0) * log(w) + load(logit, {e, f, h});
  }
  Num weight(Value logit, Value env, Idx e, int64_t f, int64_t h) const {
    return exp(logMass(logit, env, e, f, h) - shift) / partition;
  }
};

/// softplus(x) + 1e-7, evaluated without overflow.
Num nullMass(Num x) {
  return max(x, Num(0.0)) + log(Num(1.0) + exp(-max(x, -x))) + Num(1e-7);
}

Attention attentionOf(Value logit, Value env, Value nullLogit, Value order,
                      Value rowptr, Idx n, int64_t f, int64_t h) {
  Attention a{log(nullMass(load(nullLogit, {f, h}))), Num(0.0), Num(0.0)};
  Idx begin = loadIndex(rowptr, {n}), end = loadIndex(rowptr, {n + 1});
  a.shift = maxRange(begin, end, a.logNull, [&](Idx t) {
    return a.logMass(logit, env, loadIndex(order, {t}), f, h);
  });
  a.partition =
      exp(a.logNull - a.shift) + sumRange(begin, end, [&](Idx t) {
        return exp(a.logMass(logit, env, loadIndex(order, {t}), f, h) -
                   a.shift);
      });
  return a;
}

/// The channels of head (f, h): f*Cf + h*(Cf/H) + ch.
Idx headChannel(int64_t f, int64_t h, int64_t width, int64_t headWidth,
                Idx ch) {
  return Idx(f * width + h * headWidth) + ch;
}
} // namespace

void sezm::emitKernel(AttentionAggregateOp op, KernelIO &io) {
  SO2Layout layout = layoutOf(op);
  Value xl = io.in(op.getXl()), wigner = io.in(op.getWigner());
  Value logit = io.in(op.getLogit()), env = io.in(op.getEnv());
  Value nullLogit = io.in(op.getNullLogit());
  Value order = io.in(op.getDstOrder()), rowptr = io.in(op.getDstRowptr());
  int64_t channels = staticDim(op.getXl(), 2), rows = layout.packedRows();
  int64_t focus = staticDim(op.getLogit(), 1),
          heads = staticDim(op.getLogit(), 2);
  int64_t width = channels / focus, headWidth = width / heads;
  Idx nodes = dim(rowptr, 0) - 1;
  Value out = io.allocate(0, {nodes, rows, channels});
  fillZero(out);
  parallelRange(0, nodes, [&](Idx n) {
    for (int64_t f = 0; f < focus; ++f) {
      for (int64_t h = 0; h < heads; ++h) {
        Attention a =
            attentionOf(logit, env, nullLogit, order, rowptr, n, f, h);
        forEachSegmentEdge(order, rowptr, n, [&](Idx, Idx e) {
          EdgeRotation rotation(layout, wigner, e);
          Num att = a.weight(logit, env, e, f, h);
          forRange(0, headWidth, [&](Idx ch) {
            Idx c = headChannel(f, h, width, headWidth, ch);
            for (auto [d, value] :
                 llvm::enumerate(message(rotation, xl, layout, e, c)))
              addTo(att * value, out, {n, Idx(static_cast<int64_t>(d)), c});
          });
        });
      }
    }
  });
}

void sezm::emitKernel(AttentionAggregateGradOp op, KernelIO &io) {
  SO2Layout layout = layoutOf(op);
  Value grad = io.in(op.getGrad()), xl = io.in(op.getXl());
  Value wigner = io.in(op.getWigner()), logit = io.in(op.getLogit());
  Value env = io.in(op.getEnv()), nullLogit = io.in(op.getNullLogit());
  Value order = io.in(op.getDstOrder()), rowptr = io.in(op.getDstRowptr());
  int64_t channels = staticDim(op.getXl(), 2), rows = layout.packedRows();
  int64_t focus = staticDim(op.getLogit(), 1),
          heads = staticDim(op.getLogit(), 2);
  int64_t width = channels / focus, headWidth = width / heads;
  Idx nodes = dim(rowptr, 0) - 1, edges = dim(xl, 0);
  Value xlGrad = io.allocate(0, {edges, layout.reducedRows(), channels});
  Value wignerGrad = allocateEdgesLike(io, 1, op.getWigner(), edges);
  Value logitGrad = io.allocate(2, {edges, focus, heads});
  Value envGrad = io.allocate(3, {edges});
  Value nullGrad = io.allocate(4, {focus, heads});
  fillZero(xlGrad);
  fillZero(wignerGrad);
  fillZero(logitGrad);
  fillZero(envGrad);
  // d att[e, f, h] = <grad[dst], message_e> over the head's channels.
  Value attGrad =
      io.scratch({ShapedType::kDynamic, focus, heads}, {edges, focus, heads});
  // Each node's share of d null_logit, summed over nodes in order below.
  Value nullShares =
      io.scratch({ShapedType::kDynamic, focus, heads}, {nodes, focus, heads});
  parallelRange(0, nodes, [&](Idx n) {
    for (int64_t f = 0; f < focus; ++f) {
      for (int64_t h = 0; h < heads; ++h) {
        Attention a =
            attentionOf(logit, env, nullLogit, order, rowptr, n, f, h);
        // S = sum_e att_e * d att_e.
        Num weighted = sumRange(
            loadIndex(rowptr, {n}), loadIndex(rowptr, {n + 1}), [&](Idx t) {
              Idx e = loadIndex(order, {t});
              EdgeRotation rotation(layout, wigner, e);
              Num dAtt = sumRange(0, headWidth, [&](Idx ch) {
                Idx c = headChannel(f, h, width, headWidth, ch);
                std::vector<Num> msg = message(rotation, xl, layout, e, c);
                SmallVector<Num> products;
                for (int64_t d = 0; d < rows; ++d)
                  products.push_back(load(grad, {n, d, c}) * msg[d]);
                return total(products);
              });
              store(dAtt, attGrad, {e, f, h});
              return a.weight(logit, env, e, f, h) * dAtt;
            });
        forEachSegmentEdge(order, rowptr, n, [&](Idx, Idx e) {
          Num att = a.weight(logit, env, e, f, h);
          Num centered = load(attGrad, {e, f, h}) - weighted;
          store(att * centered, logitGrad, {e, f, h});
          // d mass / d env = 2 mass / env; masked edges (env = 0) get none.
          Num w = load(env, {e});
          Num envSlope = select(Num(0.0) < w, Num(2.0) * att / w, Num(0.0));
          addTo(envSlope * centered, envGrad, {e});
          EdgeRotation rotation(layout, wigner, e);
          // The head's channels of rotate_back_grad(att * grad[n]).
          SmallVector<Num> init(rotation.numEntries(), Num(0.0));
          SmallVector<Num> sums = sumRange(0, headWidth, init, [&](Idx ch) {
            Idx c = headChannel(f, h, width, headWidth, ch);
            std::vector<Num> g = loadRows(grad, n, rows, c);
            for (auto [d, value] : llvm::enumerate(g))
              value = Num(rotateBackRescale(d)) * att * value;
            std::vector<Num> in = loadRows(xl, e, layout.reducedRows(), c);
            storeRows(rotation.toEdgeFrame(g), xlGrad, e, c);
            SmallVector<Num> terms;
            rotation.forEachEntry(
                [&](int64_t j, int64_t d) { terms.push_back(in[j] * g[d]); });
            return terms;
          });
          rotation.addGradient(sums, wignerGrad, e);
        });
        // d null = -S / Z; null = softplus(z) + 1e-7, d null / dz = sigmoid(z).
        Num z = load(nullLogit, {f, h});
        Num nullShare = exp(a.logNull - a.shift) / a.partition;
        Num sigmoidZ = Num(1.0) / (Num(1.0) + exp(-z));
        store(-weighted * nullShare / exp(a.logNull) * sigmoidZ, nullShares,
              {n, f, h});
      }
    }
  });
  parallelRange(0, focus * heads, [&](Idx fh) {
    Idx f = fh / Idx(heads), h = fh % Idx(heads);
    store(sumRange(0, nodes,
                   [&](Idx n) {
                     return load(nullShares, {n, f, h});
                   }),
          nullGrad, {f, h});
  });
}
