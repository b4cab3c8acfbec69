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
/// The CPU kernel of `OpTy`: its emitKernel overload (Kernels.h).
template <typename OpTy>
struct LoopKernel
    : LoopKernelOpInterface::ExternalModel<LoopKernel<OpTy>, OpTy> {
  void emitLoopKernel(Operation *op, KernelIO &io) const {
    emitKernel(cast<OpTy>(op), io);
  }
};

/// Attaches a loop kernel to each of `Ops`: every sezm op has one, and one
/// missing is a compile error here.
template <typename... Ops> void attachLoopKernels(MLIRContext *context) {
  (Ops::template attachInterface<LoopKernel<Ops>>(*context), ...);
}

struct LowerToLoopKernel : OpInterfaceRewritePattern<LoopKernelOpInterface> {
  LowerToLoopKernel(MLIRContext *context, LoopTarget target)
      : OpInterfaceRewritePattern(context), target(target) {}

  LogicalResult matchAndRewrite(LoopKernelOpInterface op,
                                PatternRewriter &rewriter) const override {
    return lowerWithKernel(op, rewriter, target,
                           [&](KernelIO &io) { op.emitLoopKernel(io); });
  }

  LoopTarget target;
};

struct ConvertSeZMToLoopsPass
    : sezm::impl::ConvertSeZMToLoopsBase<ConvertSeZMToLoopsPass> {
  using ConvertSeZMToLoopsBase::ConvertSeZMToLoopsBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    ConvertSeZMToLoopsBase::getDependentDialects(registry);
    registerLoopKernels(registry);
  }

  void runOnOperation() override {
    if (target != "cpu" && target != "gpu") {
      getOperation()->emitError() << "convert-sezm-to-loops: target=" << target
                                  << ": expected cpu or gpu";
      return signalPassFailure();
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerToLoopKernel>(
        &getContext(), target == "cpu" ? LoopTarget::Cpu : LoopTarget::Gpu);
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

void sezm::registerLoopKernels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, SeZMDialect *) {
    attachLoopKernels<
#define GET_OP_LIST
#include "SeZM/Dialect/SeZM/SeZMOps.cpp.inc"
        >(context);
  });
}
