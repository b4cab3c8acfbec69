//===- LinalgToParallelLoops.cpp - linalg ops to scf.parallel, only them --===//
//
// Upstream's convert-linalg-to-parallel-loops, restricted to what it
// changes: the linalg ops outside launches are lowered one by one, and the
// canonicalizations it runs with its lowering are applied to the ops the
// lowering created alone, instead of to every op of the function (most of
// which, on the GPU, are the hand-scheduled kernels' bodies).
//
//===----------------------------------------------------------------------===//

#include "SeZM/Conversion/Passes.h"

#include "SeZM/Dialect/SeZM/SeZMDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_LINALGTOPARALLELLOOPS
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;

namespace {
/// The ops a rewriter creates and does not erase again, in order.
struct CreatedOps : RewriterBase::Listener {
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    if (!previous.isSet())
      created.insert(op);
  }
  void notifyOperationErased(Operation *op) override { created.remove(op); }
  llvm::SetVector<Operation *> created;
};

struct LinalgToParallelLoops
    : sezm::impl::LinalgToParallelLoopsBase<LinalgToParallelLoops> {
  void runOnOperation() override {
    // A copy from or into a view that is not in identity layout (a chunk of
    // an edge tensor's rows, sezm-chunk-edges) becomes a loop nest too:
    // gpu.memcpy, which a copy becomes otherwise, takes identity layouts
    // alone.
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      if (!copy->getParentOfType<gpu::LaunchOp>() &&
          (!cast<MemRefType>(copy.getSource().getType())
                .getLayout()
                .isIdentity() ||
           !cast<MemRefType>(copy.getTarget().getType())
                .getLayout()
                .isIdentity()))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder builder(copy);
      linalg::CopyOp::create(builder, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
        ops.push_back(linalgOp);
      return WalkResult::advance();
    });
    CreatedOps listener;
    IRRewriter rewriter(&getContext(), &listener);
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToParallelLoops(rewriter, op);
      if (failed(loops)) {
        op.emitError("cannot lower to parallel loops");
        return signalPassFailure();
      }
      // The outermost loop is the op's kernel on the GPU: it carries the
      // op's kernel configuration, or (an op made after the strategy was
      // chosen: a fill in a kernel, a copy from bufferization) one of a
      // loop kernel named after the op.
      if (!loops->empty()) {
        auto config =
            op->getAttrOfType<sezm::KernelConfigAttr>(sezm::kKernelConfigAttr);
        if (!config)
          config = sezm::KernelConfigAttr::get(
              &getContext(), sezm::Strategy::Loops,
              rewriter.getStringAttr(op->getName().stripDialect()),
              /*blocksPerSm=*/0, /*workgroupTile=*/{}, /*threadTile=*/{},
              sezm::GemmPrecision::IEEE, /*warpTile=*/{});
        loops->front()->setAttr(sezm::kKernelConfigAttr, config);
      }
      rewriter.eraseOp(op);
    }
    // The created ops (nested ones are reported as they are inserted), with
    // the folds the upstream pass applies.
    SmallVector<Operation *> created = listener.created.takeVector();
    RewritePatternSet patterns(&getContext());
    memref::DimOp::getCanonicalizationPatterns(patterns, &getContext());
    tensor::DimOp::getCanonicalizationPatterns(patterns, &getContext());
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, &getContext());
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    (void)applyOpPatternsGreedily(created, std::move(patterns), config);
  }
};
} // namespace
