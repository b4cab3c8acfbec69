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

namespace {
template <typename OpTy> struct LowerToKernel : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    return lowerWithKernel(op, rewriter,
                           [&](KernelIO &io) { emitKernel(op, io); });
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
        LowerToKernel<EnvelopeGradGradOp>, LowerToKernel<RadialBasisGradGradOp>,
        LowerToKernel<WignerGradGradOp>, LowerToKernel<RotateOp>,
        LowerToKernel<RotateGradOp>, LowerToKernel<MixOp>,
        LowerToKernel<MixGradOp>, LowerToKernel<RotateMixOp>,
        LowerToKernel<RotateMixGradOp>, LowerToKernel<RotateMixGradReduceOp>,
        LowerToKernel<RotateBackOp>, LowerToKernel<RotateBackGradOp>,
        LowerToKernel<SegmentReduceOp>, LowerToKernel<SegmentReduceGradOp>,
        LowerToKernel<SO2LinearOp>, LowerToKernel<SO2LinearGradOp>,
        LowerToKernel<GateOp>, LowerToKernel<GateGradOp>,
        LowerToKernel<FocusCompeteOp>, LowerToKernel<FocusCompeteGradOp>,
        LowerToKernel<FocusScaleOp>, LowerToKernel<FocusScaleGradOp>,
        LowerToKernel<EnvelopeAggregateOp>,
        LowerToKernel<EnvelopeAggregateGradOp>,
        LowerToKernel<AttentionAggregateOp>,
        LowerToKernel<AttentionAggregateGradOp>, LowerToKernel<DegreeLinearOp>,
        LowerToKernel<DegreeLinearWeightGradOp>>(&getContext());
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
