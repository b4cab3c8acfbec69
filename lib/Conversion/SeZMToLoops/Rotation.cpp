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
/// cb_grad[r, c] = sum_e sum_k kc[e, k*R + r] * products_k(e, c), summed
/// over edges in order; `rows` gives (g, xl) of edge e and channel c.
void emitBasisGrad(
    const RadialMixer &mixer, Value cbGrad, Idx edges, int64_t channels,
    llvm::function_ref<std::pair<std::vector<Num>, std::vector<Num>>(Idx, Idx)>
        rows) {
  Emitter &em = edges.getEmitter();
  em.parallelRange(0, channels, [&](Idx c) {
    SmallVector<Num> init(mixer.rank(), Num(0.0));
    SmallVector<Num> sums = em.sumRange(0, edges, init, [&](Idx e) {
      auto [g, xl] = rows(e, c);
      DegreeKernel kernel = *mixer.atEdge(e).kernel;
      std::vector<Num> products = kernel.kernelProducts(g, xl);
      SmallVector<Num> terms;
      for (int64_t r = 0; r < mixer.rank(); ++r) {
        std::optional<Num> term;
        for (auto [k, product] : llvm::enumerate(products)) {
          Num part = kernel.coefficient(k, r) * product;
          term = term ? *term + part : part;
        }
        terms.push_back(*term);
      }
      return terms;
    });
    for (int64_t r = 0; r < mixer.rank(); ++r)
      em.store(sums[r], cbGrad, {Idx(r), c});
  });
}

Value optionalBuffer(KernelIO &io, Value operand) {
  return operand ? io.in(operand) : Value();
}

/// Gathers x[s, :, c].
std::vector<Num> gatherRows(Value x, Idx s, SO2Layout layout, Idx c) {
  return loadRows(x, s, layout.packedRows(), c);
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
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value x = io.in(op.getX()), src = io.in(op.getSrc());
  Value wigner = io.in(op.getWigner());
  int64_t channels = staticDim(op.getX(), 2);
  Idx edges = em.dim(src, 0);
  Value out = io.allocate(0, {edges, layout.reducedRows(), channels});
  em.parallelRange(0, edges, [&](Idx e) {
    Idx s = em.loadIndex(src, {e});
    EdgeRotation rotation(layout, wigner, e);
    em.forRange(0, channels, [&](Idx c) {
      storeRows(rotation.toEdgeFrame(gatherRows(x, s, layout, c)), out, e, c);
    });
  });
}

void sezm::emitKernel(RotateGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value grad = io.in(op.getGrad()), x = io.in(op.getX());
  Value src = io.in(op.getSrc()), wigner = io.in(op.getWigner());
  int64_t channels = staticDim(op.getX(), 2), rows = layout.packedRows();
  Idx edges = em.dim(src, 0);
  Value nodeGrad = io.allocate(0, {edges, rows, channels});
  Value wignerGrad = allocateWignerLike(io, 1, op.getWigner(), edges);
  em.parallelRange(0, edges, [&](Idx e) {
    Idx s = em.loadIndex(src, {e});
    EdgeRotation rotation(layout, wigner, e);
    SmallVector<Num> init(rotation.numEntries(), Num(0.0));
    SmallVector<Num> sums = em.sumRange(0, channels, init, [&](Idx c) {
      std::vector<Num> g = loadRows(grad, e, layout.reducedRows(), c);
      storeRows(rotation.fromEdgeFrame(g), nodeGrad, e, c);
      SmallVector<Num> terms;
      rotation.appendGradientTerms(g, gatherRows(x, s, layout, c), terms);
      return terms;
    });
    rotation.storeGradient(sums, wignerGrad, e);
  });
}

void sezm::emitKernel(MixOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value xl = io.in(op.getXl());
  RadialMixer mixer(layout, op.getRank(), io.in(op.getKc()),
                    optionalBuffer(io, op.getCb()));
  int64_t channels = staticDim(op.getXl(), 2);
  Idx edges = em.dim(xl, 0);
  Value out = io.allocate(0, {edges, layout.reducedRows(), channels});
  em.parallelRange(0, edges, [&](Idx e) {
    RadialMixer::Edge edge = mixer.atEdge(e);
    em.forRange(0, channels, [&](Idx c) {
      std::vector<Num> rows = loadRows(xl, e, layout.reducedRows(), c);
      storeRows(mixer.mix(edge, mixer.atChannel(edge, c), rows), out, e, c);
    });
  });
}

void sezm::emitKernel(MixGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value grad = io.in(op.getGrad()), xl = io.in(op.getXl());
  Value kc = io.in(op.getKc()), cb = optionalBuffer(io, op.getCb());
  RadialMixer mixer(layout, op.getRank(), kc, cb);
  int64_t channels = staticDim(op.getXl(), 2), rows = layout.reducedRows();
  Idx edges = em.dim(xl, 0);
  Value xlGrad = io.allocate(0, {edges, rows, channels});
  Value kcGrad = op.getRank() > 0
                     ? io.allocate(1, {edges, staticDim(op.getKc(), 1)})
                     : io.allocate(1, {edges, layout.lmax + 1, channels});
  em.parallelRange(0, edges, [&](Idx e) {
    RadialMixer::Edge edge = mixer.atEdge(e);
    SmallVector<Num> init(mixer.numKernelSums(), Num(0.0));
    SmallVector<Num> sums = em.sumRange(0, channels, init, [&](Idx c) {
      std::vector<Num> g = loadRows(grad, e, rows, c);
      std::vector<Num> in = loadRows(xl, e, rows, c);
      std::vector<Num> channel = mixer.atChannel(edge, c);
      storeRows(mixer.mixTransposed(edge, channel, g), xlGrad, e, c);
      if (op.getRank() == 0) {
        mixer.storeFreeKernelGrad(g, in, kcGrad, e, c);
        return SmallVector<Num>();
      }
      std::vector<Num> terms = mixer.kernelGradTerms(edge, channel, g, in);
      return SmallVector<Num>(terms.begin(), terms.end());
    });
    if (op.getRank() > 0)
      mixer.storeKernelGrad(sums, kcGrad, e);
  });
  if (op.getCbGrad()) {
    Value cbGrad = io.allocate(2, {op.getRank(), channels});
    emitBasisGrad(mixer, cbGrad, edges, channels, [&](Idx e, Idx c) {
      return std::make_pair(loadRows(grad, e, rows, c),
                            loadRows(xl, e, rows, c));
    });
  }
}

void sezm::emitKernel(RotateMixOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value x = io.in(op.getX()), src = io.in(op.getSrc());
  Value wigner = io.in(op.getWigner());
  RadialMixer mixer(layout, op.getRank(), io.in(op.getKc()),
                    optionalBuffer(io, op.getCb()));
  int64_t channels = staticDim(op.getX(), 2);
  Idx edges = em.dim(src, 0);
  Value out = allocateEdgeRows(io, 0, edges, layout.reducedRows(), channels,
                               op.getFocusMajor());
  em.parallelRange(0, edges, [&](Idx e) {
    Idx s = em.loadIndex(src, {e});
    EdgeRotation rotation(layout, wigner, e);
    RadialMixer::Edge edge = mixer.atEdge(e);
    em.forRange(0, channels, [&](Idx c) {
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
  RadialMixer mixer(layout, op.getRank(), io.in(op.getKc()),
                    optionalBuffer(io, op.getCb()));
  int64_t channels = staticDim(op.getX(), 2), rows = layout.reducedRows();
  Emitter &em = io.emitter();
  forEachEdge([&](Idx e) {
    Idx s = em.loadIndex(src, {e});
    EdgeRotation rotation(layout, wigner, e);
    RadialMixer::Edge edge = mixer.atEdge(e);
    int64_t wignerSums = rotation.numEntries();
    SmallVector<Num> init(wignerSums + mixer.numKernelSums(), Num(0.0));
    SmallVector<Num> sums = em.sumRange(0, channels, init, [&](Idx c) {
      std::vector<Num> packed = gatherRows(x, s, layout, c);
      std::vector<Num> xl = rotation.toEdgeFrame(packed);
      std::vector<Num> g = loadRows(grad, e, rows, c);
      std::vector<Num> channel = mixer.atChannel(edge, c);
      std::vector<Num> gl = mixer.mixTransposed(edge, channel, g);
      nodeGradSink(e, c, rotation.fromEdgeFrame(gl));
      SmallVector<Num> terms;
      rotation.appendGradientTerms(gl, packed, terms);
      if (op.getRank() == 0)
        mixer.storeFreeKernelGrad(g, xl, kcGrad, e, c);
      else
        llvm::append_range(terms, mixer.kernelGradTerms(edge, channel, g, xl));
      return terms;
    });
    ArrayRef<Num> all(sums);
    rotation.storeGradient(all.take_front(wignerSums), wignerGrad, e);
    if (op.getRank() > 0)
      mixer.storeKernelGrad(all.drop_front(wignerSums), kcGrad, e);
  });
}

} // namespace

void sezm::emitKernel(RotateMixGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  int64_t channels = staticDim(op.getX(), 2), rows = layout.packedRows();
  Idx edges = em.dim(io.in(op.getSrc()), 0);
  // Where the features are constants (a first block's inputs), nothing
  // uses the node gradient: it is neither allocated nor computed.
  Value nodeGrad = op.getNodeGrad().use_empty()
                       ? Value()
                       : io.allocate(0, {edges, rows, channels});
  Value wignerGrad = allocateWignerLike(io, 1, op.getWigner(), edges);
  Value kcGrad = allocateEdgesLike(io, 2, op.getKc(), edges);
  emitRotateMixBackward(
      op, io, wignerGrad, kcGrad,
      [&](llvm::function_ref<void(Idx)> body) {
        em.parallelRange(0, edges, body);
      },
      [&](Idx e, Idx c, ArrayRef<Num> packed) {
        if (nodeGrad)
          storeRows(packed, nodeGrad, e, c);
      });
  if (op.getCbGrad()) {
    Value x = io.in(op.getX()), src = io.in(op.getSrc());
    Value wigner = io.in(op.getWigner()), grad = io.in(op.getGrad());
    RadialMixer mixer(layout, op.getRank(), io.in(op.getKc()),
                      io.in(op.getCb()));
    Value cbGrad = io.allocate(3, {op.getRank(), channels});
    emitBasisGrad(mixer, cbGrad, edges, channels, [&](Idx e, Idx c) {
      EdgeRotation rotation(layout, wigner, e);
      std::vector<Num> xl = rotation.toEdgeFrame(
          gatherRows(x, em.loadIndex(src, {e}), layout, c));
      return std::make_pair(loadRows(grad, e, layout.reducedRows(), c), xl);
    });
  }
}

void sezm::emitKernel(RotateMixGradReduceOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value order = io.in(op.getSrcOrder()), rowptr = io.in(op.getSrcRowptr());
  int64_t channels = staticDim(op.getX(), 2), rows = layout.packedRows();
  Idx edges = em.dim(io.in(op.getSrc()), 0);
  Idx nodes = em.dim(rowptr, 0) - 1;
  Value xGrad = io.allocate(0, {nodes, rows, channels});
  Value wignerGrad = allocateWignerLike(io, 1, op.getWigner(), edges);
  Value kcGrad = allocateEdgesLike(io, 2, op.getKc(), edges);
  em.fillZero(xGrad);
  // Each source node walks its CSR segment (or its part in the op's range
  // of edges) and sums the node gradient rows of its edges in segment
  // order, as segment_reduce does: the per-edge node gradient never exists.
  em.parallelRange(0, nodes, [&](Idx n) {
    KernelIO::EdgeRange range = io.edgeRange(order, rowptr, n, edges);
    emitRotateMixBackward(
        op, io, wignerGrad, kcGrad,
        [&](llvm::function_ref<void(Idx)> body) {
          em.forRange(range.begin, range.end, [&](Idx t) {
            body(em.loadIndex(order, {t}) - range.first);
          });
        },
        [&](Idx, Idx c, ArrayRef<Num> packed) {
          for (auto [d, value] : llvm::enumerate(packed))
            em.addTo(value, xGrad, {n, Idx(static_cast<int64_t>(d)), c});
        });
  });
}

void sezm::emitKernel(RotateBackOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value xl = io.in(op.getXl()), wigner = io.in(op.getWigner());
  int64_t channels = staticDim(op.getXl(), 2);
  Idx edges = em.dim(xl, 0);
  Value out = io.allocate(0, {edges, layout.packedRows(), channels});
  em.parallelRange(0, edges, [&](Idx e) {
    EdgeRotation rotation(layout, wigner, e);
    em.forRange(0, channels, [&](Idx c) {
      std::vector<Num> rows = loadRows(xl, e, layout.reducedRows(), c);
      storeRows(rescaled(rotation.fromEdgeFrame(rows)), out, e, c);
    });
  });
}

void sezm::emitKernel(RotateBackGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value grad = io.in(op.getGrad()), xl = io.in(op.getXl());
  Value wigner = io.in(op.getWigner());
  int64_t channels = staticDim(op.getXl(), 2), rows = layout.packedRows();
  Idx edges = em.dim(xl, 0);
  Value xlGrad = io.allocate(0, {edges, layout.reducedRows(), channels});
  Value wignerGrad = allocateWignerLike(io, 1, op.getWigner(), edges);
  em.parallelRange(0, edges, [&](Idx e) {
    EdgeRotation rotation(layout, wigner, e);
    SmallVector<Num> init(rotation.numEntries(), Num(0.0));
    SmallVector<Num> sums = em.sumRange(0, channels, init, [&](Idx c) {
      std::vector<Num> g = rescaled(loadRows(grad, e, rows, c));
      std::vector<Num> in = loadRows(xl, e, layout.reducedRows(), c);
      storeRows(rotation.toEdgeFrame(g), xlGrad, e, c);
      SmallVector<Num> terms;
      rotation.appendGradientTerms(in, g, terms);
      return terms;
    });
    rotation.storeGradient(sums, wignerGrad, e);
  });
}
