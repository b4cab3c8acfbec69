//===- SeZMToLoops.cpp - lower sezm ops to CPU loop nests -----------------===//

#include "Kernels.h"

#include "SeZM/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_CONVERTSEZMTOLOOPS
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;
using kernel::Idx;

KernelIO::KernelIO(Operation *op, OpBuilder &builder)
    : op(op), builder(builder) {
  results.resize(op->getNumResults());
  for (Value operand : op->getOperands()) {
    if (operandBuffers.count(operand))
      continue;
    auto type = cast<RankedTensorType>(operand.getType());
    auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
    operandBuffers[operand] = bufferization::ToBufferOp::create(
        builder, op->getLoc(), memrefType, operand, /*readOnly=*/true);
  }
}

Value KernelIO::in(Value operand) { return operandBuffers.lookup(operand); }

Value KernelIO::allocate(unsigned index, ArrayRef<Idx> extents) {
  auto type = cast<RankedTensorType>(op->getResult(index).getType());
  SmallVector<Value> dynamicSizes;
  for (auto [size, extent] : llvm::zip_equal(type.getShape(), extents))
    if (ShapedType::isDynamic(size))
      dynamicSizes.push_back(extent);
  auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
  Value buffer =
      memref::AllocOp::create(builder, op->getLoc(), memrefType, dynamicSizes);
  results[index] = buffer;
  return buffer;
}

Value KernelIO::scratch(ArrayRef<int64_t> shape, ArrayRef<Idx> extents) {
  return kernel::allocateScratch(shape, extents);
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

namespace {
/// The float type a sezm op computes in: that of its first float operand.
FloatType computeType(Operation *op) {
  for (Type type : op->getOperandTypes())
    if (auto floatType =
            dyn_cast<FloatType>(cast<ShapedType>(type).getElementType()))
      return floatType;
  llvm_unreachable("every sezm op has a float operand");
}

template <typename OpTy>
struct LowerToKernel : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    kernel::EmitScope scope(rewriter, op.getLoc(), computeType(op));
    KernelIO io(op, rewriter);
    emitKernel(op, io);
    SmallVector<Value> replacements = io.finish();
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
};

struct ConvertSeZMToLoopsPass
    : sezm::impl::ConvertSeZMToLoopsBase<ConvertSeZMToLoopsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<
        LowerToKernel<EdgeVectorsOp>, LowerToKernel<EdgeVectorsGradOp>,
        LowerToKernel<EnvelopeOp>, LowerToKernel<EnvelopeGradOp>,
        LowerToKernel<RadialBasisOp>, LowerToKernel<RadialBasisGradOp>,
        LowerToKernel<WignerOp>, LowerToKernel<WignerGradOp>,
        LowerToKernel<RotateOp>, LowerToKernel<RotateGradOp>,
        LowerToKernel<MixOp>, LowerToKernel<MixGradOp>,
        LowerToKernel<RotateMixOp>, LowerToKernel<RotateMixGradOp>,
        LowerToKernel<RotateMixGradReduceOp>, LowerToKernel<RotateBackOp>,
        LowerToKernel<RotateBackGradOp>, LowerToKernel<SegmentReduceOp>,
        LowerToKernel<SegmentReduceGradOp>, LowerToKernel<SO2LinearOp>,
        LowerToKernel<SO2LinearGradOp>, LowerToKernel<GateOp>,
        LowerToKernel<GateGradOp>, LowerToKernel<FocusCompeteOp>,
        LowerToKernel<FocusCompeteGradOp>, LowerToKernel<FocusScaleOp>,
        LowerToKernel<FocusScaleGradOp>, LowerToKernel<EnvelopeAggregateOp>,
        LowerToKernel<EnvelopeAggregateGradOp>,
        LowerToKernel<AttentionAggregateOp>,
        LowerToKernel<AttentionAggregateGradOp>>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));

    WalkResult left = getOperation()->walk([](Operation *op) {
      if (isa<SeZMDialect>(op->getDialect())) {
        op->emitOpError() << "has no CPU kernel";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
