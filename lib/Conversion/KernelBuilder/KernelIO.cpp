//===- KernelIO.cpp - the buffers of a kernel and the op it replaces ------===//

#include "KernelIO.h"

#include "SeZM/Dialect/SeZM/SeZMAttrs.h"
#include "SeZM/Dialect/SeZM/SeZMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::sezm;
using kernel::Idx;

KernelIO::KernelIO(Operation *op, OpBuilder &builder, LoopTarget target)
    : op(op), builder(builder), loopTarget(target),
      kernelEmitter(builder, op->getLoc(), computeType(op)) {
  if (Attribute config = op->getDiscardableAttr(kKernelConfigAttr))
    kernelEmitter.loopAttr = NamedAttribute(
        StringAttr::get(op->getContext(), kKernelConfigAttr), config);
  results.resize(op->getNumResults());
  llvm::append_range(operands, op->getOperands());
  for (Value operand : op->getOperands())
    if (Operation *producer = operand.getDefiningOp();
        producer && isFusedIntoUser(producer))
      llvm::append_range(operands, producer->getOperands());
  for (Value operand : operands) {
    // Scalars (an edge range's first edge) are read as they are.
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || operandBuffers.count(operand))
      continue;
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    operandBuffers[operand] = bufferization::ToBufferOp::create(
        builder, op->getLoc(), memrefType, operand, /*readOnly=*/true);
  }
}

Value KernelIO::in(Value operand) { return operandBuffers.lookup(operand); }

KernelIO::EdgeRange KernelIO::edgeRange(Value order, Value rowptr, Idx n,
                                        Idx edges) {
  kernel::Emitter &em = kernelEmitter;
  Idx begin = em.loadIndex(rowptr, {n}), end = em.loadIndex(rowptr, {n + 1});
  Value start = cast<EdgeRangeSumOpInterface>(op).getRangeStart();
  if (!start)
    return {Idx(0), begin, end};
  Idx first = em.index(start);
  // Most segments hold none of the range's edges: their first and last
  // edges tell, and their bisections then take no steps. (The loads stay
  // inside the order, which is not empty where a range is.)
  OpBuilder &b = em.builder;
  Location loc = em.loc;
  Idx last = em.dim(order, 0) - Idx(1);
  Idx front = em.loadIndex(order, {min(begin, last)});
  Idx back = em.loadIndex(order, {min(end - Idx(1), last)});
  Value none = arith::OrIOp::create(
      b, loc, equal(begin, end),
      arith::OrIOp::create(b, loc, back < first,
                           first + edges < front + Idx(1)));
  Idx start0 =
      em.index(arith::SelectOp::create(b, loc, none, end.in(em), begin.in(em)));
  Idx from = em.lowerBound(order, start0, end, first);
  return {first, from, em.lowerBound(order, from, end, first + edges)};
}

Value KernelIO::allocate(unsigned index, ArrayRef<Idx> extents) {
  auto type = cast<RankedTensorType>(op->getResult(index).getType());
  SmallVector<Value> dynamicSizes;
  for (auto [size, extent] : llvm::zip_equal(type.getShape(), extents))
    if (ShapedType::isDynamic(size))
      dynamicSizes.push_back(extent.in(kernelEmitter));
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value buffer =
      memref::AllocOp::create(builder, op->getLoc(), memrefType, dynamicSizes);
  results[index] = buffer;
  return buffer;
}

Value KernelIO::scratch(ArrayRef<int64_t> shape, ArrayRef<Idx> extents) {
  return kernelEmitter.allocateScratch(shape, extents);
}

SmallVector<Value> KernelIO::finish() {
  SmallVector<Value> tensors;
  for (auto [index, buffer] : llvm::enumerate(results)) {
    if (!buffer) {
      tensors.push_back(Value());
      continue;
    }
    tensors.push_back(bufferization::ToTensorOp::create(
        builder, op->getLoc(), op->getResult(index).getType(), buffer,
        /*restrict=*/true, /*writable=*/true));
  }
  return tensors;
}

SmallVector<Operation *> KernelIO::unreadOperandBuffers() const {
  SmallVector<Operation *> unread;
  for (Value operand : operands) {
    Value buffer = operandBuffers.lookup(operand);
    if (buffer && buffer.use_empty() &&
        !llvm::is_contained(unread, buffer.getDefiningOp()))
      unread.push_back(buffer.getDefiningOp());
  }
  return unread;
}

bool sezm::isFusedIntoUser(Operation *op) {
  auto config = op->getAttrOfType<KernelConfigAttr>(kKernelConfigAttr);
  return config && config.getStrategy() == Strategy::Fused;
}

FloatType sezm::computeType(Operation *op) {
  for (Type type : op->getOperandTypes())
    if (auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(type)))
      return floatType;
  llvm_unreachable("every sezm op has a float operand");
}

LogicalResult sezm::lowerWithKernel(Operation *op, PatternRewriter &rewriter,
                                    LoopTarget target,
                                    llvm::function_ref<void(KernelIO &)> emit) {
  KernelIO io(op, rewriter, target);
  emit(io);
  SmallVector<Value> replacements = io.finish();
  for (Operation *buffer : io.unreadOperandBuffers())
    rewriter.eraseOp(buffer);
  for (auto [result, replacement] :
       llvm::zip_equal(op->getResults(), replacements)) {
    if (!replacement) {
      if (!result.use_empty())
        return rewriter.notifyMatchFailure(op, "a used result has no kernel");
      continue;
    }
    rewriter.replaceAllUsesWith(result, replacement);
  }
  rewriter.eraseOp(op);
  return success();
}
