//===- DenseReductions.cpp - full sums, lane sums and long matmuls --------===//

#include "Microkernels.h"
#include "WarpSchedules.h"

#include "KernelBuilder/KernelIO.h"
#include "SeZM/Dialect/SeZM/FillValue.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {

namespace {
/// Threads of the one block that sums a whole tensor.
constexpr int64_t kSumThreads = 1024;

/// The sum of every thread's `partial` in a block of kSumThreads, added in
/// a fixed tree through `shares` (workgroup memory): in shares[0] for
/// thread 0 after the call.
void sumBlock(Idx t, Value shares, Num partial) {
  Emitter &em = t.getEmitter();
  em.store(partial, shares, {t});
  for (int64_t stride = kSumThreads / 2; stride > 0; stride /= 2) {
    em.barrier();
    em.ifThen(t < Idx(stride), [&] {
      em.store(em.load(shares, {t}) + em.load(shares, {t + Idx(stride)}),
               shares, {t});
    });
  }
}

Value isThreadZero(Idx t) { return equal(t, Idx(0)); }
} // namespace

/// Whether `op` sums every element of one float tensor into a scalar with
/// an addf combiner.
bool isFullSum(linalg::ReduceOp op) {
  if (op.getInputs().size() != 1)
    return false;
  auto inputType = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
  auto initType = dyn_cast<RankedTensorType>(op.getInits()[0].getType());
  if (!inputType || !initType || initType.getRank() != 0 ||
      inputType.getRank() == 0 ||
      static_cast<int64_t>(op.getDimensions().size()) != inputType.getRank() ||
      !isa<FloatType>(inputType.getElementType()))
    return false;
  Block &body = op.getCombiner().front();
  auto add = dyn_cast<arith::AddFOp>(body.front());
  return body.getOperations().size() == 2 && add &&
         llvm::is_contained(add->getOperands(), body.getArgument(0)) &&
         llvm::is_contained(add->getOperands(), body.getArgument(1));
}

/// A full sum (isFullSum: an energy summed over atoms and features) as one
/// block: each thread adds the elements t, t + 1024, ... in order, then the
/// block's partial sums are added in a fixed tree through workgroup memory,
/// and thread 0 adds the init value. Deterministic, and no host loop over
/// device memory.
void emitFullSum(linalg::ReduceOp op, KernelIO &io, KernelConfigAttr config) {
  Emitter &em = io.emitter();
  auto inputType = cast<RankedTensorType>(op.getInputs()[0].getType());
  OpBuilder &b = em.builder;
  Location loc = em.loc;
  Value input = io.in(op.getInputs()[0]), init = io.in(op.getInits()[0]);
  ReassociationIndices all;
  for (int64_t axis = 0; axis < inputType.getRank(); ++axis)
    all.push_back(axis);
  Value flat = inputType.getRank() == 1
                   ? input
                   : memref::CollapseShapeOp::create(
                         b, loc, input, SmallVector<ReassociationIndices>{all})
                         .getResult();
  Idx count = em.dim(flat, 0);
  Value out = io.allocate(0, {});
  em.launchKernel(
      config.getKernel().getValue(), {Idx(1), Idx(1), Idx(1)},
      {Idx(kSumThreads), Idx(1), Idx(1)}, {SmallVector<int64_t>{kSumThreads}},
      [&](const LaunchIds &ids) {
        Idx t = ids.thread[0];
        Value shares = ids.workgroup[0];
        SmallVector<Num> partial = em.foldRangeStep(
            t, count, Idx(kSumThreads), {Num(0.0)},
            [&](Idx i, ArrayRef<Num> sum) {
              return SmallVector<Num>{sum[0] + em.load(flat, {i})};
            });
        sumBlock(t, shares, partial[0]);
        em.ifThen(isThreadZero(t), [&] {
          em.store(em.load(init, {}) + em.load(shares, {Idx(0)}), out, {});
        });
      });
}

/// Outputs of a matmul small enough for one block each.
constexpr int64_t kSmallMatmulOutputs = 64;

/// Whether `op` is a float matmul on tensors with at most
/// kSmallMatmulOutputs static outputs and a dynamic reduction (the virial).
bool isLongMatmul(linalg::MatmulOp op) {
  if (op.hasUserDefinedMaps() || !op.hasPureTensorSemantics())
    return false;
  auto lhsType = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
  auto outType = dyn_cast<RankedTensorType>(op.getOutputs()[0].getType());
  return lhsType && outType && outType.hasStaticShape() &&
         outType.getNumElements() <= kSmallMatmulOutputs &&
         lhsType.isDynamicDim(1) && isa<FloatType>(outType.getElementType());
}

/// A long matmul (isLongMatmul: the virial, g^T v over all edges) as one
/// block per output element: the loop kernel gave each output one thread
/// and a serial sum over E, about 0.15 s at E = 645k and an fp32 error
/// growing with E. Each thread adds k = t, t + 1024, ... in order, then the
/// block's tree; deterministic.
void emitLongMatmul(linalg::MatmulOp op, KernelIO &io,
                    KernelConfigAttr config) {
  Emitter &em = io.emitter();
  auto outType = cast<RankedTensorType>(op.getOutputs()[0].getType());
  int64_t columns = outType.getDimSize(1);
  Value lhs = io.in(op.getInputs()[0]), rhs = io.in(op.getInputs()[1]);
  Value init = io.in(op.getOutputs()[0]);
  Idx depth = em.dim(lhs, 1);
  Value out = io.allocate(0, {});
  em.launchKernel(
      config.getKernel().getValue(),
      {Idx(outType.getNumElements()), Idx(1), Idx(1)},
      {Idx(kSumThreads), Idx(1), Idx(1)}, {SmallVector<int64_t>{kSumThreads}},
      [&](const LaunchIds &ids) {
        Idx t = ids.thread[0];
        Idx row = ids.block[0] / Idx(columns);
        Idx column = ids.block[0] % Idx(columns);
        SmallVector<Num> partial = em.foldRangeStep(
            t, depth, Idx(kSumThreads), {Num(0.0)},
            [&](Idx k, ArrayRef<Num> sum) {
              return SmallVector<Num>{sum[0] + em.load(lhs, {row, k}) *
                                                   em.load(rhs, {k, column})};
            });
        sumBlock(t, ids.workgroup[0], partial[0]);
        em.ifThen(isThreadZero(t), [&] {
          em.store(em.load(init, {row, column}) +
                       em.load(ids.workgroup[0], {Idx(0)}),
                   out, {row, column});
        });
      });
}

namespace {
/// Threads of a lane_sum block.
constexpr int64_t kLaneSumThreads = 256;
/// Outputs a lane group sums at once: all their loads issue before the
/// first shuffle, and a block covers 8 times the outputs (block starts
/// bound such kernels at a block per few outputs).
constexpr int64_t kLaneSumOutputsPerGroup = 8;

/// The term `op`'s payload adds to its output, where isLaneSum holds:
/// the operand of the yielded addf that is not the output's argument.
Value laneSumTerm(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  Value acc = body.getArgument(op.getNumDpsInputs());
  return add.getLhs() == acc ? add.getRhs() : add.getLhs();
}

/// The input of `op` that reads its first loop, and the axis it reads it
/// on: where a dynamic first loop's extent comes from.
std::optional<std::pair<Value, unsigned>> rowsReader(linalg::GenericOp op) {
  AffineExpr rows = getAffineDimExpr(0, op.getContext());
  for (OpOperand *input : op.getDpsInputOperands())
    if (isa<ShapedType>(input->get().getType()))
      if (std::optional<unsigned> axis =
              op.getMatchingIndexingMap(input).getResultPosition(rows))
        return std::make_pair(input->get(), *axis);
  return std::nullopt;
}
} // namespace

/// Whether `op` is a sum lane_sum lowers: fp32, over its last loop alone
/// (static: a power of two from 8, or whole warps), into an output over
/// the other loops in order (only the first dynamic, and read by an input
/// then), every input that reads the sum's loop reading it along its last
/// axis, the payload yield(addf(out, term)) with a scalar term.
bool isLaneSum(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op.getNumResults() != 1 || op.getNumReductionLoops() != 1 ||
      op.getNumLoops() < 2 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction ||
      !isScalarPayload(op))
    return false;
  auto outType = dyn_cast<RankedTensorType>(op.getResultTypes()[0]);
  if (!outType || !outType.getElementType().isF32())
    return false;
  unsigned sumLoop = op.getNumLoops() - 1;
  MLIRContext *context = op.getContext();
  if (op.getMatchingIndexingMap(op.getDpsInitOperand(0)) !=
      AffineMap::getMultiDimIdentityMap(op.getNumLoops(), context)
          .getMajorSubMap(sumLoop))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t depth = ranges[sumLoop];
  if (ShapedType::isDynamic(depth) ||
      !(depth % kWarpSize == 0 ||
        (llvm::isPowerOf2_64(depth) && depth >= kLaneSumOutputsPerGroup)))
    return false;
  for (unsigned loop = 1; loop < sumLoop; ++loop)
    if (ShapedType::isDynamic(ranges[loop]))
      return false;
  AffineExpr sumDim = getAffineDimExpr(sumLoop, context);
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation() ||
        (map.isFunctionOfDim(sumLoop) && map.getResults().back() != sumDim))
      return false;
  }
  bool rowsRead = !ShapedType::isDynamic(ranges[0]) || rowsReader(op);
  // yield(addf(out, term)), the output read there alone.
  Block &body = op.getRegion().front();
  Value acc = body.getArgument(op.getNumDpsInputs());
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  return rowsRead && add && acc.hasOneUse() &&
         (add.getLhs() == acc || add.getRhs() == acc);
}

/// A sum over a contiguous last loop (isLaneSum: a contraction over the
/// channels of an (E, h, c) tensor) as consecutive lanes per output, lane
/// j adding the terms j, j + 32, ... in order, each load of a warp
/// reading consecutive words (a thread per output read its own row, 32
/// rows a load); a group of lanes takes 8 consecutive outputs, the group's
/// butterfly adds its lanes' sums, and lane o adds output o's init (a
/// constant fill folded in) and stores it: the same order on every run.
void emitLaneSum(linalg::GenericOp op, KernelIO &io, KernelConfigAttr config) {
  Emitter &em = io.emitter();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  unsigned sumLoop = ranges.size() - 1;
  int64_t depth = ranges[sumLoop];
  int64_t lanes = std::min<int64_t>(depth, kWarpSize);
  // The output's extents; a dynamic first one from an input that reads it.
  SmallVector<Idx> extents;
  for (unsigned loop = 0; loop < sumLoop; ++loop)
    extents.push_back(Idx(ranges[loop]));
  if (ShapedType::isDynamic(ranges[0])) {
    auto [reader, axis] = *rowsReader(op);
    extents[0] = em.dim(io.in(reader), axis);
  }
  Idx outputs = extents[0];
  for (unsigned loop = 1; loop < sumLoop; ++loop)
    outputs = outputs * extents[loop];
  std::optional<double> filled = getConstantFillValue(op.getDpsInits()[0]);
  Value init = filled ? Value() : io.in(op.getDpsInits()[0]);
  Value out = io.allocate(0, extents);
  Value term = laneSumTerm(op);
  Block &body = op.getRegion().front();
  // The output loops of flat output `at`, and the sum's loop `k`.
  auto loopsOf = [&](Idx at, Idx k) {
    SmallVector<Idx> loops(sumLoop + 1, Idx(0));
    for (unsigned loop = sumLoop - 1; loop > 0; --loop) {
      loops[loop] = at % Idx(ranges[loop]);
      at = at / Idx(ranges[loop]);
    }
    loops[0] = at;
    loops[sumLoop] = k;
    return loops;
  };
  int64_t groupsPerBlock = kLaneSumThreads / lanes;
  int64_t outputsPerBlock = groupsPerBlock * kLaneSumOutputsPerGroup;
  em.launchKernel(
      config.getKernel().getValue(),
      {ceilDiv(outputs, outputsPerBlock), Idx(1), Idx(1)},
      {Idx(kLaneSumThreads), Idx(1), Idx(1)}, {},
      [&](const LaunchIds &ids) {
        Idx t = ids.thread[0];
        Idx lane = t % Idx(lanes);
        Idx first = (ids.block[0] * Idx(groupsPerBlock) + t / Idx(lanes)) *
                    Idx(kLaneSumOutputsPerGroup);
        // Every lane takes part in the shuffles: past the last output, a
        // group sums the last one again and stores nothing.
        Idx last = outputs - Idx(1);
        SmallVector<Num> partial;
        for (int64_t o = 0; o < kLaneSumOutputsPerGroup; ++o) {
          Idx at = min(first + Idx(o), last);
          std::optional<Num> sum;
          for (int64_t k = 0; k < depth; k += lanes) {
            IRMapping payload;
            mapPayloadInputs(op, io, loopsOf(at, lane + Idx(k)),
                             {Value(), Num(0.0)}, payload);
            for (Operation &inner : body.without_terminator())
              if (inner.getResult(0) != body.getTerminator()->getOperand(0))
                em.builder.clone(inner, payload);
            Num value = em.num(payload.lookupOrDefault(term));
            sum = sum ? *sum + value : value;
          }
          partial.push_back(*sum);
        }
        SmallVector<Num> totals = em.groupSum(partial, lanes);
        // Lane o keeps output o's total.
        Num total = totals[0];
        for (int64_t o = 1; o < kLaneSumOutputsPerGroup; ++o)
          total = select(equal(lane, Idx(o)), totals[o], total);
        Idx at = first + lane;
        em.ifThen(at < min(outputs, first + Idx(kLaneSumOutputsPerGroup)), [&] {
          SmallVector<Idx> indices = loopsOf(at, Idx(0));
          indices.pop_back();
          Num start = filled ? Num(*filled) : em.load(init, indices);
          em.store(start + total, out, indices);
        });
      },
      config.getBlocksPerSm());
}

} // namespace mlir::sezm::microkernels
