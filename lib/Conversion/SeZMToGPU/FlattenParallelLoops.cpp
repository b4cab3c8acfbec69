//===- FlattenParallelLoops.cpp - one dimension per parallel loop ---------===//

#include "SeZM/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

namespace mlir::sezm {
#define GEN_PASS_DEF_FLATTENPARALLELLOOPS
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;

namespace {
/// The parallel loops a rewriter creates.
struct NewLoops : RewriterBase::Listener {
  void notifyOperationInserted(Operation *op,
                               OpBuilder::InsertPoint previous) override {
    if (auto loop = dyn_cast<scf::ParallelOp>(op); loop && !previous.isSet())
      loops.push_back(loop);
  }
  void notifyOperationErased(Operation *op) override {
    llvm::erase_if(loops, [&](scf::ParallelOp loop) { return loop == op; });
  }
  SmallVector<scf::ParallelOp> loops;
};

struct FlattenParallelLoopsPass
    : sezm::impl::FlattenParallelLoopsBase<FlattenParallelLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop.getNumLoops() > 1 && loop.getNumReductions() == 0 &&
          !loop->getParentOfType<scf::ParallelOp>())
        loops.push_back(loop);
    });
    NewLoops created;
    IRRewriter rewriter(&getContext(), &created);
    for (scf::ParallelOp loop : loops) {
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0);
      rewriter.setInsertionPoint(loop);
      // The collapsed loop is a new op: it keeps the loop's attributes (its
      // kernel configuration).
      SmallVector<NamedAttribute> attrs(loop->getDiscardableAttrs());
      created.loops.clear();
      collapseParallelLoops(rewriter, loop, {all});
      for (scf::ParallelOp flat : created.loops)
        if (!flat->getParentOfType<scf::ParallelOp>())
          for (NamedAttribute attr : attrs)
            flat->setAttr(attr.getName(), attr.getValue());
    }
  }
};
} // namespace
