//===- Rotation.cpp - CPU kernels of rotation and radial mixing -----------===//
//
// One loop over edges, the kept Wigner-D entries and the degree kernel
// loaded once per edge, then one loop over channels with the rows unrolled.
// Per-edge reductions over channels (Wigner-D and kernel gradients) are
// carried through that channel loop.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "KernelBuilder/SO2Math.h"

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

namespace {
/// The radial mixing of one op: rank >= 1 with kc and cb, or mixer-free.
class Mixer {
public:
  Mixer(SO2Layout layout, int64_t rank, Value kc, Value cb)
      : layout(layout), rank(rank), kc(kc), cb(cb) {}

  /// Per-edge state: the loaded degree kernel for rank >= 1.
  struct Edge {
    Idx e;
    std::optional<DegreeKernel> kernel;
  };
  Edge atEdge(Idx e) const {
    Edge edge{e, std::nullopt};
    if (rank > 0)
      edge.kernel.emplace(layout, rank, kc, cb, e);
    return edge;
  }

  /// Per-channel state: Keff for rank >= 1, the radial rows for rank 0.
  std::vector<Num> atChannel(const Edge &edge, Idx c) const {
    if (edge.kernel)
      return edge.kernel->effective(c);
    return loadRows(kc, edge.e, layout.lmax + 1, c);
  }

  std::vector<Num> mix(const Edge &edge, ArrayRef<Num> channel,
                       ArrayRef<Num> xl) const {
    if (edge.kernel)
      return edge.kernel->mix(channel, xl);
    return mixFree(layout, channel, xl);
  }

  /// The gradient of mix with respect to its input rows.
  std::vector<Num> mixTransposed(const Edge &edge, ArrayRef<Num> channel,
                                 ArrayRef<Num> g) const {
    if (edge.kernel)
      return edge.kernel->mixTransposed(channel, g);
    return mixFree(layout, channel, g);
  }

  /// Number of per-edge kc gradient sums carried over channels (rank >= 1).
  int64_t numKernelSums() const {
    return rank > 0 ? layout.compactKernelSize() * rank : 0;
  }

  /// The per-channel terms of the kc gradient sums (rank >= 1).
  std::vector<Num> kernelGradTerms(const Edge &edge, Idx c, ArrayRef<Num> g,
                                   ArrayRef<Num> xl) const {
    std::vector<Num> products = edge.kernel->kernelProducts(g, xl);
    std::vector<Num> terms;
    for (Num product : products)
      for (int64_t r = 0; r < rank; ++r)
        terms.push_back(load(cb, {Idx(r), c}) * product);
    return terms;
  }

  /// Stores the kc gradient of one edge: the channel sums for rank >= 1.
  void storeKernelGrad(ArrayRef<Num> sums, Value kcGrad, Idx e) const {
    for (auto [k, value] : llvm::enumerate(sums))
      store(value, kcGrad, {e, Idx(static_cast<int64_t>(k))});
  }

  /// Stores the kc gradient of one channel for rank 0:
  /// d radial[l, c] = sum_{deg(j) = l} g[j] * xl[j].
  void storeFreeKernelGrad(ArrayRef<Num> g, ArrayRef<Num> xl, Value kcGrad,
                           Idx e, Idx c) const {
    std::vector<std::optional<Num>> perDegree(layout.lmax + 1);
    for (int64_t j = 0; j < layout.reducedRows(); ++j) {
      Num term = g[j] * xl[j];
      std::optional<Num> &sum = perDegree[layout.degreeOfReduced(j)];
      sum = sum ? *sum + term : term;
    }
    for (auto [l, sum] : llvm::enumerate(perDegree))
      store(*sum, kcGrad, {e, Idx(static_cast<int64_t>(l)), c});
  }

  /// cb_grad[r, c] = sum_e sum_k kc[e, k*R + r] * products_k(e, c), summed
  /// over edges in order; `rows` gives (g, xl) of edge e and channel c.
  void emitBasisGrad(
      Value cbGrad, Idx edges, int64_t channels,
      llvm::function_ref<std::pair<std::vector<Num>, std::vector<Num>>(Idx, Idx)>
          rows) const {
    parallelRange(0, channels, [&](Idx c) {
      SmallVector<Num> init(rank, Num(0.0));
      SmallVector<Num> sums = sumRange(0, edges, init, [&](Idx e) {
        auto [g, xl] = rows(e, c);
        DegreeKernel kernel(layout, rank, kc, cb, e);
        std::vector<Num> products = kernel.kernelProducts(g, xl);
        SmallVector<Num> terms;
        for (int64_t r = 0; r < rank; ++r) {
          std::optional<Num> term;
          for (auto [k, product] : llvm::enumerate(products)) {
            Num part = kernel.coefficient(k, r) * product;
            term = term ? *term + part : part;
          }
          terms.push_back(*term);
        }
        return terms;
      });
      for (int64_t r = 0; r < rank; ++r)
        store(sums[r], cbGrad, {Idx(r), c});
    });
  }

private:
  SO2Layout layout;
  int64_t rank;
  Value kc, cb;
};

Value optionalBuffer(KernelIO &io, Value operand) {
  return operand ? io.in(operand) : Value();
}

/// Gathers x[s, :, c].
std::vector<Num> gatherRows(Value x, Idx s, SO2Layout layout, Idx c) {
  return loadRows(x, s, layout.packedRows(), c);
}

/// Stores the Wigner-D gradient sums of one edge at the kept entries.
void storeWignerGrad(const EdgeRotation &rotation, SO2Layout layout,
                     ArrayRef<Num> sums, Value wignerGrad, Idx e) {
  int64_t index = 0;
  rotation.forEachEntry([&](int64_t j, int64_t d) {
    store(sums[index++], wignerGrad,
          {e, Idx(layout.packedRowOfReduced(j)), Idx(d)});
  });
}

/// The per-channel terms of the Wigner-D gradient: g[j] * x[d] at each kept
/// entry (j, d).
void appendWignerGradTerms(const EdgeRotation &rotation, ArrayRef<Num> gl,
                           ArrayRef<Num> packed, SmallVectorImpl<Num> &terms) {
  rotation.forEachEntry(
      [&](int64_t j, int64_t d) { terms.push_back(gl[j] * packed[d]); });
}

std::vector<Num> rescaled(ArrayRef<Num> packed) {
  std::vector<Num> out;
  for (auto [d, value] : llvm::enumerate(packed)) {
    double factor = rotateBackRescale(d);
    out.push_back(factor == 1.0 ? value : Num(factor) * value);
  }
  return out;
}
} // namespace

void sezm::emitKernel(RotateOp op, KernelIO &io) {
  SO2Layout layout = layoutOf(op);
  Value x = io.in(op.getX()), src = io.in(op.getSrc());
  Value wigner = io.in(op.getWigner());
  int64_t channels = staticDim(op.getX(), 2);
  Idx edges = dim(src, 0);
  Value out = io.allocate(0, {edges, layout.reducedRows(), channels});
  parallelRange(0, edges, [&](Idx e) {
    Idx s = loadIndex(src, {e});
    EdgeRotation rotation(layout, wigner, e);
    forRange(0, channels, [&](Idx c) {
      storeRows(rotation.toEdgeFrame(gatherRows(x, s, layout, c)), out, e, c);
    });
  });
}

void sezm::emitKernel(RotateGradOp op, KernelIO &io) {
  SO2Layout layout = layoutOf(op);
  Value grad = io.in(op.getGrad()), x = io.in(op.getX());
  Value src = io.in(op.getSrc()), wigner = io.in(op.getWigner());
  int64_t channels = staticDim(op.getX(), 2), rows = layout.packedRows();
  Idx edges = dim(src, 0);
  Value nodeGrad = io.allocate(0, {edges, rows, channels});
  Value wignerGrad = io.allocate(1, {edges, rows, rows});
  fillZero(wignerGrad);
  parallelRange(0, edges, [&](Idx e) {
    Idx s = loadIndex(src, {e});
    EdgeRotation rotation(layout, wigner, e);
    SmallVector<Num> init(rotation.numEntries(), Num(0.0));
    SmallVector<Num> sums = sumRange(0, channels, init, [&](Idx c) {
      std::vector<Num> g = loadRows(grad, e, layout.reducedRows(), c);
      storeRows(rotation.fromEdgeFrame(g), nodeGrad, e, c);
      SmallVector<Num> terms;
      appendWignerGradTerms(rotation, g, gatherRows(x, s, layout, c), terms);
      return terms;
    });
    storeWignerGrad(rotation, layout, sums, wignerGrad, e);
  });
}

void sezm::emitKernel(MixOp op, KernelIO &io) {
  SO2Layout layout = layoutOf(op);
  Value xl = io.in(op.getXl());
  Mixer mixer(layout, op.getRank(), io.in(op.getKc()),
              optionalBuffer(io, op.getCb()));
  int64_t channels = staticDim(op.getXl(), 2);
  Idx edges = dim(xl, 0);
  Value out = io.allocate(0, {edges, layout.reducedRows(), channels});
  parallelRange(0, edges, [&](Idx e) {
    Mixer::Edge edge = mixer.atEdge(e);
    forRange(0, channels, [&](Idx c) {
      std::vector<Num> rows = loadRows(xl, e, layout.reducedRows(), c);
      storeRows(mixer.mix(edge, mixer.atChannel(edge, c), rows), out, e, c);
    });
  });
}

void sezm::emitKernel(MixGradOp op, KernelIO &io) {
  SO2Layout layout = layoutOf(op);
  Value grad = io.in(op.getGrad()), xl = io.in(op.getXl());
  Value kc = io.in(op.getKc()), cb = optionalBuffer(io, op.getCb());
  Mixer mixer(layout, op.getRank(), kc, cb);
  int64_t channels = staticDim(op.getXl(), 2), rows = layout.reducedRows();
  Idx edges = dim(xl, 0);
  Value xlGrad = io.allocate(0, {edges, rows, channels});
  Value kcGrad =
      op.getRank() > 0
          ? io.allocate(1, {edges, staticDim(op.getKc(), 1)})
          : io.allocate(1, {edges, layout.lmax + 1, channels});
  parallelRange(0, edges, [&](Idx e) {
    Mixer::Edge edge = mixer.atEdge(e);
    SmallVector<Num> init(mixer.numKernelSums(), Num(0.0));
    SmallVector<Num> sums = sumRange(0, channels, init, [&](Idx c) {
      std::vector<Num> g = loadRows(grad, e, rows, c);
      std::vector<Num> in = loadRows(xl, e, rows, c);
      std::vector<Num> channel = mixer.atChannel(edge, c);
      storeRows(mixer.mixTransposed(edge, channel, g), xlGrad, e, c);
      if (op.getRank() == 0) {
        mixer.storeFreeKernelGrad(g, in, kcGrad, e, c);
        return SmallVector<Num>();
      }
      std::vector<Num> terms = mixer.kernelGradTerms(edge, c, g, in);
      return SmallVector<Num>(terms.begin(), terms.end());
    });
    if (op.getRank() > 0)
      mixer.storeKernelGrad(sums, kcGrad, e);
  });
  if (op.getCbGrad()) {
    Value cbGrad = io.allocate(2, {op.getRank(), channels});
    mixer.emitBasisGrad(cbGrad, edges, channels, [&](Idx e, Idx c) {
      return std::make_pair(loadRows(grad, e, rows, c),
                            loadRows(xl, e, rows, c));
    });
  }
}

void sezm::emitKernel(RotateMixOp op, KernelIO &io) {
  SO2Layout layout = layoutOf(op);
  Value x = io.in(op.getX()), src = io.in(op.getSrc());
  Value wigner = io.in(op.getWigner());
  Mixer mixer(layout, op.getRank(), io.in(op.getKc()),
              optionalBuffer(io, op.getCb()));
  int64_t channels = staticDim(op.getX(), 2);
  Idx edges = dim(src, 0);
  Value out = io.allocate(0, {edges, layout.reducedRows(), channels});
  parallelRange(0, edges, [&](Idx e) {
    Idx s = loadIndex(src, {e});
    EdgeRotation rotation(layout, wigner, e);
    Mixer::Edge edge = mixer.atEdge(e);
    forRange(0, channels, [&](Idx c) {
      std::vector<Num> xl = rotation.toEdgeFrame(gatherRows(x, s, layout, c));
      storeRows(mixer.mix(edge, mixer.atChannel(edge, c), xl), out, e, c);
    });
  });
}

namespace {
/// The shared body of rotate_mix_grad and rotate_mix_grad_reduce: for each
/// edge e (given by `forEachEdge`), recomputes the rotated rows, hands the
/// node gradient rows of each channel to `nodeGradSink`, and stores the
/// Wigner-D and kernel gradients.
template <typename OpTy>
void emitRotateMixBackward(
    OpTy op, KernelIO &io, Value wignerGrad, Value kcGrad,
    llvm::function_ref<void(llvm::function_ref<void(Idx)>)> forEachEdge,
    llvm::function_ref<void(Idx e, Idx c, ArrayRef<Num>)> nodeGradSink) {
  SO2Layout layout = layoutOf(op);
  Value grad = io.in(op.getGrad()), x = io.in(op.getX());
  Value src = io.in(op.getSrc()), wigner = io.in(op.getWigner());
  Mixer mixer(layout, op.getRank(), io.in(op.getKc()),
              optionalBuffer(io, op.getCb()));
  int64_t channels = staticDim(op.getX(), 2), rows = layout.reducedRows();
  forEachEdge([&](Idx e) {
    Idx s = loadIndex(src, {e});
    EdgeRotation rotation(layout, wigner, e);
    Mixer::Edge edge = mixer.atEdge(e);
    int64_t wignerSums = rotation.numEntries();
    SmallVector<Num> init(wignerSums + mixer.numKernelSums(), Num(0.0));
    SmallVector<Num> sums = sumRange(0, channels, init, [&](Idx c) {
      std::vector<Num> packed = gatherRows(x, s, layout, c);
      std::vector<Num> xl = rotation.toEdgeFrame(packed);
      std::vector<Num> g = loadRows(grad, e, rows, c);
      std::vector<Num> channel = mixer.atChannel(edge, c);
      std::vector<Num> gl = mixer.mixTransposed(edge, channel, g);
      nodeGradSink(e, c, rotation.fromEdgeFrame(gl));
      SmallVector<Num> terms;
      appendWignerGradTerms(rotation, gl, packed, terms);
      if (op.getRank() == 0)
        mixer.storeFreeKernelGrad(g, xl, kcGrad, e, c);
      else
        llvm::append_range(terms, mixer.kernelGradTerms(edge, c, g, xl));
      return terms;
    });
    ArrayRef<Num> all(sums);
    storeWignerGrad(rotation, layout, all.take_front(wignerSums), wignerGrad,
                    e);
    if (op.getRank() > 0)
      mixer.storeKernelGrad(all.drop_front(wignerSums), kcGrad, e);
  });
}

Value allocateKernelGrad(KernelIO &io, unsigned index, Value kc, Idx edges) {
  auto type = cast<RankedTensorType>(kc.getType());
  SmallVector<Idx> extents{edges};
  for (int64_t size : type.getShape().drop_front())
    extents.push_back(Idx(size));
  return io.allocate(index, extents);
}
} // namespace

void sezm::emitKernel(RotateMixGradOp op, KernelIO &io) {
  SO2Layout layout = layoutOf(op);
  int64_t channels = staticDim(op.getX(), 2), rows = layout.packedRows();
  Idx edges = dim(io.in(op.getSrc()), 0);
  Value nodeGrad = io.allocate(0, {edges, rows, channels});
  Value wignerGrad = io.allocate(1, {edges, rows, rows});
  Value kcGrad = allocateKernelGrad(io, 2, op.getKc(), edges);
  fillZero(wignerGrad);
  emitRotateMixBackward(
      op, io, wignerGrad, kcGrad,
      [&](llvm::function_ref<void(Idx)> body) { parallelRange(0, edges, body); },
      [&](Idx e, Idx c, ArrayRef<Num> packed) {
        storeRows(packed, nodeGrad, e, c);
      });
  if (op.getCbGrad()) {
    Value x = io.in(op.getX()), src = io.in(op.getSrc());
    Value wigner = io.in(op.getWigner()), grad = io.in(op.getGrad());
    Mixer mixer(layout, op.getRank(), io.in(op.getKc()), io.in(op.getCb()));
    Value cbGrad = io.allocate(3, {op.getRank(), channels});
    mixer.emitBasisGrad(cbGrad, edges, channels, [&](Idx e, Idx c) {
      EdgeRotation rotation(layout, wigner, e);
      std::vector<Num> xl = rotation.toEdgeFrame(
          gatherRows(x, loadIndex(src, {e}), layout, c));
      return std::make_pair(loadRows(grad, e, layout.reducedRows(), c), xl);
    });
  }
}

void sezm::emitKernel(RotateMixGradReduceOp op, KernelIO &io) {
  SO2Layout layout = layoutOf(op);
  Value order = io.in(op.getSrcOrder()), rowptr = io.in(op.getSrcRowptr());
  int64_t channels = staticDim(op.getX(), 2), rows = layout.packedRows();
  Idx edges = dim(io.in(op.getSrc()), 0);
  Idx nodes = dim(rowptr, 0) - 1;
  Value xGrad = io.allocate(0, {nodes, rows, channels});
  Value wignerGrad = io.allocate(1, {edges, rows, rows});
  Value kcGrad = allocateKernelGrad(io, 2, op.getKc(), edges);
  fillZero(xGrad);
  fillZero(wignerGrad);
  // Each source node walks its CSR segment and sums the node gradient rows
  // of its edges in segment order, as segment_reduce does: the per-edge node
  // gradient never exists.
  parallelRange(0, nodes, [&](Idx n) {
    emitRotateMixBackward(
        op, io, wignerGrad, kcGrad,
        [&](llvm::function_ref<void(Idx)> body) {
          forRange(loadIndex(rowptr, {n}), loadIndex(rowptr, {n + 1}),
                   [&](Idx t) { body(loadIndex(order, {t})); });
        },
        [&](Idx, Idx c, ArrayRef<Num> packed) {
          for (auto [d, value] : llvm::enumerate(packed))
            addTo(value, xGrad, {n, Idx(static_cast<int64_t>(d)), c});
        });
  });
}

void sezm::emitKernel(RotateBackOp op, KernelIO &io) {
  SO2Layout layout = layoutOf(op);
  Value xl = io.in(op.getXl()), wigner = io.in(op.getWigner());
  int64_t channels = staticDim(op.getXl(), 2);
  Idx edges = dim(xl, 0);
  Value out = io.allocate(0, {edges, layout.packedRows(), channels});
  parallelRange(0, edges, [&](Idx e) {
    EdgeRotation rotation(layout, wigner, e);
    forRange(0, channels, [&](Idx c) {
      std::vector<Num> rows = loadRows(xl, e, layout.reducedRows(), c);
      storeRows(rescaled(rotation.fromEdgeFrame(rows)), out, e, c);
    });
  });
}

void sezm::emitKernel(RotateBackGradOp op, KernelIO &io) {
  SO2Layout layout = layoutOf(op);
  Value grad = io.in(op.getGrad()), xl = io.in(op.getXl());
  Value wigner = io.in(op.getWigner());
  int64_t channels = staticDim(op.getXl(), 2), rows = layout.packedRows();
  Idx edges = dim(xl, 0);
  Value xlGrad = io.allocate(0, {edges, layout.reducedRows(), channels});
  Value wignerGrad = io.allocate(1, {edges, rows, rows});
  fillZero(wignerGrad);
  parallelRange(0, edges, [&](Idx e) {
    EdgeRotation rotation(layout, wigner, e);
    SmallVector<Num> init(rotation.numEntries(), Num(0.0));
    SmallVector<Num> sums = sumRange(0, channels, init, [&](Idx c) {
      std::vector<Num> g = rescaled(loadRows(grad, e, rows, c));
      std::vector<Num> in = loadRows(xl, e, layout.reducedRows(), c);
      storeRows(rotation.toEdgeFrame(g), xlGrad, e, c);
      SmallVector<Num> terms;
      appendWignerGradTerms(rotation, in, g, terms);
      return terms;
    });
    storeWignerGrad(rotation, layout, sums, wignerGrad, e);
  });
}
