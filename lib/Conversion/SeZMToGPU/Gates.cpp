//===- Gates.cpp - gate and gate_grad: the logits as GEMMs ----------------===//
//
// A gate's logits are a product over rows: per edge and focus stream, the
// l = 0 row (Cf) times gw (Cf x lmax*Cf). The loop kernel gave each output
// channel one thread summing its own Cf terms, re-reading the row and the
// weights for every channel; here the logits come from the tiled GEMM
// (with the sigmoid as its epilogue) and the gating is one elementwise
// launch. gate_grad's l = 0 row needs every gate's d logit times gw's
// transpose, the same GEMM again, with the SiLU's gradient as its epilogue.
// Each logit and each path is summed over its terms in the order of the
// loop kernel.
//
//===----------------------------------------------------------------------===//

#include "Microkernels.h"

#include "KernelBuilder/KernelIO.h"
#include "SeZM/Dialect/SeZM/SO2Layout.h"

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

namespace mlir::sezm::microkernels {
namespace {
/// Threads per block of the elementwise launches.
constexpr int64_t kGateThreads = 256;

/// The shapes a gate's GEMMs take: static rows and channels, streams wide
/// enough for the GEMM's columns.
bool gateShapesTaken(Value z, int64_t lmax, int64_t focus) {
  auto type = cast<RankedTensorType>(z.getType());
  if (type.isDynamicDim(1) || type.isDynamicDim(2) ||
      type.getDimSize(2) % focus != 0 || lmax < 1)
    return false;
  int64_t width = type.getDimSize(2) / focus;
  return gemmTakesColumns(width) && gemmTakesColumns(lmax * width);
}

/// The tiles of the logits' product (a stream's lmax * Cf gates wide).
GemmTiles logitTiles(Value z, int64_t lmax, int64_t focus) {
  int64_t width = cast<RankedTensorType>(z.getType()).getDimSize(2) / focus;
  return chooseGemmTiles(lmax * width);
}

/// Every gate of every edge and stream, sigmoid(z[e, 0, f] gw[f]), into a
/// scratch (E, F, lmax*Cf).
Value gateValues(KernelIO &io, StringRef name, Value z, Value gw, int64_t focus,
                 int64_t width, int64_t gates, KernelConfigAttr config) {
  Emitter &em = io.emitter();
  Idx edges = em.dim(z, 0);
  Value values =
      io.scratch({ShapedType::kDynamic, focus, gates}, {edges, focus, gates});
  auto placeA = [&](Idx f, Idx e, Idx k) -> SmallVector<Idx> {
    return {e, Idx(0), f * Idx(width) + k};
  };
  auto placeB = [&](Idx f, Idx k, Idx n) -> SmallVector<Idx> {
    return {f, k, n};
  };
  auto storeC = [&](Idx f, Idx e, Idx n, Num logit) {
    em.store(sigmoid(logit), values, {e, f, n});
  };
  emitTiledGemm(em, (name + "_logits").str(),
                GemmProblem{edges,
                            focus,
                            width,
                            gates,
                            {z, placeA},
                            {gw, placeB},
                            /*loadInit=*/nullptr,
                            storeC},
                config, /*product=*/0);
  return values;
}

/// One thread per (edge, stream, stream channel): body(e, f, cf).
void forEachEdgeStreamChannel(StringRef name, Idx edges, int64_t focus,
                              int64_t width,
                              llvm::function_ref<void(Idx, Idx, Idx)> body) {
  Emitter &em = edges.getEmitter();
  Idx count = edges * Idx(focus * width);
  em.launchKernel(name, {ceilDiv(count, kGateThreads), Idx(1), Idx(1)},
                  {Idx(kGateThreads), Idx(1), Idx(1)}, {},
                  [&](const LaunchIds &ids) {
                    Idx flat = ids.block[0] * Idx(kGateThreads) + ids.thread[0];
                    em.ifThen(flat < count, [&] {
                      body(flat / Idx(focus * width),
                           flat / Idx(width) % Idx(focus), flat % Idx(width));
                    });
                  });
}
} // namespace

bool gateApplies(GateOp op) {
  return gateShapesTaken(op.getZ(), op.getLmax(), op.getFocus());
}

ProductTiles gateTiles(GateOp op) {
  return {logitTiles(op.getZ(), op.getLmax(), op.getFocus())};
}

void emitGate(GateOp op, KernelIO &io, KernelConfigAttr config) {
  Emitter &em = io.emitter();
  int64_t lmax = op.getLmax(), focus = op.getFocus();
  int64_t channels = cast<RankedTensorType>(op.getZ().getType()).getDimSize(2);
  int64_t width = channels / focus, gates = lmax * width;
  Value z = io.in(op.getZ()), gw = io.in(op.getGw());
  Value acc = op.getAcc() ? io.in(op.getAcc()) : Value();
  Idx edges = em.dim(z, 0);
  Value out = io.allocate(0, {edges, Idx(3 * lmax + 1), Idx(channels)});
  StringRef name = config.getKernel().getValue();
  Value values = gateValues(io, name, z, gw, focus, width, gates, config);
  auto storeOut = [&](Num value, std::array<Idx, 3> at) {
    em.storeAdded(value, acc, out, at);
  };
  forEachEdgeStreamChannel(
      name, edges, focus, width, [&](Idx e, Idx f, Idx cf) {
        Idx c = f * Idx(width) + cf;
        Num zs = em.load(z, {e, Idx(0), c});
        storeOut(zs * sigmoid(zs), {e, Idx(0), c});
        for (int64_t l = 1; l <= lmax; ++l) {
          Num gate = em.load(values, {e, f, Idx((l - 1) * width) + cf});
          for (int64_t row : SO2Layout{lmax}.reducedRowsOfDegree(l))
            storeOut(em.load(z, {e, Idx(row), c}) * gate, {e, Idx(row), c});
        }
      });
}

/// The input gradient alone: gw's gradient, a sum over every edge, is
/// training's and stays a loop kernel.
bool gateGradApplies(GateGradOp op) {
  return op.getGwGrad().use_empty() &&
         gateShapesTaken(op.getZ(), op.getLmax(), op.getFocus());
}

/// The logits' product again, then the l = 0 row's (Cf columns).
ProductTiles gateGradTiles(GateGradOp op) {
  auto type = cast<RankedTensorType>(op.getZ().getType());
  return {logitTiles(op.getZ(), op.getLmax(), op.getFocus()),
          chooseGemmTiles(type.getDimSize(2) / op.getFocus())};
}

void emitGateGrad(GateGradOp op, KernelIO &io, KernelConfigAttr config) {
  Emitter &em = io.emitter();
  int64_t lmax = op.getLmax(), focus = op.getFocus();
  int64_t channels = cast<RankedTensorType>(op.getZ().getType()).getDimSize(2);
  int64_t width = channels / focus, gates = lmax * width;
  Value grad = io.in(op.getGrad()), z = io.in(op.getZ());
  Value gw = io.in(op.getGw());
  Idx edges = em.dim(z, 0);
  Value zGrad = io.allocate(0, {edges, Idx(3 * lmax + 1), Idx(channels)});
  StringRef name = config.getKernel().getValue();
  Value values = gateValues(io, name, z, gw, focus, width, gates, config);
  // The rows of degree l >= 1, and d logit of every gate.
  Value logitGrad =
      io.scratch({ShapedType::kDynamic, focus, gates}, {edges, focus, gates});
  forEachEdgeStreamChannel(
      (name + "_rows").str(), edges, focus, width, [&](Idx e, Idx f, Idx cf) {
        Idx c = f * Idx(width) + cf;
        for (int64_t l = 1; l <= lmax; ++l) {
          Idx k = Idx((l - 1) * width) + cf;
          Num gate = em.load(values, {e, f, k});
          std::optional<Num> gateGrad;
          for (int64_t row : SO2Layout{lmax}.reducedRowsOfDegree(l)) {
            Num g = em.load(grad, {e, Idx(row), c});
            em.store(g * gate, zGrad, {e, Idx(row), c});
            Num term = g * em.load(z, {e, Idx(row), c});
            gateGrad = gateGrad ? *gateGrad + term : term;
          }
          em.store(*gateGrad * gate * (Num(1.0) - gate), logitGrad, {e, f, k});
        }
      });
  // The l = 0 row: the SiLU's gradient plus sum_k d logit_k gw[f, i, k],
  // gw read as (F, gates, Cf) rows that the GEMM stages contiguously.
  Value gwt = assembleWeights(io, (name + "_weights").str(), focus, gates,
                              width, [&](Idx f, Idx k, Idx i) {
                                return em.load(gw, {f, i, k});
                              });
  auto placeA = [&](Idx f, Idx e, Idx k) -> SmallVector<Idx> {
    return {e, f, k};
  };
  auto placeB = [&](Idx f, Idx k, Idx i) -> SmallVector<Idx> {
    return {f, k, i};
  };
  auto storeC = [&](Idx f, Idx e, Idx i, Num gatePath) {
    Idx c = f * Idx(width) + i;
    Num zs = em.load(z, {e, Idx(0), c});
    Num sig = sigmoid(zs);
    Num silu = em.load(grad, {e, Idx(0), c}) * sig *
               (Num(1.0) + zs * (Num(1.0) - sig));
    em.store(silu + gatePath, zGrad, {e, Idx(0), c});
  };
  emitTiledGemm(em, (name + "_zero_row").str(),
                GemmProblem{edges,
                            focus,
                            gates,
                            width,
                            {logitGrad, placeA},
                            {gwt, placeB},
                            /*loadInit=*/nullptr,
                            storeC},
                config, /*product=*/1);
}

} // namespace mlir::sezm::microkernels
