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
/// Threads per block the schedules aim for.
constexpr int64_t kBlockThreads = 128;
/// Workgroup memory a block may use without opting in to more.
constexpr int64_t kWorkgroupBytes = 48 * 1024;

int64_t channelsOf(Value tensor) {
  return cast<RankedTensorType>(tensor.getType()).getDimSize(2);
}

/// The degree kernel of one edge: coefficients for rank >= 1, or the
/// mixer-free radial rows of one channel.
struct EdgeMixer {
  SO2Layout layout;
  int64_t rank;
  Value kc, cb;

  std::optional<DegreeKernel> atEdge(Idx e) const {
    if (rank == 0)
      return std::nullopt;
    return DegreeKernel(layout, rank, kc, cb, e);
  }
  std::vector<Num> channel(const std::optional<DegreeKernel> &kernel, Idx e,
                           Idx c) const {
    if (kernel)
      return kernel->effective(c);
    return loadRows(kc, e, layout.lmax + 1, c);
  }
  std::vector<Num> mix(const std::optional<DegreeKernel> &kernel,
                       ArrayRef<Num> channelRows, ArrayRef<Num> xl) const {
    return kernel ? kernel->mix(channelRows, xl)
                  : mixFree(layout, channelRows, xl);
  }
  std::vector<Num> mixTransposed(const std::optional<DegreeKernel> &kernel,
                                 ArrayRef<Num> channelRows,
                                 ArrayRef<Num> g) const {
    return kernel ? kernel->mixTransposed(channelRows, g)
                  : mixFree(layout, channelRows, g);
  }
};

//===----------------------------------------------------------------------===//
// rotate_mix: one thread per (edge, channel)
//===----------------------------------------------------------------------===//

/// Warps per block of the warp-per-edge and warp-per-node schedules.
constexpr int64_t kWarpsPerBlock = 4;

/// rotate_mix with one warp per edge, each lane owning channels lane,
/// lane + 32, ...: the edge's Wigner-D non-zeros and degree kernel are
/// loaded once per lane for all of its channels.
void emitRotateMixByWarp(RotateMixOp op, KernelIO &io) {
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  Value x = io.in(op.getX()), src = io.in(op.getSrc());
  Value wigner = io.in(op.getWigner());
  EdgeMixer mixer{layout, static_cast<int64_t>(op.getRank()),
                  io.in(op.getKc()), op.getCb() ? io.in(op.getCb()) : Value()};
  int64_t channels = channelsOf(op.getX());
  Idx edges = dim(src, 0);
  Value out = io.allocate(0, {edges, layout.reducedRows(), channels});
  launchKernel({ceilDiv(edges, kWarpsPerBlock), Idx(1), Idx(1)},
               {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)}, {},
               [&](const LaunchIds &ids) {
                 Idx e = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
                 Idx lane = ids.thread[0];
                 ifThen(e < edges, [&] {
                   Idx s = loadIndex(src, {e});
                   EdgeRotation rotation(layout, wigner, e);
                   std::optional<DegreeKernel> kernel = mixer.atEdge(e);
                   for (int64_t part = 0; part < channels / kWarpSize; ++part) {
                     Idx c = lane + Idx(part * kWarpSize);
                     std::vector<Num> xl = rotation.toEdgeFrame(
                         loadRows(x, s, layout.packedRows(), c));
                     storeRows(
                         mixer.mix(kernel, mixer.channel(kernel, e, c), xl),
                         out, e, c);
                   }
                 });
               });
}

void emitRotateMix(RotateMixOp op, KernelIO &io) {
  if (channelsOf(op.getX()) % kWarpSize == 0)
    return emitRotateMixByWarp(op, io);
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  Value x = io.in(op.getX()), src = io.in(op.getSrc());
  Value wigner = io.in(op.getWigner());
  EdgeMixer mixer{layout, static_cast<int64_t>(op.getRank()),
                  io.in(op.getKc()), op.getCb() ? io.in(op.getCb()) : Value()};
  int64_t channels = channelsOf(op.getX());
  int64_t edgesPerBlock = std::max<int64_t>(1, kBlockThreads / channels);
  Idx edges = dim(src, 0);
  Value out = io.allocate(0, {edges, layout.reducedRows(), channels});
  launchKernel({ceilDiv(edges, edgesPerBlock), Idx(1), Idx(1)},
               {Idx(channels), Idx(edgesPerBlock), Idx(1)}, {},
               [&](const LaunchIds &ids) {
                 Idx e = ids.block[0] * Idx(edgesPerBlock) + ids.thread[1];
                 Idx c = ids.thread[0];
                 ifThen(e < edges, [&] {
                   Idx s = loadIndex(src, {e});
                   EdgeRotation rotation(layout, wigner, e);
                   std::optional<DegreeKernel> kernel = mixer.atEdge(e);
                   std::vector<Num> packed =
                       loadRows(x, s, layout.packedRows(), c);
                   std::vector<Num> xl = rotation.toEdgeFrame(packed);
                   storeRows(mixer.mix(kernel, mixer.channel(kernel, e, c), xl),
                             out, e, c);
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
    SmallVector<ReassociationIndices> into = {{0, 1}};
    int64_t leading = type.getDimSize(0);
    auto flat = MemRefType::get({leading, 1}, type.getElementType());
    SmallVector<OpFoldResult> shape = {
        ShapedType::isDynamic(leading) ? OpFoldResult(dim(buffer, 0).value)
                                       : b.getIndexAttr(leading),
        b.getIndexAttr(1)};
    return memref::ExpandShapeOp::create(b, loc, flat, buffer, into, shape);
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
  launchKernel({ceilDiv(row, kBlockThreads), nodes, Idx(1)},
               {Idx(kBlockThreads), Idx(1), Idx(1)}, {},
               [&](const LaunchIds &ids) {
                 Idx p = ids.block[0] * Idx(kBlockThreads) + ids.thread[0];
                 Idx n = ids.block[1];
                 ifThen(p < row, [&] {
                   Num sum = sumRange(
                       loadIndex(rowptr, {n}), loadIndex(rowptr, {n + 1}),
                       [&](Idx t) {
                         return load(flatValues, {loadIndex(order, {t}), p});
                       });
                   store(sum, flatOut, {n, p});
                 });
               });
}

//===----------------------------------------------------------------------===//
// rotate_mix_grad_reduce: one block per source node, one thread per channel
//===----------------------------------------------------------------------===//

/// The per-edge sums over channels of the fused backward: the kept Wigner-D
/// entries, then the compact kernel coefficients (rank >= 1).
int64_t edgeSums(SO2Layout layout, int64_t rank) {
  int64_t kept = 1;
  for (int64_t l = 1; l <= layout.lmax; ++l)
    kept += 3 * (2 * l + 1);
  return kept + (rank > 0 ? layout.compactKernelSize() * rank : 0);
}

/// rotate_mix_grad_reduce with one block per source node, its warps taking
/// turns over the node's segment and each lane owning channels lane,
/// lane + 32, ...: the node gradient is summed in registers and the warps'
/// sums are added in warp order; each per-edge sum over channels is a warp
/// butterfly, whose result lane k % 32 stores.
void emitRotateMixGradReduceByWarp(RotateMixGradReduceOp op, KernelIO &io) {
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  int64_t rank = op.getRank();
  Value grad = io.in(op.getGrad()), x = io.in(op.getX());
  Value src = io.in(op.getSrc()), wigner = io.in(op.getWigner());
  Value order = io.in(op.getSrcOrder()), rowptr = io.in(op.getSrcRowptr());
  EdgeMixer mixer{layout, rank, io.in(op.getKc()),
                  op.getCb() ? io.in(op.getCb()) : Value()};
  int64_t channels = channelsOf(op.getX()), rows = layout.packedRows();
  int64_t parts = channels / kWarpSize;
  Idx edges = dim(src, 0), nodes = dim(rowptr, 0) - 1;
  Value xGrad = io.allocate(0, {nodes, rows, channels});
  Value wignerGrad = io.allocate(1, {edges, rows, rows});
  auto kcType = cast<RankedTensorType>(op.getKc().getType());
  SmallVector<Idx> kcExtents{edges};
  for (int64_t size : kcType.getShape().drop_front())
    kcExtents.push_back(Idx(size));
  Value kcGrad = io.allocate(2, kcExtents);
  fillZero(wignerGrad);

  // One block per node; its warps take every kWarpsPerBlock-th edge of the
  // segment and their register sums are added in warp order at the end.
  int64_t perWarp = rows * parts;
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
          std::optional<DegreeKernel> kernel = mixer.atEdge(e);
          SmallVector<Num> partials, nodeRows;
          for (int64_t part = 0; part < parts; ++part) {
            Idx c = lane + Idx(part * kWarpSize);
            std::vector<Num> packed = loadRows(x, s, rows, c);
            std::vector<Num> xl = rotation.toEdgeFrame(packed);
            std::vector<Num> g = loadRows(grad, e, layout.reducedRows(), c);
            std::vector<Num> channelRows = mixer.channel(kernel, e, c);
            std::vector<Num> gl = mixer.mixTransposed(kernel, channelRows, g);
            SmallVector<Num> terms;
            rotation.forEachEntry([&](int64_t j, int64_t d) {
              terms.push_back(gl[j] * packed[d]);
            });
            if (kernel) {
              std::vector<Num> products = kernel->kernelProducts(g, xl);
              for (Num product : products)
                for (int64_t r = 0; r < rank; ++r)
                  terms.push_back(load(mixer.cb, {Idx(r), c}) * product);
            } else {
              std::vector<std::optional<Num>> perDegree(layout.lmax + 1);
              for (int64_t j = 0; j < layout.reducedRows(); ++j) {
                Num term = g[j] * xl[j];
                std::optional<Num> &sum = perDegree[layout.degreeOfReduced(j)];
                sum = sum ? *sum + term : term;
              }
              for (auto [l, sum] : llvm::enumerate(perDegree))
                store(*sum, kcGrad, {e, Idx(static_cast<int64_t>(l)), c});
            }
            if (partials.empty())
              partials = terms;
            else
              for (auto [partial, term] : llvm::zip(partials, terms))
                partial = partial + term;
            llvm::append_range(nodeRows, rotation.fromEdgeFrame(gl));
          }
          // Each per-edge sum over the warp's channels, stored by one lane.
          int64_t k = 0;
          auto reduceInto = [&](Value target, SmallVector<Idx> at) {
            Num total = warpSum(partials[k]);
            ifThen(arith::CmpIOp::create(EmitScope::current().builder,
                                         EmitScope::current().loc,
                                         arith::CmpIPredicate::eq, lane,
                                         Idx(k % kWarpSize)),
                   [&] { store(total, target, at); });
            ++k;
          };
          rotation.forEachEntry([&](int64_t j, int64_t d) {
            reduceInto(wignerGrad,
                       {e, Idx(layout.packedRowOfReduced(j)), Idx(d)});
          });
          if (kernel)
            for (int64_t index = 0; index < layout.compactKernelSize() * rank;
                 ++index)
              reduceInto(kcGrad, {e, Idx(index)});
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

bool fitsWorkgroup(RotateMixGradReduceOp op) {
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  int64_t channels = channelsOf(op.getX());
  int64_t bytes = edgeSums(layout, op.getRank()) * channels *
                  (computeType(op).getWidth() / 8);
  return channels <= 1024 && bytes <= kWorkgroupBytes;
}

void emitRotateMixGradReduce(RotateMixGradReduceOp op, KernelIO &io) {
  if (channelsOf(op.getX()) % kWarpSize == 0)
    return emitRotateMixGradReduceByWarp(op, io);
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  int64_t rank = op.getRank();
  Value grad = io.in(op.getGrad()), x = io.in(op.getX());
  Value src = io.in(op.getSrc()), wigner = io.in(op.getWigner());
  Value order = io.in(op.getSrcOrder()), rowptr = io.in(op.getSrcRowptr());
  EdgeMixer mixer{layout, rank, io.in(op.getKc()),
                  op.getCb() ? io.in(op.getCb()) : Value()};
  int64_t channels = channelsOf(op.getX()), rows = layout.packedRows();
  int64_t sums = edgeSums(layout, rank);
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
      {nodes, Idx(1), Idx(1)}, {Idx(channels), Idx(1), Idx(1)},
      {SmallVector<int64_t>{sums, channels}}, [&](const LaunchIds &ids) {
        Idx n = ids.block[0], c = ids.thread[0];
        Value partial = ids.workgroup[0];
        SmallVector<Num> zero(rows, Num(0.0));
        SmallVector<Num> nodeGrad = sumRange(
            loadIndex(rowptr, {n}), loadIndex(rowptr, {n + 1}), zero,
            [&](Idx t) {
              Idx e = loadIndex(order, {t});
              Idx s = loadIndex(src, {e});
              EdgeRotation rotation(layout, wigner, e);
              std::optional<DegreeKernel> kernel = mixer.atEdge(e);
              std::vector<Num> packed = loadRows(x, s, rows, c);
              std::vector<Num> xl = rotation.toEdgeFrame(packed);
              std::vector<Num> g = loadRows(grad, e, layout.reducedRows(), c);
              std::vector<Num> channelRows = mixer.channel(kernel, e, c);
              std::vector<Num> gl = mixer.mixTransposed(kernel, channelRows, g);

              // This channel's share of each per-edge sum.
              SmallVector<Num> terms;
              rotation.forEachEntry(
                  [&](int64_t j, int64_t d) { terms.push_back(gl[j] * packed[d]); });
              if (kernel) {
                std::vector<Num> products = kernel->kernelProducts(g, xl);
                for (Num product : products)
                  for (int64_t r = 0; r < rank; ++r)
                    terms.push_back(load(mixer.cb, {Idx(r), c}) * product);
              } else {
                std::vector<std::optional<Num>> perDegree(layout.lmax + 1);
                for (int64_t j = 0; j < layout.reducedRows(); ++j) {
                  Num term = g[j] * xl[j];
                  std::optional<Num> &sum =
                      perDegree[layout.degreeOfReduced(j)];
                  sum = sum ? *sum + term : term;
                }
                for (auto [l, sum] : llvm::enumerate(perDegree))
                  store(*sum, kcGrad, {e, Idx(static_cast<int64_t>(l)), c});
              }
              for (auto [k, term] : llvm::enumerate(terms))
                store(term, partial, {Idx(static_cast<int64_t>(k)), c});
              barrier();
              // Each sum over channels is made by one thread, in channel
              // order, and stored where the loop kernel would store it.
              int64_t k = 0;
              auto reduceInto = [&](Value target, SmallVector<Idx> at) {
                ifThen(arith::CmpIOp::create(
                           EmitScope::current().builder,
                           EmitScope::current().loc, arith::CmpIPredicate::eq,
                           c, Idx(k % channels)),
                       [&] {
                         Idx row(k);
                         store(sumRange(0, channels,
                                        [&](Idx lane) {
                                          return load(partial, {row, lane});
                                        }),
                               target, at);
                       });
                ++k;
              };
              rotation.forEachEntry([&](int64_t j, int64_t d) {
                reduceInto(wignerGrad,
                           {e, Idx(layout.packedRowOfReduced(j)), Idx(d)});
              });
              if (kernel)
                for (int64_t index = 0;
                     index < layout.compactKernelSize() * rank; ++index)
                  reduceInto(kcGrad, {e, Idx(index)});
              // The next edge reuses the partial sums.
              barrier();
              std::vector<Num> rowsOfEdge = rotation.fromEdgeFrame(gl);
              return SmallVector<Num>(rowsOfEdge.begin(), rowsOfEdge.end());
            });
        for (int64_t d = 0; d < rows; ++d)
          store(nodeGrad[d], xGrad, {n, Idx(d), c});
      });
}
} // namespace

namespace {
template <typename OpTy>
struct LowerToGpuKernel : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if constexpr (std::is_same_v<OpTy, RotateMixGradReduceOp>)
      if (channelsOf(op.getX()) % kWarpSize != 0 && !fitsWorkgroup(op))
        return rewriter.notifyMatchFailure(op, "per-edge sums too large");
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
    patterns.add<LowerToGpuKernel<RotateMixOp>,
                 LowerToGpuKernel<SegmentReduceOp>,
                 LowerToGpuKernel<RotateMixGradReduceOp>>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
