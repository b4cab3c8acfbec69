//===- Gates.cpp - gate and gate_grad: one warp per edge ------------------===//
//
// A gate's logits are, per edge and focus stream, the l = 0 row (Cf) times
// gw (Cf x lmax*Cf): about 4 GFLOP for SeZM-min at 4096 atoms, where the
// gated rows are gigabytes. So one warp takes an edge: its lanes hold the
// stream's l = 0 row, hand it round by shuffles, and each lane sums the
// logits of its own channel at every degree, then gates that channel's
// rows, all of it between loading the rows and storing them: no gate goes
// through device memory, where a GEMM of the logits and an elementwise
// launch reading them back cost more (docs/performance.md, stop 51). gate_grad
// does the same for the rows of degree l >= 1 and each gate's d logit; its
// l = 0 row needs every d logit times gw's transpose, a GEMM, with the
// SiLU's gradient as its epilogue. Each logit and each path is summed over
// its terms in the order of the loop kernel.
//
//===----------------------------------------------------------------------===//

#include "Microkernels.h"
#include "WarpSchedules.h"

#include "KernelBuilder/KernelIO.h"
#include "SeZM/Dialect/SeZM/SO2Layout.h"

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

namespace mlir::sezm::microkernels {
namespace {
/// The shapes the warp kernel takes: static rows and channels, each stream
/// a whole number of warps wide.
bool gateShapesTaken(Value z, int64_t lmax, int64_t focus) {
  auto type = cast<RankedTensorType>(z.getType());
  if (type.isDynamicDim(1) || type.isDynamicDim(2) ||
      type.getDimSize(2) % focus != 0 || lmax < 1)
    return false;
  return (type.getDimSize(2) / focus) % kWarpSize == 0;
}

/// One warp per edge over every focus stream f of z (E, 3*lmax+1, F*Cf):
/// body(e, f, c, z[e, 0, c], gates) for each channel c of the stream that
/// the lane takes (Cf / 32 of them), gates[l - 1] = sigmoid(z[e, 0, f]
/// gw[f][:, (l-1)*Cf + c - f*Cf]) for l = 1..lmax, summed from zero over the
/// stream's channels in order.
void forEachEdgeGates(
    Emitter &em, StringRef name, int64_t blocksPerSm, Value z, Value gw,
    int64_t lmax, int64_t focus, int64_t width,
    llvm::function_ref<void(Idx, int64_t, Idx, Num, ArrayRef<Num>)> body) {
  const int64_t passes = width / kWarpSize;
  Idx edges = em.dim(z, 0);
  em.launchKernel(
      name, {ceilDiv(edges, kWarpsPerBlock), Idx(1), Idx(1)},
      {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)}, {},
      [&](const LaunchIds &ids) {
        Idx e = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
        Idx lane = ids.thread[0];
        em.ifThen(e < edges, [&] {
          for (int64_t f = 0; f < focus; ++f) {
            auto channel = [&](int64_t p) {
              return Idx(f * width + p * kWarpSize) + lane;
            };
            SmallVector<Num> row;
            for (int64_t p = 0; p < passes; ++p)
              row.push_back(em.load(z, {e, Idx(0), channel(p)}));
            // logits[p * lmax + l - 1]: the lane's channel of pass p, each
            // from zero as the loop kernel's (so the first product, too, is
            // an FMA's: fma(z0, w0, 0), then fma(z1, w1, ...)).
            SmallVector<Num> logits(passes * lmax, Num(0.0));
            for (int64_t k = 0; k < width; ++k) {
              Num zk = em.shuffleFrom(row[k / kWarpSize], k % kWarpSize);
              for (int64_t p = 0; p < passes; ++p)
                for (int64_t l = 1; l <= lmax; ++l) {
                  Idx n = Idx((l - 1) * width + p * kWarpSize) + lane;
                  Num &sum = logits[p * lmax + l - 1];
                  sum = sum + zk * em.load(gw, {Idx(f), Idx(k), n});
                }
            }
            for (int64_t p = 0; p < passes; ++p) {
              SmallVector<Num> gates;
              for (int64_t l = 1; l <= lmax; ++l)
                gates.push_back(sigmoid(logits[p * lmax + l - 1]));
              body(e, f, channel(p), row[p], gates);
            }
          }
        });
      },
      blocksPerSm);
}
} // namespace

bool gateApplies(GateOp op) {
  return gateShapesTaken(op.getZ(), op.getLmax(), op.getFocus());
}

void emitGate(GateOp op, KernelIO &io, KernelConfigAttr config) {
  Emitter &em = io.emitter();
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  int64_t focus = op.getFocus();
  int64_t channels = cast<RankedTensorType>(op.getZ().getType()).getDimSize(2);
  Value z = io.in(op.getZ()), gw = io.in(op.getGw());
  Value acc = op.getAcc() ? io.in(op.getAcc()) : Value();
  Value out =
      io.allocate(0, {em.dim(z, 0), Idx(layout.reducedRows()), Idx(channels)});
  forEachEdgeGates(em, config.getKernel().getValue(), config.getBlocksPerSm(),
                   z, gw, layout.lmax, focus, channels / focus,
                   [&](Idx e, int64_t, Idx c, Num zs, ArrayRef<Num> gates) {
                     em.storeAdded(zs * sigmoid(zs), acc, out, {e, Idx(0), c});
                     for (int64_t l = 1; l <= layout.lmax; ++l)
                       for (int64_t row : layout.reducedRowsOfDegree(l))
                         em.storeAdded(em.load(z, {e, Idx(row), c}) *
                                           gates[l - 1],
                                       acc, out, {e, Idx(row), c});
                   });
}

/// The input gradient alone: gw's gradient, a sum over every edge, is
/// training's and stays a loop kernel.
bool gateGradApplies(GateGradOp op) {
  return op.getGwGrad().use_empty() &&
         gateShapesTaken(op.getZ(), op.getLmax(), op.getFocus());
}

/// The l = 0 row's product (Cf columns).
ProductTiles gateGradTiles(GateGradOp op) {
  auto type = cast<RankedTensorType>(op.getZ().getType());
  return {chooseGemmTiles(type.getDimSize(2) / op.getFocus())};
}

void emitGateGrad(GateGradOp op, KernelIO &io, KernelConfigAttr config) {
  Emitter &em = io.emitter();
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  int64_t lmax = layout.lmax, focus = op.getFocus();
  int64_t channels = cast<RankedTensorType>(op.getZ().getType()).getDimSize(2);
  int64_t width = channels / focus, gates = lmax * width;
  Value grad = io.in(op.getGrad()), z = io.in(op.getZ());
  Value gw = io.in(op.getGw());
  Idx edges = em.dim(z, 0);
  Value zGrad =
      io.allocate(0, {edges, Idx(layout.reducedRows()), Idx(channels)});
  StringRef name = config.getKernel().getValue();
  // The rows of degree l >= 1, and d logit of every gate.
  Value logitGrad =
      io.scratch({ShapedType::kDynamic, focus, gates}, {edges, focus, gates});
  // The warp kernel asks what the forward gate's does; the configuration's
  // blocks per multiprocessor are the l = 0 row's GEMM's.
  forEachEdgeGates(em, name, kGateWarpBlocksPerSm, z, gw, lmax, focus, width,
                   [&](Idx e, int64_t f, Idx c, Num, ArrayRef<Num> gateValues) {
                     Idx cf = c - Idx(f * width);
                     for (int64_t l = 1; l <= lmax; ++l) {
                       Num gate = gateValues[l - 1];
                       std::optional<Num> gateGrad;
                       for (int64_t row : layout.reducedRowsOfDegree(l)) {
                         Num g = em.load(grad, {e, Idx(row), c});
                         em.store(g * gate, zGrad, {e, Idx(row), c});
                         Num term = g * em.load(z, {e, Idx(row), c});
                         gateGrad = gateGrad ? *gateGrad + term : term;
                       }
                       em.store(*gateGrad * gate * (Num(1.0) - gate), logitGrad,
                                {e, Idx(f), Idx((l - 1) * width) + cf});
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
                            {logitGrad, placeA, alignedGroup(logitGrad, gates)},
                            {gwt, placeB, alignedGroup(gwt, width)},
                            /*loadInit=*/nullptr,
                            storeC},
                config, /*product=*/0);
}

} // namespace mlir::sezm::microkernels
