//===- CpuMatmulOrder.cpp - matmul loops in (i, k, j) order for the CPU ---===//

#include "SeZM/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_CPUMATMULORDER
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;

namespace {
struct CpuMatmulOrderPass : sezm::impl::CpuMatmulOrderBase<CpuMatmulOrderPass> {
  void runOnOperation() override {
    SmallVector<linalg::MatmulOp> matmuls;
    getOperation().walk([&](linalg::MatmulOp op) {
      // Plain matmuls only: a broadcast or transposed operand (indexing
      // maps of their own) keeps linalg's order.
      if (op.hasPureBufferSemantics() && !op.hasUserDefinedMaps())
        matmuls.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::MatmulOp op : matmuls) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::GenericOp> generic =
          linalg::generalizeNamedOp(rewriter, op);
      if (failed(generic) ||
          failed(linalg::interchangeGenericOp(rewriter, *generic, {0, 2, 1})))
        return signalPassFailure();
    }
  }
};
} // namespace
