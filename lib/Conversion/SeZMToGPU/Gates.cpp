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
// SiLU's gradient as its epilogue. Where a lane can hold its columns of gw,
// the warps stay resident and take edges a grid apart, the weights loaded
// once instead of once per product. Each logit and each path is summed over
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
/// stream's channels in order; the body's rowAt(i) is loadRow(e, c, i), for
/// i < rowCount. With `resident`, each warp loads the columns of gw its
/// lanes use into registers once and then takes edges a grid apart, where a
/// warp per edge loads a weight for every product; and it loads each edge's
/// rows one trip ahead, while the edge before is gated, where a warp per
/// edge (32 registers) loads each as the body asks.
void forEachEdgeGates(
    Emitter &em, StringRef name, int64_t blocksPerSm, bool resident, Value z,
    Value gw, int64_t lmax, int64_t focus, int64_t width, int64_t rowCount,
    llvm::function_ref<Num(Idx, Idx, int64_t)> loadRow,
    llvm::function_ref<void(Idx, int64_t, Idx, Num, ArrayRef<Num>,
                            llvm::function_ref<Num(int64_t)>)>
        body) {
  const int64_t passes = width / kWarpSize;
  Idx edges = em.dim(z, 0);
  Idx blocks = ceilDiv(edges, kWarpsPerBlock);
  if (resident)
    blocks = min(blocks, Idx(kGateResidentBlocks));
  em.launchKernel(
      name, {blocks, Idx(1), Idx(1)},
      {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)}, {},
      [&](const LaunchIds &ids) {
        Idx lane = ids.thread[0];
        auto column = [&](int64_t p, int64_t l) {
          return Idx((l - 1) * width + p * kWarpSize) + lane;
        };
        // held[((f * width + k) * passes + p) * lmax + l - 1].
        SmallVector<Num> held;
        if (resident)
          for (int64_t f = 0; f < focus; ++f)
            for (int64_t k = 0; k < width; ++k)
              for (int64_t p = 0; p < passes; ++p)
                for (int64_t l = 1; l <= lmax; ++l)
                  held.push_back(em.load(gw, {Idx(f), Idx(k), column(p, l)}));
        auto weight = [&](int64_t f, int64_t k, int64_t p, int64_t l) {
          if (resident)
            return held[((f * width + k) * passes + p) * lmax + l - 1];
          return em.load(gw, {Idx(f), Idx(k), column(p, l)});
        };
        auto channel = [&](int64_t f, int64_t p) {
          return Idx(f * width + p * kWarpSize) + lane;
        };
        // What a resident warp loads ahead for an edge: per stream and pass,
        // the l = 0 row, then loadRow's rows.
        const int64_t perPass = 1 + rowCount;
        auto loadEdge = [&](Idx e) {
          SmallVector<Num> loaded;
          for (int64_t f = 0; f < focus; ++f)
            for (int64_t p = 0; p < passes; ++p) {
              loaded.push_back(em.load(z, {e, Idx(0), channel(f, p)}));
              for (int64_t i = 0; i < rowCount; ++i)
                loaded.push_back(loadRow(e, channel(f, p), i));
            }
          return loaded;
        };
        // `loaded` is loadEdge(e) for a resident warp, empty for a warp per
        // edge, which loads as it goes.
        auto gateEdge = [&](Idx e, ArrayRef<Num> loaded) {
          for (int64_t f = 0; f < focus; ++f) {
            auto at = [&](int64_t p, int64_t i) {
              return loaded[(f * passes + p) * perPass + i];
            };
            SmallVector<Num> row;
            for (int64_t p = 0; p < passes; ++p)
              row.push_back(resident ? at(p, 0)
                                     : em.load(z, {e, Idx(0), channel(f, p)}));
            // logits[p * lmax + l - 1]: the lane's channel of pass p, each
            // from zero as the loop kernel's (so the first product, too, is
            // an FMA's: fma(z0, w0, 0), then fma(z1, w1, ...)).
            SmallVector<Num> logits(passes * lmax, Num(0.0));
            for (int64_t k = 0; k < width; ++k) {
              Num zk = em.shuffleFrom(row[k / kWarpSize], k % kWarpSize);
              for (int64_t p = 0; p < passes; ++p)
                for (int64_t l = 1; l <= lmax; ++l) {
                  Num &sum = logits[p * lmax + l - 1];
                  sum = sum + zk * weight(f, k, p, l);
                }
            }
            for (int64_t p = 0; p < passes; ++p) {
              SmallVector<Num> gates;
              for (int64_t l = 1; l <= lmax; ++l)
                gates.push_back(sigmoid(logits[p * lmax + l - 1]));
              body(e, f, channel(f, p), row[p], gates, [&](int64_t i) {
                return resident ? at(p, 1 + i) : loadRow(e, channel(f, p), i);
              });
            }
          }
        };
        Idx warp = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
        if (!resident) {
          em.ifThen(warp < edges, [&] { gateEdge(warp, {}); });
          return;
        }
        // A software pipeline: the next edge's rows are in flight while
        // this one's logits are summed (the last edge's reloaded past the
        // end: a block runs only where there is an edge).
        Idx stride = blocks * Idx(kWarpsPerBlock), last = edges - Idx(1);
        em.foldRangeStep(warp, edges, stride, loadEdge(min(warp, last)),
                         [&](Idx e, ArrayRef<Num> loaded) {
                           SmallVector<Num> next =
                               loadEdge(min(e + stride, last));
                           gateEdge(e, loaded);
                           return next;
                         });
      },
      blocksPerSm);
}

/// Whether a warp's lanes can hold the columns of gw they use: focus *
/// (Cf / 32) * lmax * Cf words a lane.
bool gateWeightsFitLanes(Value z, int64_t lmax, int64_t focus) {
  int64_t width = cast<RankedTensorType>(z.getType()).getDimSize(2) / focus;
  return focus * (width / kWarpSize) * lmax * width <= kGateHeldWeightsPerLane;
}

void emitGateKernel(GateOp op, KernelIO &io, KernelConfigAttr config,
                    bool resident) {
  Emitter &em = io.emitter();
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  int64_t focus = op.getFocus();
  int64_t channels = cast<RankedTensorType>(op.getZ().getType()).getDimSize(2);
  Value z = io.in(op.getZ()), gw = io.in(op.getGw());
  Value acc = op.getAcc() ? io.in(op.getAcc()) : Value();
  Value out =
      io.allocate(0, {em.dim(z, 0), Idx(layout.reducedRows()), Idx(channels)});
  // The gated rows' values, then (with acc) every row's addend.
  SmallVector<int64_t> gated;
  for (int64_t l = 1; l <= layout.lmax; ++l)
    llvm::append_range(gated, layout.reducedRowsOfDegree(l));
  int64_t values = gated.size();
  auto loadRow = [&](Idx e, Idx c, int64_t i) {
    if (i < values)
      return em.load(z, {e, Idx(gated[i]), c});
    return em.load(acc, {e, Idx(i == values ? 0 : gated[i - values - 1]), c});
  };
  forEachEdgeGates(em, config.getKernel().getValue(), config.getBlocksPerSm(),
                   resident, z, gw, layout.lmax, focus, channels / focus,
                   acc ? 2 * values + 1 : values, loadRow,
                   [&](Idx e, int64_t, Idx c, Num zs, ArrayRef<Num> gates,
                       llvm::function_ref<Num(int64_t)> rowAt) {
                     auto store = [&](Num value, int64_t addend, int64_t row) {
                       em.store(acc ? rowAt(values + addend) + value : value,
                                out, {e, Idx(row), c});
                     };
                     store(zs * sigmoid(zs), 0, 0);
                     for (auto [i, row] : llvm::enumerate(gated))
                       store(rowAt(i) * gates[layout.degreeOfReduced(row) - 1],
                             i + 1, row);
                   });
}

} // namespace

bool gateApplies(GateOp op) {
  return gateShapesTaken(op.getZ(), op.getLmax(), op.getFocus()) &&
         !gateWeightsFitLanes(op.getZ(), op.getLmax(), op.getFocus());
}

void emitGate(GateOp op, KernelIO &io, KernelConfigAttr config) {
  emitGateKernel(op, io, config, /*resident=*/false);
}

bool residentGateApplies(GateOp op) {
  return gateShapesTaken(op.getZ(), op.getLmax(), op.getFocus()) &&
         gateWeightsFitLanes(op.getZ(), op.getLmax(), op.getFocus());
}

void emitResidentGate(GateOp op, KernelIO &io, KernelConfigAttr config) {
  emitGateKernel(op, io, config, /*resident=*/true);
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
  int64_t width = type.getDimSize(2) / op.getFocus();
  // The l = 0 row is a per-edge product lmax * width deep, which streams
  // where it is shallow (DPA4-Mini's 64 x 32), as the matmuls over edges do.
  if (gemmStreams(op.getLmax() * width, width))
    return {chooseGemmTilesForStreaming(width)};
  return {chooseGemmTiles(op.getLmax() * width, width)};
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
  // A degree's three rows (m = 0, -1, +1), each its gradient and value.
  constexpr int64_t kLoadsPerDegree = 6;
  // The warp kernel asks what the forward gate's does (resident where the
  // lanes hold gw); the configuration's blocks per multiprocessor are the
  // l = 0 row's GEMM's.
  bool resident = gateWeightsFitLanes(op.getZ(), lmax, focus);
  forEachEdgeGates(
      em, name, resident ? kGateResidentBlocksPerSm : kGateWarpBlocksPerSm,
      resident, z, gw, lmax, focus, width,
      /*rowCount=*/kLoadsPerDegree * lmax,
      [&](Idx e, Idx c, int64_t i) {
        // Each row of degree >= 1's gradient, then its value.
        int64_t l = i / kLoadsPerDegree + 1;
        int64_t row = layout.reducedRowsOfDegree(l)[i % kLoadsPerDegree / 2];
        return em.load(i % 2 ? z : grad, {e, Idx(row), c});
      },
      [&](Idx e, int64_t f, Idx c, Num, ArrayRef<Num> gateValues,
          llvm::function_ref<Num(int64_t)> rowAt) {
        Idx cf = c - Idx(f * width);
        int64_t next = 0;
        for (int64_t l = 1; l <= lmax; ++l) {
          Num gate = gateValues[l - 1];
          std::optional<Num> gateGrad;
          for (int64_t row : layout.reducedRowsOfDegree(l)) {
            Num g = rowAt(next++);
            em.store(g * gate, zGrad, {e, Idx(row), c});
            Num term = g * rowAt(next++);
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
  emitTiledGemm(io, (name + "_zero_row").str(),
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
