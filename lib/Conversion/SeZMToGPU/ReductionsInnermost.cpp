//===- ReductionsInnermost.cpp - parallel loops outside reductions --------===//

#include "SeZM/Conversion/Passes.h"

#include "SeZM/Dialect/SeZM/SeZMAttrs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_REDUCTIONSINNERMOST
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;

/// The loop order with the parallel dimensions of `op` first and its
/// reductions last, each in their order; empty when it is already so.
static SmallVector<unsigned> parallelFirst(linalg::LinalgOp op) {
  SmallVector<unsigned> parallel, reduction;
  for (auto [dim, type] : llvm::enumerate(op.getIteratorTypesArray())) {
    if (linalg::isParallelIterator(type))
      parallel.push_back(dim);
    else
      reduction.push_back(dim);
  }
  // Already in order when no reduction comes before the last parallel one.
  if (reduction.empty() || parallel.empty() ||
      reduction.front() > parallel.back())
    return {};
  parallel.append(reduction);
  return parallel;
}

namespace {
struct ReductionsInnermostPass
    : sezm::impl::ReductionsInnermostBase<ReductionsInnermostPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<unsigned>>> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      SmallVector<unsigned> order = parallelFirst(op);
      if (!order.empty())
        ops.emplace_back(op, std::move(order));
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, order] : ops) {
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        // The kernel keeps the configuration (and the name) of the op.
        Attribute config = op->getDiscardableAttr(sezm::kKernelConfigAttr);
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue;
        generic = *generalized;
        if (config)
          generic->setDiscardableAttr(sezm::kKernelConfigAttr, config);
      }
      if (failed(linalg::interchangeGenericOp(rewriter, generic, order))) {
        generic.emitOpError("cannot put its reductions innermost");
        return signalPassFailure();
      }
    }
  }
};
} // namespace
