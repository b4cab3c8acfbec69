//===- SO2Kernels.cpp - hand-scheduled GPU kernels of the SO(2) path ------===//
//
// The kernel schedules of rotate_mix, segment_reduce and the fused backward
// rotate_mix_grad_reduce: threads over channels (or row elements), so that
// every load and store of a per-edge or per-node row is coalesced, and
// per-edge data (the Wigner-D's structural non-zeros, the degree kernel) is
// loaded once per thread from the same addresses, which the cache broadcasts.
// The per-(edge, channel) math is that of the loop kernels (SO2Math.h).
//
//===----------------------------------------------------------------------===//

#include "SeZM/Conversion/Passes.h"

#include "KernelBuilder/KernelIO.h"
#include "KernelBuilder/SO2Math.h"
#include "SeZM/Dialect/SeZM/SO2Layout.h"
#include "SeZM/Dialect/SeZM/SeZMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_CONVERTSEZMTOGPUKERNELS
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

namespace {
/// Threads per block of the per-row schedules.
constexpr int64_t kBlockThreads = 128;
/// Warps per block of the warp schedules.
constexpr int64_t kWarpsPerBlock = 4;

int64_t channelsOf(Value tensor) {
  return cast<RankedTensorType>(tensor.getType()).getDimSize(2);
}

/// The warp schedules give each lane the channels lane, lane + 32, ...
bool channelsFillWarps(Value x) { return channelsOf(x) % kWarpSize == 0; }

template <typename OpTy> RadialMixer mixerOf(OpTy op, KernelIO &io) {
  return RadialMixer(SO2Layout{static_cast<int64_t>(op.getLmax())},
                     op.getRank(), io.in(op.getKc()),
                     op.getCb() ? io.in(op.getCb()) : Value());
}

//===----------------------------------------------------------------------===//
// rotate_mix: one warp per edge
//===----------------------------------------------------------------------===//

/// Each lane loads the edge's Wigner-D non-zeros and degree kernel once for
/// all of its channels (the same addresses across the warp: one broadcast
/// transaction each) and gathers, rotates, mixes and stores its channels
/// (coalesced across lanes).
void emitRotateMix(RotateMixOp op, KernelIO &io) {
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  Value x = io.in(op.getX()), src = io.in(op.getSrc());
  Value wigner = io.in(op.getWigner());
  RadialMixer mixer = mixerOf(op, io);
  int64_t channels = channelsOf(op.getX());
  Idx edges = dim(src, 0);
  Value out = io.allocate(0, {edges, layout.reducedRows(), channels});
  launchKernel(
      {ceilDiv(edges, kWarpsPerBlock), Idx(1), Idx(1)},
      {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)}, {},
      [&](const LaunchIds &ids) {
        Idx e = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
        Idx lane = ids.thread[0];
        ifThen(e < edges, [&] {
          Idx s = loadIndex(src, {e});
          EdgeRotation rotation(layout, wigner, e);
          RadialMixer::Edge edge = mixer.atEdge(e);
          for (int64_t part = 0; part < channels / kWarpSize; ++part) {
            Idx c = lane + Idx(part * kWarpSize);
            std::vector<Num> xl =
                rotation.toEdgeFrame(loadRows(x, s, layout.packedRows(), c));
            storeRows(mixer.mix(edge, mixer.atChannel(edge, c), xl), out, e, c);
          }
        });
      });
}

//===----------------------------------------------------------------------===//
// segment_reduce: one thread per (node, row element), the sum in a register
//===----------------------------------------------------------------------===//

/// A row-major view of a buffer as (leading, row) elements.
Value flattenRows(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 2)
    return buffer;
  OpBuilder &b = EmitScope::current().builder;
  Location loc = EmitScope::current().loc;
  if (type.getRank() == 1) {
    int64_t leading = type.getDimSize(0);
    auto flat = MemRefType::get({leading, 1}, type.getElementType());
    SmallVector<OpFoldResult> shape = {ShapedType::isDynamic(leading)
                                           ? OpFoldResult(dim(buffer, 0).value)
                                           : b.getIndexAttr(leading),
                                       b.getIndexAttr(1)};
    return memref::ExpandShapeOp::create(
        b, loc, flat, buffer, SmallVector<ReassociationIndices>{{0, 1}}, shape);
  }
  ReassociationIndices rest;
  for (int64_t axis = 1; axis < type.getRank(); ++axis)
    rest.push_back(axis);
  return memref::CollapseShapeOp::create(
      b, loc, buffer, SmallVector<ReassociationIndices>{{0}, rest});
}

void emitSegmentReduce(SegmentReduceOp op, KernelIO &io) {
  Value values = io.in(op.getValues());
  Value order = io.in(op.getOrder()), rowptr = io.in(op.getRowptr());
  Idx nodes = dim(rowptr, 0) - 1;
  auto type = cast<RankedTensorType>(op.getResult().getType());
  SmallVector<Idx> extents{nodes};
  for (int64_t axis = 1; axis < type.getRank(); ++axis)
    extents.push_back(dim(values, axis));
  Value out = io.allocate(0, extents);
  Value flatValues = flattenRows(values), flatOut = flattenRows(out);
  Idx row = dim(flatValues, 1);
  launchKernel(
      {ceilDiv(row, kBlockThreads), nodes, Idx(1)},
      {Idx(kBlockThreads), Idx(1), Idx(1)}, {}, [&](const LaunchIds &ids) {
        Idx p = ids.block[0] * Idx(kBlockThreads) + ids.thread[0];
        Idx n = ids.block[1];
        ifThen(p < row, [&] {
          Num sum = sumRange(
              loadIndex(rowptr, {n}), loadIndex(rowptr, {n + 1}), [&](Idx t) {
                return load(flatValues, {loadIndex(order, {t}), p});
              });
          store(sum, flatOut, {n, p});
        });
      });
}

//===----------------------------------------------------------------------===//
// rotate_mix_grad_reduce: one block per source node
//===----------------------------------------------------------------------===//

/// The block's warps take turns over the node's segment, each lane owning
/// channels lane, lane + 32, ...: the node gradient is summed in registers
/// and the warps' sums are added in warp order at the end; each per-edge
/// Wigner-D and kernel gradient is summed over channels by a warp butterfly
/// and stored by one lane. The per-edge node gradient never exists.
void emitRotateMixGradReduce(RotateMixGradReduceOp op, KernelIO &io) {
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  Value grad = io.in(op.getGrad()), x = io.in(op.getX());
  Value src = io.in(op.getSrc()), wigner = io.in(op.getWigner());
  Value order = io.in(op.getSrcOrder()), rowptr = io.in(op.getSrcRowptr());
  RadialMixer mixer = mixerOf(op, io);
  int64_t channels = channelsOf(op.getX()), rows = layout.packedRows();
  int64_t parts = channels / kWarpSize, perWarp = rows * parts;
  Idx edges = dim(src, 0), nodes = dim(rowptr, 0) - 1;
  Value xGrad = io.allocate(0, {nodes, rows, channels});
  Value wignerGrad = io.allocate(1, {edges, rows, rows});
  auto kcType = cast<RankedTensorType>(op.getKc().getType());
  SmallVector<Idx> kcExtents{edges};
  for (int64_t size : kcType.getShape().drop_front())
    kcExtents.push_back(Idx(size));
  Value kcGrad = io.allocate(2, kcExtents);
  fillZero(wignerGrad);

  launchKernel(
      {nodes, Idx(1), Idx(1)}, {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)},
      {SmallVector<int64_t>{kWarpsPerBlock, perWarp, kWarpSize}},
      [&](const LaunchIds &ids) {
        Idx n = ids.block[0], warp = ids.thread[1], lane = ids.thread[0];
        Value shares = ids.workgroup[0];
        SmallVector<Num> zero(perWarp, Num(0.0));
        SmallVector<Num> nodeGrad = sumRangeStep(
            loadIndex(rowptr, {n}) + warp, loadIndex(rowptr, {n + 1}),
            Idx(kWarpsPerBlock), zero, [&](Idx t) {
              Idx e = loadIndex(order, {t});
              Idx s = loadIndex(src, {e});
              EdgeRotation rotation(layout, wigner, e);
              RadialMixer::Edge edge = mixer.atEdge(e);
              SmallVector<Num> partials, nodeRows;
              for (int64_t part = 0; part < parts; ++part) {
                Idx c = lane + Idx(part * kWarpSize);
                std::vector<Num> packed = loadRows(x, s, rows, c);
                std::vector<Num> xl = rotation.toEdgeFrame(packed);
                std::vector<Num> g = loadRows(grad, e, layout.reducedRows(), c);
                std::vector<Num> gl =
                    mixer.mixTransposed(edge, mixer.atChannel(edge, c), g);
                SmallVector<Num> terms;
                rotation.appendGradientTerms(gl, packed, terms);
                if (edge.kernel)
                  llvm::append_range(terms,
                                     mixer.kernelGradTerms(edge, c, g, xl));
                else
                  mixer.storeFreeKernelGrad(g, xl, kcGrad, e, c);
                if (partials.empty())
                  partials = terms;
                else
                  for (auto [partial, term] : llvm::zip(partials, terms))
                    partial = partial + term;
                llvm::append_range(nodeRows, rotation.fromEdgeFrame(gl));
              }
              // Each per-edge sum over the warp's channels, stored by one
              // lane: the Wigner-D entries, then the kernel coefficients.
              SmallVector<Num> totals;
              for (Num partial : partials)
                totals.push_back(warpSum(partial));
              auto storeBy = [&](int64_t k, llvm::function_ref<void()> body) {
                ifThen(arith::CmpIOp::create(EmitScope::current().builder,
                                             EmitScope::current().loc,
                                             arith::CmpIPredicate::eq, lane,
                                             Idx(k % kWarpSize)),
                       body);
              };
              int64_t k = 0;
              rotation.forEachEntry([&](int64_t j, int64_t d) {
                Num total = totals[k];
                storeBy(k++, [&] {
                  store(total, wignerGrad,
                        {e, Idx(layout.packedRowOfReduced(j)), Idx(d)});
                });
              });
              for (int64_t index = 0; k < static_cast<int64_t>(totals.size());
                   ++index) {
                Num total = totals[k];
                storeBy(k++, [&] { store(total, kcGrad, {e, Idx(index)}); });
              }
              return nodeRows;
            });
        for (int64_t k = 0; k < perWarp; ++k)
          store(nodeGrad[k], shares, {warp, Idx(k), lane});
        barrier();
        ifThen(arith::CmpIOp::create(EmitScope::current().builder,
                                     EmitScope::current().loc,
                                     arith::CmpIPredicate::eq, warp, Idx(0)),
               [&] {
                 for (int64_t part = 0; part < parts; ++part)
                   for (int64_t d = 0; d < rows; ++d) {
                     Idx k(part * rows + d);
                     Num total = load(shares, {Idx(0), k, lane});
                     for (int64_t w = 1; w < kWarpsPerBlock; ++w)
                       total = total + load(shares, {Idx(w), k, lane});
                     store(total, xGrad,
                           {n, Idx(d), lane + Idx(part * kWarpSize)});
                   }
               });
      });
}
} // namespace

namespace {
template <typename OpTy> struct LowerToGpuKernel : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if constexpr (!std::is_same_v<OpTy, SegmentReduceOp>)
      if (!channelsFillWarps(op.getX()))
        return rewriter.notifyMatchFailure(
            op, "channels are not a multiple of the warp size: the loop "
                "kernel runs instead");
    return lowerWithKernel(op, rewriter, [&](KernelIO &io) {
      if constexpr (std::is_same_v<OpTy, RotateMixOp>)
        emitRotateMix(op, io);
      else if constexpr (std::is_same_v<OpTy, SegmentReduceOp>)
        emitSegmentReduce(op, io);
      else
        emitRotateMixGradReduce(op, io);
    });
  }
};

struct ConvertSeZMToGPUKernelsPass
    : sezm::impl::ConvertSeZMToGPUKernelsBase<ConvertSeZMToGPUKernelsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns
        .add<LowerToGpuKernel<RotateMixOp>, LowerToGpuKernel<SegmentReduceOp>,
             LowerToGpuKernel<RotateMixGradReduceOp>>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
