//===- DenseReductions.cpp - full sums and long matmuls -------------------===//

#include "Microkernels.h"
#include "WarpSchedules.h"

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

} // namespace mlir::sezm::microkernels
