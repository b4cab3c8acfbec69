//===- SequentialInnerLoops.cpp - one parallel loop per nest, for threads -===//

#include "SeZM/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_SEQUENTIALINNERLOOPS
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;

/// Replaces `loop` by a nest of scf.for over its dimensions, the first
/// outermost; reductions are carried through the nest and combined in
/// iteration order.
static void makeSequential(RewriterBase &rewriter, scf::ParallelOp loop) {
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  scf::LoopNest nest = scf::buildLoopNest(
      rewriter, loc, loop.getLowerBound(), loop.getUpperBound(), loop.getStep(),
      loop.getInitVals(),
      [&](OpBuilder &builder, Location, ValueRange ivs,
          ValueRange partials) -> scf::ValueVector {
        // The parallel body, then each value it reduces combined with the
        // partial result carried so far.
        IRMapping mapping;
        mapping.map(loop.getInductionVars(), ivs);
        Block *body = loop.getBody();
        for (Operation &op : body->without_terminator())
          builder.clone(op, mapping);
        auto reduce = cast<scf::ReduceOp>(body->getTerminator());
        scf::ValueVector combined;
        for (auto [index, operand] : llvm::enumerate(reduce.getOperands())) {
          Block &combiner = reduce.getReductions()[index].front();
          IRMapping combine;
          combine.map(combiner.getArgument(0), partials[index]);
          combine.map(combiner.getArgument(1), mapping.lookup(operand));
          for (Operation &op : combiner.without_terminator())
            builder.clone(op, combine);
          auto yield = cast<scf::ReduceReturnOp>(combiner.getTerminator());
          combined.push_back(combine.lookup(yield.getResult()));
        }
        return combined;
      });
  rewriter.replaceOp(loop, nest.results);
}

namespace {
struct SequentialInnerLoopsPass
    : sezm::impl::SequentialInnerLoopsBase<SequentialInnerLoopsPass> {
  void runOnOperation() override {
    // Inner loops first (post-order), so that a nest is rewritten from the
    // inside out.
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp loop) {
      if (loop.getNumReductions() > 0 ||
          loop->getParentOfType<scf::ParallelOp>())
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp loop : loops)
      makeSequential(rewriter, loop);
  }
};
} // namespace
