//===- MixingStack.cpp - CPU kernels of the gated SO(2) mixing stack ------===//
//
// Per edge and focus stream the SO(2) linear is three small matrix-vector
// products over flattened rows; weight gradients sum over edges in order.
// The per-edge kernels run one thread per (edge, stream, output) or (edge,
// channel): a warp shares its edge's inputs and reads or writes consecutive
// channels and weights (one thread per edge left the GPU waiting on
// uncoalesced loads: SeZM-min spent 2.2 s of 3.3 s at N = 4096 there). Each
// output's sum runs in the same order as before, on every backend.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

namespace {
/// Flattened access to one focus stream of an (E, Dm, C) buffer: the m = 0
/// rows as M0 = (lmax+1)*Cf values, the m = -1 and m = +1 rows as lmax*Cf
/// values each (sezm-ops.md 3.5).
class Stream {
public:
  Stream(SO2Layout layout, int64_t width, Idx focus)
      : lmax(layout.lmax), width(width), focus(focus) {}

  enum Block { MZero, MNeg, MPos };

  Num load(Value buffer, Idx e, Block block, Idx i) const {
    Emitter &em = e.getEmitter();
    return em.load(buffer, {e, row(block, i), channel(i)});
  }
  void store(Num value, Value buffer, Idx e, Block block, Idx i) const {
    Emitter &em = e.getEmitter();
    em.store(value, buffer, {e, row(block, i), channel(i)});
  }
  /// Where a sum into element i starts: the addend's element, or zero
  /// where there is no addend.
  Num startOf(Value acc, Idx e, Block block, Idx i) const {
    return acc ? load(acc, e, block, i) : Num(0.0);
  }
  int64_t size(Block block) const { return rows(block) * width; }
  /// The block's rows: degrees 0..lmax for m = 0, 1..lmax for m = +-1.
  int64_t rows(Block block) const { return block == MZero ? lmax + 1 : lmax; }
  /// Element (r, c) of a block, r < rows(block), c < width: the flat
  /// index r * width + c, addressed without division so that a loop over c
  /// walks contiguous memory.
  Num load(Value buffer, Idx e, Block block, Idx r, Idx c) const {
    Emitter &em = e.getEmitter();
    return em.load(buffer, {e, Idx(rowBase(block)) + r, channelOf(c)});
  }
  void store(Num value, Value buffer, Idx e, Block block, Idx r, Idx c) const {
    Emitter &em = e.getEmitter();
    em.store(value, buffer, {e, Idx(rowBase(block)) + r, channelOf(c)});
  }
  /// The stream's index.
  Idx focusIndex() const { return focus; }
  /// The hidden channel of stream-local channel cf.
  Idx channelOf(Idx cf) const { return focus * Idx(width) + cf; }

private:
  int64_t rowBase(Block block) const {
    return block == MZero ? 0 : (block == MNeg ? lmax + 1 : 2 * lmax + 1);
  }
  Idx row(Block block, Idx i) const {
    return Idx(rowBase(block)) + i / Idx(width);
  }
  Idx channel(Idx i) const { return channelOf(i % Idx(width)); }

  int64_t lmax, width;
  Idx focus;
};

/// A flat parallel index over (edge, stream, k < perStream). (Plain
/// variables, not structured bindings, take it apart: lambdas capture them.)
struct EdgeStreamIndex {
  Idx e, f, k;
};
EdgeStreamIndex splitEdgeStream(Idx flat, int64_t focus, int64_t perStream) {
  return {flat / Idx(focus * perStream), (flat / Idx(perStream)) % Idx(focus),
          flat % Idx(perStream)};
}

/// A scratch copy of per-stream weights (F, I, O) as (F, O, I), so that
/// threads over consecutive inputs i read consecutive weights in a sum over
/// outputs (a gradient's access) instead of one cache line each.
Value transposedWeights(KernelIO &io, Value w) {
  Emitter &em = io.emitter();
  auto type = cast<MemRefType>(w.getType());
  int64_t focus = type.getDimSize(0), in = type.getDimSize(1),
          out = type.getDimSize(2);
  Value t = io.scratch({focus, out, in}, {Idx(focus), Idx(out), Idx(in)});
  em.parallelRange(0, Idx(focus * in * out), [&](Idx flat) {
    Idx f = flat / Idx(in * out), i = flat / Idx(out) % Idx(in);
    Idx o = flat % Idx(out);
    em.store(em.load(w, {f, i, o}), t, {f, o, i});
  });
  return t;
}

int64_t streamWidth(Value tensor, int64_t focus) {
  return staticDim(tensor, 2) / focus;
}

/// Outputs one CPU sum carries at once: enough for SIMD registers, few
/// enough that they stay in them.
constexpr int64_t kRowChunk = 16;

/// A stream-blocked matrix-vector product on the CPU, per (edge, stream):
/// for each output row, chunks of contiguous channels are summed in
/// registers over all inputs (SIMD across the chunk, no store in the
/// loop), starting from the addend (or zero). `terms(e, s, i, o)` gives
/// input i's terms for flat output o, one per block written; each output
/// sums them in input order, as the one-output-per-iteration form does.
void accumulateRows(
    Idx edges, int64_t focus, SO2Layout layout, int64_t width, Value out,
    Value acc, ArrayRef<Stream::Block> blocks, int64_t inputs,
    llvm::function_ref<SmallVector<Num>(Idx, const Stream &, Idx, Idx)> terms) {
  Emitter &em = edges.getEmitter();
  em.parallelRange(0, edges * Idx(focus), [&](Idx flat) {
    Idx e = flat / Idx(focus), f = flat % Idx(focus);
    Stream s(layout, width, f);
    em.forRange(0, s.rows(blocks.front()), [&](Idx r) {
      for (int64_t c0 = 0; c0 < width; c0 += kRowChunk) {
        int64_t count = std::min(kRowChunk, width - c0);
        SmallVector<Num> start;
        for (int64_t j = 0; j < count; ++j)
          for (Stream::Block block : blocks)
            start.push_back(acc ? s.load(acc, e, block, r, Idx(c0 + j))
                                : Num(0.0));
        SmallVector<Num> sums = em.sumRange(0, inputs, start, [&](Idx i) {
          SmallVector<Num> all;
          for (int64_t j = 0; j < count; ++j)
            llvm::append_range(all,
                               terms(e, s, i, r * Idx(width) + Idx(c0 + j)));
          return all;
        });
        for (int64_t j = 0; j < count; ++j)
          for (auto [index, block] : llvm::enumerate(blocks))
            s.store(sums[j * blocks.size() + index], out, e, block, r,
                    Idx(c0 + j));
      }
    });
  });
}
} // namespace

void sezm::emitKernel(SO2LinearOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value u = io.in(op.getU()), w0 = io.in(op.getW0());
  Value wu = io.in(op.getWu()), wv = io.in(op.getWv());
  int64_t focus = op.getFocus(), width = streamWidth(op.getU(), focus);
  Idx edges = em.dim(u, 0);
  Value out =
      io.allocate(0, {edges, layout.reducedRows(), staticDim(op.getU(), 2)});
  int64_t m0 = (layout.lmax + 1) * width, m1 = layout.lmax * width;
  Value acc = op.getAcc() ? io.in(op.getAcc()) : Value();
  if (io.target() == LoopTarget::Cpu) {
    accumulateRows(edges, focus, layout, width, out, acc, {Stream::MZero}, m0,
                   [&](Idx e, const Stream &s, Idx i, Idx o) {
                     return SmallVector<Num>{
                         s.load(u, e, Stream::MZero, i) *
                         em.load(w0, {s.focusIndex(), i, o})};
                   });
    accumulateRows(
        edges, focus, layout, width, out, acc, {Stream::MNeg, Stream::MPos}, m1,
        [&](Idx e, const Stream &s, Idx i, Idx o) {
          Num neg = s.load(u, e, Stream::MNeg, i);
          Num pos = s.load(u, e, Stream::MPos, i);
          Num a = em.load(wu, {s.focusIndex(), i, o});
          Num b = em.load(wv, {s.focusIndex(), i, o});
          return SmallVector<Num>{neg * a - pos * b, neg * b + pos * a};
        });
    return;
  }
  em.parallelRange(0, edges * Idx(focus * m0), [&](Idx flat) {
    EdgeStreamIndex at = splitEdgeStream(flat, focus, m0);
    Idx e = at.e, f = at.f, o = at.k;
    Stream s(layout, width, f);
    Num z =
        em.sumRange(0, m0, {s.startOf(acc, e, Stream::MZero, o)}, [&](Idx i) {
          return SmallVector<Num>{s.load(u, e, Stream::MZero, i) *
                                  em.load(w0, {f, i, o})};
        })[0];
    s.store(z, out, e, Stream::MZero, o);
  });
  em.parallelRange(0, edges * Idx(focus * m1), [&](Idx flat) {
    EdgeStreamIndex at = splitEdgeStream(flat, focus, m1);
    Idx e = at.e, f = at.f, o = at.k;
    Stream s(layout, width, f);
    SmallVector<Num> start = {s.startOf(acc, e, Stream::MNeg, o),
                              s.startOf(acc, e, Stream::MPos, o)};
    SmallVector<Num> z = em.sumRange(0, m1, start, [&](Idx i) {
      Num neg = s.load(u, e, Stream::MNeg, i);
      Num pos = s.load(u, e, Stream::MPos, i);
      Num a = em.load(wu, {f, i, o}), b = em.load(wv, {f, i, o});
      return SmallVector<Num>{neg * a - pos * b, neg * b + pos * a};
    });
    s.store(z[0], out, e, Stream::MNeg, o);
    s.store(z[1], out, e, Stream::MPos, o);
  });
}

void sezm::emitKernel(SO2LinearGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value g = io.in(op.getGrad()), u = io.in(op.getU());
  Value w0 = io.in(op.getW0()), wu = io.in(op.getWu()), wv = io.in(op.getWv());
  int64_t focus = op.getFocus(), width = streamWidth(op.getU(), focus);
  Idx edges = em.dim(u, 0);
  Value uGrad =
      io.allocate(0, {edges, layout.reducedRows(), staticDim(op.getU(), 2)});
  int64_t m0 = (layout.lmax + 1) * width, m1 = layout.lmax * width;
  Value w0t = transposedWeights(io, w0), wut = transposedWeights(io, wu);
  Value wvt = transposedWeights(io, wv);
  Value acc = op.getAcc() ? io.in(op.getAcc()) : Value();
  if (io.target() == LoopTarget::Cpu) {
    // The gradient sums over outputs o: here the outer loop, its terms
    // added to every input's gradient along the transposed weights' rows.
    accumulateRows(edges, focus, layout, width, uGrad, acc, {Stream::MZero}, m0,
                   [&](Idx e, const Stream &s, Idx o, Idx i) {
                     return SmallVector<Num>{
                         s.load(g, e, Stream::MZero, o) *
                         em.load(w0t, {s.focusIndex(), o, i})};
                   });
    accumulateRows(
        edges, focus, layout, width, uGrad, acc, {Stream::MNeg, Stream::MPos},
        m1, [&](Idx e, const Stream &s, Idx o, Idx i) {
          Num gNeg = s.load(g, e, Stream::MNeg, o);
          Num gPos = s.load(g, e, Stream::MPos, o);
          Num a = em.load(wut, {s.focusIndex(), o, i});
          Num b = em.load(wvt, {s.focusIndex(), o, i});
          return SmallVector<Num>{a * gNeg + b * gPos, a * gPos - b * gNeg};
        });
  } else {
    em.parallelRange(0, edges * Idx(focus * m0), [&](Idx flat) {
      EdgeStreamIndex at = splitEdgeStream(flat, focus, m0);
      Idx e = at.e, f = at.f, i = at.k;
      Stream s(layout, width, f);
      Num sum =
          em.sumRange(0, m0, {s.startOf(acc, e, Stream::MZero, i)}, [&](Idx o) {
            return SmallVector<Num>{s.load(g, e, Stream::MZero, o) *
                                    em.load(w0t, {f, o, i})};
          })[0];
      s.store(sum, uGrad, e, Stream::MZero, i);
    });
    em.parallelRange(0, edges * Idx(focus * m1), [&](Idx flat) {
      EdgeStreamIndex at = splitEdgeStream(flat, focus, m1);
      Idx e = at.e, f = at.f, i = at.k;
      Stream s(layout, width, f);
      SmallVector<Num> start = {s.startOf(acc, e, Stream::MNeg, i),
                                s.startOf(acc, e, Stream::MPos, i)};
      SmallVector<Num> sums = em.sumRange(0, m1, start, [&](Idx o) {
        Num gNeg = s.load(g, e, Stream::MNeg, o);
        Num gPos = s.load(g, e, Stream::MPos, o);
        Num a = em.load(wut, {f, o, i}), b = em.load(wvt, {f, o, i});
        return SmallVector<Num>{a * gNeg + b * gPos, a * gPos - b * gNeg};
      });
      s.store(sums[0], uGrad, e, Stream::MNeg, i);
      s.store(sums[1], uGrad, e, Stream::MPos, i);
    });
  }
  // The weight gradients (sums over all edges) only when training uses
  // them; the three come from the same sums, so all or none.
  if (!io.needed(1) && !io.needed(2) && !io.needed(3))
    return;
  Value w0Grad = io.allocate(1, {focus, m0, m0});
  Value wuGrad = io.allocate(2, {focus, m1, m1});
  Value wvGrad = io.allocate(3, {focus, m1, m1});
  for (int64_t f = 0; f < focus; ++f) {
    Stream s(layout, width, f);
    em.parallelRange(0, m0, [&](Idx i) {
      em.forRange(0, m0, [&](Idx o) {
        Num sum = em.sumRange(0, edges, [&](Idx e) {
          return s.load(u, e, Stream::MZero, i) *
                 s.load(g, e, Stream::MZero, o);
        });
        em.store(sum, w0Grad, {f, i, o});
      });
    });
    em.parallelRange(0, m1, [&](Idx i) {
      em.forRange(0, m1, [&](Idx o) {
        SmallVector<Num> sums =
            em.sumRange(0, edges, {Num(0.0), Num(0.0)}, [&](Idx e) {
              Num xNeg = s.load(u, e, Stream::MNeg, i);
              Num xPos = s.load(u, e, Stream::MPos, i);
              Num gNeg = s.load(g, e, Stream::MNeg, o);
              Num gPos = s.load(g, e, Stream::MPos, o);
              return SmallVector<Num>{xNeg * gNeg + xPos * gPos,
                                      xNeg * gPos - xPos * gNeg};
            });
        em.store(sums[0], wuGrad, {f, i, o});
        em.store(sums[1], wvGrad, {f, i, o});
      });
    });
  }
}

namespace {
/// sigmoid(zs @ gw[f])[(l-1)*Cf + cf] for edge e and stream f.
Num gateOf(Value z, Value gw, Stream s, Idx f, int64_t width, Idx e, int64_t l,
           Idx cf) {
  Emitter &em = f.getEmitter();
  Num logit = em.sumRange(0, width, [&](Idx i) {
    return em.load(z, {e, 0, s.channelOf(i)}) *
           em.load(gw, {f, i, Idx((l - 1) * width) + cf});
  });
  return sigmoid(logit);
}

/// The CPU form of gateOf for `count` consecutive stream channels from c0:
/// the logits summed side by side in registers over the l = 0 row, each in
/// the order gateOf sums it.
SmallVector<Num> gatesOf(Value z, Value gw, const Stream &s, int64_t width,
                         Idx e, int64_t l, int64_t c0, int64_t count) {
  Emitter &em = e.getEmitter();
  Idx f = s.focusIndex();
  SmallVector<Num> logits =
      em.sumRange(0, width, SmallVector<Num>(count, Num(0.0)), [&](Idx i) {
        Num zs = em.load(z, {e, 0, s.channelOf(i)});
        SmallVector<Num> terms;
        for (int64_t j = 0; j < count; ++j)
          terms.push_back(zs *
                          em.load(gw, {f, i, Idx((l - 1) * width + c0 + j)}));
        return terms;
      });
  for (Num &logit : logits)
    logit = sigmoid(logit);
  return logits;
}

/// body(e, s) for every (edge, stream) of a CPU kernel.
void forEachEdgeStream(Idx edges, int64_t focus, SO2Layout layout,
                       int64_t width,
                       llvm::function_ref<void(Idx, const Stream &)> body) {
  Emitter &em = edges.getEmitter();
  em.parallelRange(0, edges * Idx(focus), [&](Idx flat) {
    Stream s(layout, width, flat % Idx(focus));
    body(flat / Idx(focus), s);
  });
}
} // namespace

void sezm::emitKernel(GateOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value z = io.in(op.getZ()), gw = io.in(op.getGw());
  int64_t focus = op.getFocus(), width = streamWidth(op.getZ(), focus);
  Idx edges = em.dim(z, 0);
  Value out =
      io.allocate(0, {edges, layout.reducedRows(), staticDim(op.getZ(), 2)});
  Value acc = op.getAcc() ? io.in(op.getAcc()) : Value();
  auto storeOut = [&](Num value, std::array<Idx, 3> at) {
    em.storeAdded(value, acc, out, at);
  };
  if (io.target() == LoopTarget::Cpu) {
    forEachEdgeStream(edges, focus, layout, width, [&](Idx e, const Stream &s) {
      em.forRange(0, width, [&](Idx cf) {
        Idx c = s.channelOf(cf);
        Num zs = em.load(z, {e, 0, c});
        storeOut(zs * sigmoid(zs), {e, Idx(0), c});
      });
      for (int64_t l = 1; l <= layout.lmax; ++l)
        for (int64_t c0 = 0; c0 < width; c0 += kRowChunk) {
          int64_t count = std::min(kRowChunk, width - c0);
          SmallVector<Num> gates = gatesOf(z, gw, s, width, e, l, c0, count);
          for (int64_t j = 0; j < count; ++j) {
            Idx c = s.channelOf(Idx(c0 + j));
            for (int64_t row : layout.reducedRowsOfDegree(l))
              storeOut(em.load(z, {e, row, c}) * gates[j], {e, Idx(row), c});
          }
        }
    });
    return;
  }
  em.parallelRange(0, edges * Idx(focus * width), [&](Idx flat) {
    EdgeStreamIndex at = splitEdgeStream(flat, focus, width);
    Idx e = at.e, f = at.f, cf = at.k;
    Stream s(layout, width, f);
    Idx c = s.channelOf(cf);
    Num zs = em.load(z, {e, 0, c});
    storeOut(zs * sigmoid(zs), {e, Idx(0), c});
    for (int64_t l = 1; l <= layout.lmax; ++l) {
      Num gate = gateOf(z, gw, s, f, width, e, l, cf);
      for (int64_t row : layout.reducedRowsOfDegree(l))
        storeOut(em.load(z, {e, row, c}) * gate, {e, Idx(row), c});
    }
  });
}

void sezm::emitKernel(GateGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value grad = io.in(op.getGrad()), z = io.in(op.getZ());
  Value gw = io.in(op.getGw());
  int64_t focus = op.getFocus(), width = streamWidth(op.getZ(), focus);
  int64_t gates = layout.lmax * width;
  Idx edges = em.dim(z, 0);
  Value zGrad =
      io.allocate(0, {edges, layout.reducedRows(), staticDim(op.getZ(), 2)});
  // d logit of every gate, needed by the l = 0 row and by gw_grad.
  Value logitGrad =
      io.scratch({ShapedType::kDynamic, focus, gates}, {edges, focus, gates});
  // d logit of one gate from its value and its rows' gradients; writes the
  // rows' gradients.
  auto gateRows = [&](Idx e, Idx f, Idx cf, Idx c, int64_t l, Num gate) {
    std::optional<Num> gateGrad;
    for (int64_t row : layout.reducedRowsOfDegree(l)) {
      Num g = em.load(grad, {e, row, c});
      em.store(g * gate, zGrad, {e, row, c});
      Num term = g * em.load(z, {e, row, c});
      gateGrad = gateGrad ? *gateGrad + term : term;
    }
    em.store(*gateGrad * gate * (Num(1.0) - gate), logitGrad,
             {e, f, Idx((l - 1) * width) + cf});
  };
  // The l = 0 row of edge e, channel i: the SiLU's gradient plus the gate
  // path, summed over every gate's d logit.
  auto zeroRow = [&](Idx e, Idx c, Num gatePath) {
    Num zs = em.load(z, {e, 0, c});
    Num sig = sigmoid(zs);
    Num silu =
        em.load(grad, {e, 0, c}) * sig * (Num(1.0) + zs * (Num(1.0) - sig));
    em.store(silu + gatePath, zGrad, {e, 0, c});
  };
  Value gwt;
  if (io.target() == LoopTarget::Cpu) {
    forEachEdgeStream(edges, focus, layout, width, [&](Idx e, const Stream &s) {
      for (int64_t l = 1; l <= layout.lmax; ++l)
        for (int64_t c0 = 0; c0 < width; c0 += kRowChunk) {
          int64_t count = std::min(kRowChunk, width - c0);
          SmallVector<Num> gateValues =
              gatesOf(z, gw, s, width, e, l, c0, count);
          for (int64_t j = 0; j < count; ++j)
            gateRows(e, s.focusIndex(), Idx(c0 + j), s.channelOf(Idx(c0 + j)),
                     l, gateValues[j]);
        }
    });
    gwt = transposedWeights(io, gw);
    forEachEdgeStream(edges, focus, layout, width, [&](Idx e, const Stream &s) {
      Idx f = s.focusIndex();
      for (int64_t c0 = 0; c0 < width; c0 += kRowChunk) {
        int64_t count = std::min(kRowChunk, width - c0);
        SmallVector<Num> paths = em.sumRange(
            0, gates, SmallVector<Num>(count, Num(0.0)), [&](Idx k) {
              Num d = em.load(logitGrad, {e, f, k});
              SmallVector<Num> terms;
              for (int64_t j = 0; j < count; ++j)
                terms.push_back(d * em.load(gwt, {f, k, Idx(c0 + j)}));
              return terms;
            });
        for (int64_t j = 0; j < count; ++j)
          zeroRow(e, s.channelOf(Idx(c0 + j)), paths[j]);
      }
    });
  } else {
    em.parallelRange(0, edges * Idx(focus * width), [&](Idx flat) {
      EdgeStreamIndex at = splitEdgeStream(flat, focus, width);
      Idx e = at.e, f = at.f, cf = at.k;
      Stream s(layout, width, f);
      Idx c = s.channelOf(cf);
      for (int64_t l = 1; l <= layout.lmax; ++l)
        gateRows(e, f, cf, c, l, gateOf(z, gw, s, f, width, e, l, cf));
    });
    // The l = 0 row needs every gate's d logit of its edge and stream.
    gwt = transposedWeights(io, gw);
    em.parallelRange(0, edges * Idx(focus * width), [&](Idx flat) {
      EdgeStreamIndex at = splitEdgeStream(flat, focus, width);
      Idx e = at.e, f = at.f, i = at.k;
      Stream s(layout, width, f);
      Num gatePath = em.sumRange(0, gates, [&](Idx k) {
        return em.load(logitGrad, {e, f, k}) * em.load(gwt, {f, k, i});
      });
      zeroRow(e, s.channelOf(i), gatePath);
    });
  }
  if (!io.needed(1))
    return;
  Value gwGrad = io.allocate(1, {focus, width, gates});
  for (int64_t f = 0; f < focus; ++f) {
    Stream s(layout, width, f);
    em.parallelRange(0, width, [&](Idx i) {
      em.forRange(0, gates, [&](Idx k) {
        Num sum = em.sumRange(0, edges, [&](Idx e) {
          return em.load(z, {e, 0, s.channelOf(i)}) *
                 em.load(logitGrad, {e, f, k});
        });
        em.store(sum, gwGrad, {f, i, k});
      });
    });
  }
}

namespace {
constexpr double kCompeteSmoothing = 0.02;
constexpr double kCompeteNormEpsilon = 1e-7;

/// The competition of one edge: per stream, 1 / rms of the l = 0 row (when
/// normalized) and the softmax probabilities.
struct Competition {
  std::vector<Num> inverseRms;
  std::vector<Num> probability;
};

Competition compete(Value u, Value wfc, Value normScale, int64_t focus,
                    int64_t width, Idx e) {
  Emitter &em = e.getEmitter();
  Competition result;
  std::vector<Num> logits;
  for (int64_t f = 0; f < focus; ++f) {
    Idx base(f * width);
    Num dot = em.sumRange(0, width, [&](Idx i) {
      Num term = em.load(u, {e, 0, base + i}) * em.load(wfc, {i, f});
      return normScale ? term * em.load(normScale, {f, i}) : term;
    });
    if (normScale) {
      Num squares = em.sumRange(0, width, [&](Idx i) {
        Num s = em.load(u, {e, 0, base + i});
        return s * s;
      });
      Num inv = Num(1.0) / sqrt(squares / Num(static_cast<double>(width)) +
                                Num(kCompeteNormEpsilon));
      result.inverseRms.push_back(inv);
      dot = dot * inv;
    }
    logits.push_back(dot);
  }
  Num shift = logits[0];
  for (Num logit : ArrayRef<Num>(logits).drop_front())
    shift = max(shift, logit);
  std::vector<Num> weights;
  std::optional<Num> total;
  for (Num logit : logits) {
    Num w = exp(logit - shift);
    weights.push_back(w);
    total = total ? *total + w : w;
  }
  for (Num w : weights)
    result.probability.push_back(w / *total);
  return result;
}
} // namespace

void sezm::emitKernel(FocusCompeteOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value u = io.in(op.getU()), wfc = io.in(op.getWfc());
  Value normScale = op.getNormScale() ? io.in(op.getNormScale()) : Value();
  int64_t focus = op.getFocus(), width = streamWidth(op.getU(), focus);
  Idx edges = em.dim(u, 0);
  Value out = io.allocate(0, {edges, focus});
  em.parallelRange(0, edges, [&](Idx e) {
    // One stream has nothing to compete with: alpha is exactly 1.
    if (focus == 1) {
      em.store(Num(1.0), out, {e, 0});
      return;
    }
    Competition c = compete(u, wfc, normScale, focus, width, e);
    for (int64_t f = 0; f < focus; ++f)
      em.store(Num(1.0 - kCompeteSmoothing) * c.probability[f] +
                   Num(kCompeteSmoothing / static_cast<double>(focus)),
               out, {e, f});
  });
}

void sezm::emitKernel(FocusCompeteGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  SO2Layout layout = layoutOf(op);
  Value grad = io.in(op.getGrad()), u = io.in(op.getU());
  Value wfc = io.in(op.getWfc());
  Value normScale = op.getNormScale() ? io.in(op.getNormScale()) : Value();
  int64_t focus = op.getFocus(), width = streamWidth(op.getU(), focus);
  Idx edges = em.dim(u, 0);
  Value uGrad =
      io.allocate(0, {edges, layout.reducedRows(), staticDim(op.getU(), 2)});
  // The rows the competition does not read keep the addend (or zero); the
  // l = 0 row is written below, from the addend's row.
  Value acc = op.getAcc() ? io.in(op.getAcc()) : Value();
  if (acc)
    em.copy(acc, uGrad);
  else
    em.fillZero(uGrad);
  auto storeRow = [&](Num value, Idx e, Idx c) {
    em.storeAdded(value, acc, uGrad, {e, Idx(0), c});
  };
  // Per edge and stream: d logit, and 1 / rms when normalized.
  Value logitGrad = io.scratch({ShapedType::kDynamic, focus}, {edges, focus});
  Value inverseRms = io.scratch({ShapedType::kDynamic, focus}, {edges, focus});
  em.parallelRange(0, edges, [&](Idx e) {
    Competition c = compete(u, wfc, normScale, focus, width, e);
    std::optional<Num> mean;
    for (int64_t f = 0; f < focus; ++f) {
      Num term = c.probability[f] * em.load(grad, {e, f});
      mean = mean ? *mean + term : term;
    }
    for (int64_t f = 0; f < focus; ++f) {
      Num dLogit = Num(1.0 - kCompeteSmoothing) * c.probability[f] *
                   (em.load(grad, {e, f}) - *mean);
      em.store(dLogit, logitGrad, {e, f});
      Idx base(f * width);
      if (!normScale) {
        em.forRange(0, width, [&](Idx i) {
          storeRow(dLogit * em.load(wfc, {i, f}), e, base + i);
        });
        continue;
      }
      Num inv = c.inverseRms[f];
      em.store(inv, inverseRms, {e, f});
      // n = s * inv * scale; ds = inv * scale * dn - s * inv^3 / Cf * A with
      // A = sum_k dn_k * scale_k * s_k.
      Num a = em.sumRange(0, width, [&](Idx k) {
        return dLogit * em.load(wfc, {k, f}) * em.load(normScale, {f, k}) *
               em.load(u, {e, 0, base + k});
      });
      Num cubic = inv * inv * inv * a / Num(static_cast<double>(width));
      em.forRange(0, width, [&](Idx i) {
        Num dn = dLogit * em.load(wfc, {i, f});
        Num s = em.load(u, {e, 0, base + i});
        storeRow(inv * em.load(normScale, {f, i}) * dn - s * cubic, e,
                 base + i);
      });
    }
  });
  if (!io.needed(1) && !(normScale && io.needed(2)))
    return;
  Value wfcGrad = io.allocate(1, {width, focus});
  Value normGrad = normScale ? io.allocate(2, {focus, width}) : Value();
  for (int64_t f = 0; f < focus; ++f) {
    Idx base(f * width);
    em.parallelRange(0, width, [&](Idx i) {
      SmallVector<Num> init(normScale ? 2 : 1, Num(0.0));
      SmallVector<Num> sums = em.sumRange(0, edges, init, [&](Idx e) {
        Num s = em.load(u, {e, 0, base + i});
        Num dLogit = em.load(logitGrad, {e, f});
        if (!normScale)
          return SmallVector<Num>{s * dLogit};
        Num sInv = s * em.load(inverseRms, {e, f});
        return SmallVector<Num>{sInv * em.load(normScale, {f, i}) * dLogit,
                                sInv * dLogit * em.load(wfc, {i, f})};
      });
      em.store(sums[0], wfcGrad, {i, f});
      if (normScale)
        em.store(sums[1], normGrad, {f, i});
    });
  }
}

void sezm::emitKernel(FocusScaleOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value y = io.in(op.getY()), alpha = io.in(op.getAlpha());
  int64_t rows = staticDim(op.getY(), 1), channels = staticDim(op.getY(), 2);
  int64_t focus = staticDim(op.getAlpha(), 1), width = channels / focus;
  Idx edges = em.dim(y, 0);
  Value out = io.allocate(0, {edges, rows, channels});
  em.parallelRange(0, edges * Idx(rows * channels), [&](Idx flat) {
    Idx e = flat / Idx(rows * channels), j = flat / Idx(channels) % Idx(rows);
    Idx c = flat % Idx(channels);
    em.store(em.load(alpha, {e, c / Idx(width)}) * em.load(y, {e, j, c}), out,
             {e, j, c});
  });
}

void sezm::emitKernel(FocusScaleGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value grad = io.in(op.getGrad()), y = io.in(op.getY());
  Value alpha = io.in(op.getAlpha());
  int64_t rows = staticDim(op.getY(), 1), channels = staticDim(op.getY(), 2);
  int64_t focus = staticDim(op.getAlpha(), 1), width = channels / focus;
  Idx edges = em.dim(y, 0);
  Value yGrad = io.allocate(0, {edges, rows, channels});
  Value alphaGrad = io.allocate(1, {edges, focus});
  em.parallelRange(0, edges * Idx(rows * channels), [&](Idx flat) {
    Idx e = flat / Idx(rows * channels), j = flat / Idx(channels) % Idx(rows);
    Idx c = flat % Idx(channels);
    em.store(em.load(alpha, {e, c / Idx(width)}) * em.load(grad, {e, j, c}),
             yGrad, {e, j, c});
  });
  em.parallelRange(0, edges * Idx(focus), [&](Idx flat) {
    Idx e = flat / Idx(focus), f = flat % Idx(focus);
    Num sum = em.sumRange(0, width, [&](Idx cf) {
      Idx c = f * Idx(width) + cf;
      std::optional<Num> rowSum;
      for (int64_t j = 0; j < rows; ++j) {
        Num term = em.load(grad, {e, Idx(j), c}) * em.load(y, {e, Idx(j), c});
        rowSum = rowSum ? *rowSum + term : term;
      }
      return rowSum ? *rowSum : Num(0.0);
    });
    em.store(sum, alphaGrad, {e, f});
  });
}

/// One thread per (node, output channel): its packed rows' sums run over the
/// input channels in order, so that stores are coalesced across threads and
/// every backend adds in the same order.
void sezm::emitKernel(DegreeLinearOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value x = io.in(op.getX()), w = io.in(op.getW());
  int64_t rows = staticDim(op.getX(), 1), in = staticDim(op.getX(), 2);
  int64_t out = staticDim(op.getResult(), 2);
  bool transposed = op.getTransposed();
  Idx nodes = em.dim(x, 0);
  Value result = io.allocate(0, {nodes, rows, out});
  em.parallelRange(0, nodes * Idx(out), [&](Idx i) {
    Idx n = i / Idx(out), co = i % Idx(out);
    for (int64_t d = 0; d < rows; ++d) {
      Idx l(SO2Layout::degreeOfPacked(d));
      Num sum = em.sumRange(0, in, [&](Idx ci) {
        Num weight =
            transposed ? em.load(w, {l, co, ci}) : em.load(w, {l, ci, co});
        return em.load(x, {n, Idx(d), ci}) * weight;
      });
      em.store(sum, result, {n, Idx(d), co});
    }
  });
}

void sezm::emitKernel(DegreeLinearWeightGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value grad = io.in(op.getGrad()), x = io.in(op.getX());
  SO2Layout layout = layoutOf(op);
  int64_t in = staticDim(op.getX(), 2), out = staticDim(op.getGrad(), 2);
  int64_t degrees = layout.lmax + 1;
  bool transposed = op.getTransposed();
  Idx nodes = em.dim(x, 0);
  Value result = transposed ? io.allocate(0, {Idx(degrees), Idx(out), Idx(in)})
                            : io.allocate(0, {Idx(degrees), Idx(in), Idx(out)});
  // One entry per iteration, its sum over nodes (and the rows of its
  // degree) in order.
  for (int64_t l = 0; l < degrees; ++l)
    em.parallelRange(0, Idx(in * out), [&](Idx i) {
      Idx ci = i / Idx(out), co = i % Idx(out);
      Num sum = em.sumRange(0, nodes, [&](Idx n) {
        std::optional<Num> rows;
        for (int64_t d = l * l; d < (l + 1) * (l + 1); ++d) {
          Num term =
              em.load(x, {n, Idx(d), ci}) * em.load(grad, {n, Idx(d), co});
          rows = rows ? *rows + term : term;
        }
        return *rows;
      });
      if (transposed)
        em.store(sum, result, {Idx(l), co, ci});
      else
        em.store(sum, result, {Idx(l), ci, co});
    });
}
