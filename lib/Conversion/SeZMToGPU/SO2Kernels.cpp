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
#include "mlir/Dialect/Func/IR/FuncOps.h"
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
/// (coalesced across lanes). Where the channels fill the warp twice, a lane
/// takes two neighbouring channels per pass as one 8-byte access: half the
/// load and store instructions, and the edge's entries loaded once for both.
void emitRotateMix(RotateMixOp op, KernelIO &io) {
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  Value x = io.in(op.getX()), src = io.in(op.getSrc());
  Value wigner = io.in(op.getWigner());
  RadialMixer mixer = mixerOf(op, io);
  int64_t channels = channelsOf(op.getX());
  // A two-channel group must not straddle two focus streams.
  int64_t streams = static_cast<int64_t>(op.getFocusMajor().value_or(1));
  int64_t width =
      channels % (2 * kWarpSize) == 0 && (channels / streams) % 2 == 0 ? 2 : 1;
  Idx edges = dim(src, 0);
  Value out = allocateEdgeRows(io, 0, edges, layout.reducedRows(), channels,
                               op.getFocusMajor());
  launchKernel("rotate_mix", {ceilDiv(edges, kWarpsPerBlock), Idx(1), Idx(1)},
               {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)}, {},
               [&](const LaunchIds &ids) {
                 Idx e = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
                 Idx lane = ids.thread[0];
                 ifThen(e < edges, [&] {
                   Idx s = loadIndex(src, {e});
                   EdgeRotation rotation(layout, wigner, e);
                   RadialMixer::Edge edge = mixer.atEdge(e);
                   int64_t step = width * kWarpSize;
                   for (int64_t part = 0; part < channels / step; ++part) {
                     Idx first = lane * Idx(width) + Idx(part * step);
                     std::vector<std::vector<Num>> rows =
                         loadRowGroups(x, s, layout.packedRows(), first, width);
                     for (int64_t k = 0; k < width; ++k)
                       rows[k] = mixer.mix(
                           edge, mixer.atChannel(edge, first + Idx(k)),
                           rotation.toEdgeFrame(rows[k]));
                     storeRowGroups(rows, out, e, first);
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
      "segment_reduce", {ceilDiv(row, kBlockThreads), nodes, Idx(1)},
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

/// The block's warps take turns over the node's segment, one lane per
/// channel, in one pass per 32 channels: each pass sums the node gradient
/// of its channels in registers (the warps' sums added in warp order at the
/// end), and spreads each per-edge Wigner-D and kernel gradient, summed over
/// the warp's channels, over the lanes (31 shuffles per 32 sums), where its
/// lane stores it, adding the earlier passes' sum, which the same lane
/// stored. One channel per lane keeps the registers few enough for many
/// warps per multiprocessor. The per-edge node gradient never exists.
void emitRotateMixGradReduce(RotateMixGradReduceOp op, KernelIO &io) {
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  Value grad = io.in(op.getGrad()), x = io.in(op.getX());
  Value src = io.in(op.getSrc()), wigner = io.in(op.getWigner());
  Value order = io.in(op.getSrcOrder()), rowptr = io.in(op.getSrcRowptr());
  RadialMixer mixer = mixerOf(op, io);
  int64_t channels = channelsOf(op.getX()), rows = layout.packedRows();
  int64_t reduced = layout.reducedRows(), passes = channels / kWarpSize;
  Idx edges = dim(src, 0), nodes = dim(rowptr, 0) - 1;
  Value xGrad = io.allocate(0, {nodes, rows, channels});
  Value wignerGrad = io.allocate(1, {edges, rows, rows});
  auto kcType = cast<RankedTensorType>(op.getKc().getType());
  SmallVector<Idx> kcExtents{edges};
  for (int64_t size : kcType.getShape().drop_front())
    kcExtents.push_back(Idx(size));
  Value kcGrad = io.allocate(2, kcExtents);
  // The entries a rotation does not keep have zero gradient: a driver
  // memset at copy speed sets them (and all others) first.
  gpu::MemsetOp::create(EmitScope::current().builder, EmitScope::current().loc,
                        /*asyncToken=*/Type(), ValueRange(), wignerGrad,
                        Num(0.0));
  // The kept Wigner-D entries (reduced row j, packed row, column d); their
  // gradient sums come first among the per-edge sums, the kernel's after.
  SmallVector<int64_t> entryReduced, entryRow, entryColumn;
  forEachKeptEntry(layout, [&](int64_t j, int64_t d) {
    entryReduced.push_back(j);
    entryRow.push_back(layout.packedRowOfReduced(j));
    entryColumn.push_back(d);
  });
  int64_t entries = entryRow.size();
  int64_t sums = entries + mixer.numKernelSums(), rank = mixer.rank();

  launchKernel(
      "rotate_mix_grad_reduce", {nodes, Idx(1), Idx(1)},
      {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)},
      {SmallVector<int64_t>{kWarpsPerBlock, passes * rows, kWarpSize}},
      [&](const LaunchIds &ids) {
        Idx n = ids.block[0], warp = ids.thread[1], lane = ids.thread[0];
        Value shares = ids.workgroup[0];
        OpBuilder &builder = EmitScope::current().builder;
        Location loc = EmitScope::current().loc;
        auto both = [&](Value a, Value b) {
          return arith::AndIOp::create(builder, loc, a, b).getResult();
        };
        Value one = arith::ConstantIntOp::create(builder, loc, 1, 1);
        for (int64_t pass = 0; pass < passes; ++pass) {
          Idx c = lane + Idx(pass * kWarpSize);
          // Every edge of the segment leaves node n (the CSR contract, which
          // the runtime checks on host inputs): its rows load once.
          std::vector<Num> packed = loadRows(x, n, rows, c);
          SmallVector<Num> zero(rows, Num(0.0));
          SmallVector<Num> nodeGrad = foldRangeStep(
              loadIndex(rowptr, {n}) + warp, loadIndex(rowptr, {n + 1}),
              Idx(kWarpsPerBlock), zero, [&](Idx t, ArrayRef<Num> carried) {
                Idx e = loadIndex(order, {t});
                RadialMixer::Edge edge = mixer.atEdge(e);
                // The gradient in the edge frame first, so that the kernel
                // coefficients die; then one pass over the Wigner-D entries,
                // each loaded where it serves both the rotation of x and the
                // node gradient, which adds onto the carried sums.
                std::vector<Num> g = loadRows(grad, e, reduced, c);
                std::vector<Num> basis = mixer.atChannel(edge, c);
                std::vector<Num> gl = mixer.mixTransposed(edge, basis, g);
                SmallVector<std::optional<Num>> xlSums(reduced);
                SmallVector<Num> node(carried.begin(), carried.end());
                Value matrix = edgeView(wigner, e);
                for (int64_t k = 0; k < entries; ++k) {
                  Num w = load(matrix, {Idx(entryRow[k]), Idx(entryColumn[k])});
                  std::optional<Num> &sum = xlSums[entryReduced[k]];
                  Num product = w * packed[entryColumn[k]];
                  sum = sum ? *sum + product : product;
                  node[entryColumn[k]] =
                      node[entryColumn[k]] + w * gl[entryReduced[k]];
                }
                std::vector<Num> xl;
                for (std::optional<Num> &sum : xlSums)
                  xl.push_back(*sum);
                if (!edge.kernel)
                  mixer.storeFreeKernelGrad(g, xl, kcGrad, e, c);
                // The per-edge sums over the warp's channels, made as the
                // reduction consumes them: the Wigner-D entries
                // gl[j] * x[d], then the kernel's basis-weighted products.
                SpreadSums spread = warpSumSpread(
                    sums,
                    [&](int64_t k) {
                      if (k < entries)
                        return gl[entryReduced[k]] * packed[entryColumn[k]];
                      return basis[(k - entries) % rank] *
                             edge.kernel->kernelProduct((k - entries) / rank, g,
                                                        xl);
                    },
                    lane);
                for (auto [r, sum] : llvm::enumerate(spread.sums)) {
                  // A lambda cannot capture a structured binding in C++17.
                  Num total = sum;
                  Idx index = spread.index[r];
                  Value isEntry = index < Idx(entries);
                  // Each store adds what the same lane stored for the
                  // earlier passes.
                  auto accumulate = [&](Value buffer, ArrayRef<Idx> at) {
                    Num value = total;
                    if (pass > 0)
                      value = load(buffer, at) + value;
                    store(value, buffer, at);
                  };
                  int64_t first = r * kWarpSize;
                  if (first < entries)
                    ifThen(both(spread.owner[r], isEntry), [&] {
                      accumulate(wignerGrad, {e, lookup(index, entryRow),
                                              lookup(index, entryColumn)});
                    });
                  if (first + kWarpSize > entries && edge.kernel) {
                    Value isKernel =
                        arith::XOrIOp::create(builder, loc, isEntry, one);
                    ifThen(both(spread.owner[r], isKernel), [&] {
                      accumulate(kcGrad, {e, index - Idx(entries)});
                    });
                  }
                }
                return node;
              });
          for (int64_t d = 0; d < rows; ++d)
            store(nodeGrad[d], shares, {warp, Idx(pass * rows + d), lane});
        }
        barrier();
        ifThen(arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                     warp, Idx(0)),
               [&] {
                 for (int64_t pass = 0; pass < passes; ++pass)
                   for (int64_t d = 0; d < rows; ++d) {
                     Idx k(pass * rows + d);
                     Num total = load(shares, {Idx(0), k, lane});
                     for (int64_t w = 1; w < kWarpsPerBlock; ++w)
                       total = total + load(shares, {Idx(w), k, lane});
                     store(total, xGrad,
                           {n, Idx(d), lane + Idx(pass * kWarpSize)});
                   }
               });
      });
}
} // namespace

namespace {
/// Threads of the one block that sums a whole tensor.
constexpr int64_t kSumThreads = 1024;

/// The sum of every thread's `partial` in a block of kSumThreads, added in
/// a fixed tree through `shares` (workgroup memory): in shares[0] for
/// thread 0 after the call.
void sumBlock(Idx t, Value shares, Num partial) {
  store(partial, shares, {t});
  for (int64_t stride = kSumThreads / 2; stride > 0; stride /= 2) {
    barrier();
    ifThen(t < Idx(stride), [&] {
      store(load(shares, {t}) + load(shares, {t + Idx(stride)}), shares, {t});
    });
  }
}

Value isThreadZero(Idx t) {
  return arith::CmpIOp::create(EmitScope::current().builder,
                               EmitScope::current().loc,
                               arith::CmpIPredicate::eq, t, Idx(0));
}

/// `linalg.reduce` of every dimension with an addf body (an energy summed
/// over atoms and features) as one block: each thread adds the elements
/// t, t + 1024, ... in order, then the block's partial sums are added in a
/// fixed tree through workgroup memory, and thread 0 adds the init value.
/// Deterministic, and no host loop over device memory.
struct LowerFullSum : OpRewritePattern<linalg::ReduceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::ReduceOp op,
                                PatternRewriter &rewriter) const override {
    if (op.getInputs().size() != 1 || !op->getParentOfType<func::FuncOp>())
      return failure();
    auto inputType = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
    auto initType = dyn_cast<RankedTensorType>(op.getInits()[0].getType());
    if (!inputType || !initType || initType.getRank() != 0 ||
        inputType.getRank() == 0 ||
        static_cast<int64_t>(op.getDimensions().size()) !=
            inputType.getRank() ||
        !isa<FloatType>(inputType.getElementType()))
      return rewriter.notifyMatchFailure(op, "not a full sum to a scalar");
    Block &body = op.getCombiner().front();
    auto add = dyn_cast<arith::AddFOp>(body.front());
    if (body.getOperations().size() != 2 || !add ||
        !llvm::is_contained(add->getOperands(), body.getArgument(0)) ||
        !llvm::is_contained(add->getOperands(), body.getArgument(1)))
      return rewriter.notifyMatchFailure(op, "the combiner is not one addf");
    return lowerWithKernel(op, rewriter, [&](KernelIO &io) {
      OpBuilder &b = EmitScope::current().builder;
      Location loc = EmitScope::current().loc;
      Value input = io.in(op.getInputs()[0]), init = io.in(op.getInits()[0]);
      ReassociationIndices all;
      for (int64_t axis = 0; axis < inputType.getRank(); ++axis)
        all.push_back(axis);
      Value flat =
          inputType.getRank() == 1
              ? input
              : memref::CollapseShapeOp::create(
                    b, loc, input, SmallVector<ReassociationIndices>{all})
                    .getResult();
      Idx count = dim(flat, 0);
      Value out = io.allocate(0, {});
      launchKernel("full_sum", {Idx(1), Idx(1), Idx(1)},
                   {Idx(kSumThreads), Idx(1), Idx(1)},
                   {SmallVector<int64_t>{kSumThreads}},
                   [&](const LaunchIds &ids) {
                     Idx t = ids.thread[0];
                     Value shares = ids.workgroup[0];
                     SmallVector<Num> partial = foldRangeStep(
                         t, count, Idx(kSumThreads), {Num(0.0)},
                         [&](Idx i, ArrayRef<Num> sum) {
                           return SmallVector<Num>{sum[0] + load(flat, {i})};
                         });
                     sumBlock(t, shares, partial[0]);
                     ifThen(isThreadZero(t), [&] {
                       store(load(init, {}) + load(shares, {Idx(0)}), out, {});
                     });
                   });
    });
  }
};

/// Outputs of a matmul small enough for one block each.
constexpr int64_t kSmallMatmulOutputs = 64;

/// `linalg.matmul` with a small static output and a long dynamic reduction
/// (the virial, g^T v over all edges) as one block per output element: the
/// loop kernel gave each output one thread and a serial sum over E, about
/// 0.15 s at E = 645k and an fp32 error growing with E. Each thread adds
/// k = t, t + 1024, ... in order, then the block's tree; deterministic.
struct LowerLongMatmul : OpRewritePattern<linalg::MatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::MatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!op->getParentOfType<func::FuncOp>() || op.hasUserDefinedMaps() ||
        !op.hasPureTensorSemantics())
      return failure();
    auto lhsType = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
    auto outType = dyn_cast<RankedTensorType>(op.getOutputs()[0].getType());
    if (!lhsType || !outType || !outType.hasStaticShape() ||
        outType.getNumElements() > kSmallMatmulOutputs ||
        !lhsType.isDynamicDim(1) || !isa<FloatType>(outType.getElementType()))
      return rewriter.notifyMatchFailure(
          op, "not a small output over a dynamic reduction");
    int64_t columns = outType.getDimSize(1);
    return lowerWithKernel(op, rewriter, [&](KernelIO &io) {
      Value lhs = io.in(op.getInputs()[0]), rhs = io.in(op.getInputs()[1]);
      Value init = io.in(op.getOutputs()[0]);
      Idx depth = dim(lhs, 1);
      Value out = io.allocate(0, {});
      launchKernel(
          "long_matmul", {Idx(outType.getNumElements()), Idx(1), Idx(1)},
          {Idx(kSumThreads), Idx(1), Idx(1)},
          {SmallVector<int64_t>{kSumThreads}}, [&](const LaunchIds &ids) {
            Idx t = ids.thread[0];
            Idx row = ids.block[0] / Idx(columns);
            Idx column = ids.block[0] % Idx(columns);
            SmallVector<Num> partial = foldRangeStep(
                t, depth, Idx(kSumThreads), {Num(0.0)},
                [&](Idx k, ArrayRef<Num> sum) {
                  return SmallVector<Num>{sum[0] + load(lhs, {row, k}) *
                                                       load(rhs, {k, column})};
                });
            sumBlock(t, ids.workgroup[0], partial[0]);
            ifThen(isThreadZero(t), [&] {
              store(load(init, {row, column}) +
                        load(ids.workgroup[0], {Idx(0)}),
                    out, {row, column});
            });
          });
    });
  }
};

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
      EmitScope::current().contract = true;
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
             LowerToGpuKernel<RotateMixGradReduceOp>, LowerFullSum,
             LowerLongMatmul>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
