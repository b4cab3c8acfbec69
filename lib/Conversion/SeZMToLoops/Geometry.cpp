//===- Geometry.cpp - CPU kernels of the edge geometry ops ----------------===//
//
// One loop over edges; the per-edge math (EdgeFrameMath.h) is emitted with
// Num for values and with Jet for edge-vector gradients.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"

#include "KernelBuilder/EdgeFrameMath.h"
#include "KernelBuilder/SO2Math.h"

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

namespace {
/// The three components of edge e, as values or as the three variables of a
/// Jet.
template <typename T> std::array<T, 3> loadEdgeVector(Value edgeVec, Idx e);

template <> std::array<Num, 3> loadEdgeVector<Num>(Value edgeVec, Idx e) {
  Emitter &em = e.getEmitter();
  return {em.load(edgeVec, {e, 0}), em.load(edgeVec, {e, 1}),
          em.load(edgeVec, {e, 2})};
}

template <> std::array<Jet, 3> loadEdgeVector<Jet>(Value edgeVec, Idx e) {
  Emitter &em = e.getEmitter();
  return {Jet::variable(em.load(edgeVec, {e, 0}), 0),
          Jet::variable(em.load(edgeVec, {e, 1}), 1),
          Jet::variable(em.load(edgeVec, {e, 2}), 2)};
}

template <typename T>
T edgeEnvelope(const std::array<T, 3> &v, double rcut, int64_t exponent) {
  T r = regularizedNorm(v[0], v[1], v[2]);
  return envelope(r / T(rcut), exponent);
}
} // namespace

void sezm::emitKernel(EdgeVectorsOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value positions = io.in(op.getPositions());
  Value src = io.in(op.getSrc()), dst = io.in(op.getDst());
  Value shift = op.getShift() ? io.in(op.getShift()) : Value();
  Idx edges = em.dim(src, 0);
  Value out = io.allocate(0, {edges, 3});
  em.parallelRange(0, edges, [&](Idx e) {
    Idx from = em.loadIndex(src, {e}), to = em.loadIndex(dst, {e});
    for (int64_t k = 0; k < 3; ++k) {
      Num v = em.load(positions, {from, k}) - em.load(positions, {to, k});
      if (shift)
        v = v + em.load(shift, {e, k});
      em.store(v, out, {e, k});
    }
  });
}

void sezm::emitKernel(EdgeVectorsGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value grad = io.in(op.getGrad());
  Value srcOrder = io.in(op.getSrcOrder()),
        srcRowptr = io.in(op.getSrcRowptr());
  Value dstOrder = io.in(op.getDstOrder()),
        dstRowptr = io.in(op.getDstRowptr());
  Idx nodes = em.dim(srcRowptr, 0) - 1;
  Value out = io.allocate(0, {nodes, 3});
  // Each node sums its source segment, then its destination segment: CSR
  // order, no atomics.
  auto segmentSum = [&](Value order, Value rowptr, Idx n, int64_t k) {
    return em.sumRange(em.loadIndex(rowptr, {n}), em.loadIndex(rowptr, {n + 1}),
                       [&](Idx t) {
                         return em.load(grad, {em.loadIndex(order, {t}), k});
                       });
  };
  em.parallelRange(0, nodes, [&](Idx n) {
    for (int64_t k = 0; k < 3; ++k)
      em.store(segmentSum(srcOrder, srcRowptr, n, k) -
                   segmentSum(dstOrder, dstRowptr, n, k),
               out, {n, k});
  });
}

void sezm::emitKernel(EnvelopeOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value edgeVec = io.in(op.getEdgeVec());
  double rcut = op.getRcut().convertToDouble();
  Idx edges = em.dim(edgeVec, 0);
  Value out = io.allocate(0, {edges});
  em.parallelRange(0, edges, [&](Idx e) {
    em.store(
        edgeEnvelope(loadEdgeVector<Num>(edgeVec, e), rcut, op.getExponent()),
        out, {e});
  });
}

void sezm::emitKernel(EnvelopeGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value edgeVec = io.in(op.getEdgeVec()), grad = io.in(op.getGrad());
  double rcut = op.getRcut().convertToDouble();
  Idx edges = em.dim(edgeVec, 0);
  Value out = io.allocate(0, {edges, 3});
  em.parallelRange(0, edges, [&](Idx e) {
    Jet env =
        edgeEnvelope(loadEdgeVector<Jet>(edgeVec, e), rcut, op.getExponent());
    Num g = em.load(grad, {e});
    for (int k = 0; k < 3; ++k)
      em.store(g * env.derivative(k), out, {e, k});
  });
}

namespace {
/// The frequencies of a radial basis op: its `freqs` operand's buffer, or
/// none for the initial ones.
template <typename OpTy> Value frequencyBuffer(OpTy op, KernelIO &io) {
  return op.getFreqs() ? io.in(op.getFreqs()) : Value();
}

/// Calls sink(k, rbf_k) for each radial basis function of one edge.
template <typename T>
void radialBasis(Emitter &em, const std::array<T, 3> &v, Value freqs,
                 double rcut, int64_t exponent, int64_t count,
                 llvm::function_ref<void(int64_t, T)> sink) {
  T r = regularizedNorm(v[0], v[1], v[2]);
  T env = envelope(r / T(rcut), exponent);
  for (int64_t k = 0; k < count; ++k) {
    T w = freqs ? T(em.load(freqs, {Idx(k)}))
                : T(initialBesselFrequency(k, rcut));
    sink(k, besselRadial(r, w, env));
  }
}
} // namespace

void sezm::emitKernel(RadialBasisOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value edgeVec = io.in(op.getEdgeVec()), freqs = frequencyBuffer(op, io);
  int64_t count = staticDim(op.getResult(), 1);
  Idx edges = em.dim(edgeVec, 0);
  Value out = io.allocate(0, {edges, count});
  em.parallelRange(0, edges, [&](Idx e) {
    radialBasis<Num>(em, loadEdgeVector<Num>(edgeVec, e), freqs,
                     op.getRcut().convertToDouble(), op.getExponent(), count,
                     [&](int64_t k, Num value) {
                       em.store(value, out, {e, k});
                     });
  });
}

void sezm::emitKernel(RadialBasisGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value edgeVec = io.in(op.getEdgeVec()), grad = io.in(op.getGrad());
  Value freqs = frequencyBuffer(op, io);
  int64_t count = staticDim(op.getGrad(), 1);
  Idx edges = em.dim(edgeVec, 0);
  Value out = io.allocate(0, {edges, 3});
  em.parallelRange(0, edges, [&](Idx e) {
    std::array<Num, 3> total = {Num(0.0), Num(0.0), Num(0.0)};
    radialBasis<Jet>(em, loadEdgeVector<Jet>(edgeVec, e), freqs,
                     op.getRcut().convertToDouble(), op.getExponent(), count,
                     [&](int64_t k, Jet value) {
                       Num g = em.load(grad, {e, k});
                       for (int j = 0; j < 3; ++j)
                         total[j] = total[j] + g * value.derivative(j);
                     });
    for (int j = 0; j < 3; ++j)
      em.store(total[j], out, {e, j});
  });
}

void sezm::emitKernel(WignerOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value edgeVec = io.in(op.getEdgeVec());
  SO2Layout layout = layoutOf(op);
  Idx edges = em.dim(edgeVec, 0);
  Value out = allocateWignerLike(io, 0, op.getResult(), edges);
  em.parallelRange(0, edges, [&](Idx e) {
    std::array<Num, 3> v = loadEdgeVector<Num>(edgeVec, e);
    Quaternion<Num> q = edgeQuaternion(v[0], v[1], v[2]);
    wignerBlocks<Num>(
        q, layout.lmax, [&](int64_t l, int64_t mp, int64_t m, Num value) {
          int64_t center = l * l + l;
          storeWignerEntry(layout, value, out, e, center + mp, center + m);
        });
  });
}

void sezm::emitKernel(WignerGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value edgeVec = io.in(op.getEdgeVec()), grad = io.in(op.getGrad());
  SO2Layout layout = layoutOf(op);
  Idx edges = em.dim(edgeVec, 0);
  Value out = io.allocate(0, {edges, 3});
  em.parallelRange(0, edges, [&](Idx e) {
    std::array<Jet, 3> v = loadEdgeVector<Jet>(edgeVec, e);
    Quaternion<Jet> q = edgeQuaternion(v[0], v[1], v[2]);
    std::array<Num, 3> total = {Num(0.0), Num(0.0), Num(0.0)};
    wignerBlocks<Jet>(
        q, layout.lmax, [&](int64_t l, int64_t mp, int64_t m, Jet value) {
          int64_t center = l * l + l;
          std::optional<Num> g =
              loadWignerEntry(layout, grad, e, center + mp, center + m);
          if (!g)
            return;
          for (int k = 0; k < 3; ++k)
            total[k] = total[k] + *g * value.derivative(k);
        });
    for (int k = 0; k < 3; ++k)
      em.store(total[k], out, {e, k});
  });
}

//===----------------------------------------------------------------------===//
// Second order (create-graph)
//===----------------------------------------------------------------------===//

namespace {
using Second = Dual<Jet>;

/// Edge e's vector as the Jet's three variables, moving along cot[e].
std::array<Second, 3> edgeVectorAlong(Value edgeVec, Value cot, Idx e) {
  Emitter &em = e.getEmitter();
  std::array<Second, 3> v = {Second(0.0), Second(0.0), Second(0.0)};
  for (int k = 0; k < 3; ++k)
    v[k] = Second(Jet::variable(em.load(edgeVec, {e, k}), k),
                  Jet(em.load(cot, {e, k})));
  return v;
}

/// Adds g * d(D_cot f)/dv to `total` and returns D_cot f, for one component
/// f of an edge function and its first-order cotangent g.
Num accumulateSecondOrder(const Second &f, Num g, std::array<Num, 3> &total) {
  Jet along = f.derivative();
  for (int j = 0; j < 3; ++j)
    total[j] = total[j] + g * along.derivative(j);
  return along.value;
}

void storeEdgeVector(const std::array<Num, 3> &v, Value out, Idx e) {
  Emitter &em = e.getEmitter();
  for (int j = 0; j < 3; ++j)
    em.store(v[j], out, {e, j});
}
} // namespace

void sezm::emitKernel(EnvelopeGradGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value edgeVec = io.in(op.getEdgeVec()), grad = io.in(op.getGrad());
  Value cot = io.in(op.getCot());
  Idx edges = em.dim(edgeVec, 0);
  Value gradCot = io.allocate(0, {edges});
  Value edgeVecGrad = io.allocate(1, {edges, 3});
  em.parallelRange(0, edges, [&](Idx e) {
    Second env = edgeEnvelope(edgeVectorAlong(edgeVec, cot, e),
                              op.getRcut().convertToDouble(), op.getExponent());
    std::array<Num, 3> total = {Num(0.0), Num(0.0), Num(0.0)};
    em.store(accumulateSecondOrder(env, em.load(grad, {e}), total), gradCot,
             {e});
    storeEdgeVector(total, edgeVecGrad, e);
  });
}

void sezm::emitKernel(RadialBasisGradGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value edgeVec = io.in(op.getEdgeVec()), grad = io.in(op.getGrad());
  Value cot = io.in(op.getCot()), freqs = frequencyBuffer(op, io);
  int64_t count = staticDim(op.getGrad(), 1);
  Idx edges = em.dim(edgeVec, 0);
  Value gradCot = io.allocate(0, {edges, Idx(count)});
  Value edgeVecGrad = io.allocate(1, {edges, 3});
  em.parallelRange(0, edges, [&](Idx e) {
    std::array<Num, 3> total = {Num(0.0), Num(0.0), Num(0.0)};
    radialBasis<Second>(
        em, edgeVectorAlong(edgeVec, cot, e), freqs,
        op.getRcut().convertToDouble(), op.getExponent(), count,
        [&](int64_t k, Second value) {
          em.store(accumulateSecondOrder(value, em.load(grad, {e, k}), total),
                   gradCot, {e, k});
        });
    storeEdgeVector(total, edgeVecGrad, e);
  });
}

void sezm::emitKernel(WignerGradGradOp op, KernelIO &io) {
  Emitter &em = io.emitter();
  Value edgeVec = io.in(op.getEdgeVec()), grad = io.in(op.getGrad());
  Value cot = io.in(op.getCot());
  SO2Layout layout = layoutOf(op);
  Idx edges = em.dim(edgeVec, 0);
  Value gradCot = allocateWignerLike(io, 0, op.getGrad(), edges);
  Value edgeVecGrad = io.allocate(1, {edges, 3});
  em.parallelRange(0, edges, [&](Idx e) {
    std::array<Second, 3> v = edgeVectorAlong(edgeVec, cot, e);
    Quaternion<Second> q = edgeQuaternion(v[0], v[1], v[2]);
    std::array<Num, 3> total = {Num(0.0), Num(0.0), Num(0.0)};
    wignerBlocks<Second>(
        q, layout.lmax, [&](int64_t l, int64_t mp, int64_t m, Second value) {
          int64_t row = l * l + l + mp, column = l * l + l + m;
          std::optional<Num> g = loadWignerEntry(layout, grad, e, row, column);
          if (!g)
            return;
          storeWignerEntry(layout, accumulateSecondOrder(value, *g, total),
                           gradCot, e, row, column);
        });
    storeEdgeVector(total, edgeVecGrad, e);
  });
}
