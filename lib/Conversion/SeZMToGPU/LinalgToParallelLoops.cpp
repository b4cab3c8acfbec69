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
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
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

/// A reduction loop of a lowered linalg op reads and writes its output
/// element through memory on every step (out[e, i] = out[e, i] + term),
/// since nothing tells LLVM that the op's inputs do not alias its output:
/// the loop carries the element in a register instead, loaded before it
/// and stored after it. The same values in the same order: the same bits.
/// Linalg's buffers of one op do not overlap an output it writes.
static void accumulateInRegister(RewriterBase &rewriter, scf::ForOp loop) {
  Block *body = loop.getBody();
  memref::StoreOp store;
  for (Operation &op : body->without_terminator()) {
    auto candidate = dyn_cast<memref::StoreOp>(op);
    if (!candidate)
      continue;
    if (store)
      return;
    store = candidate;
  }
  if (!store || !llvm::all_of(store.getIndices(), [&](Value index) {
        return loop.isDefinedOutsideOfLoop(index);
      }))
    return;
  // One load of the same element before the store; nothing else in the
  // loop touches the output or writes memory.
  memref::LoadOp load;
  WalkResult other = body->walk([&](Operation *op) {
    if (op == store.getOperation())
      return WalkResult::advance();
    if (auto candidate = dyn_cast<memref::LoadOp>(op);
        candidate && candidate.getMemRef() == store.getMemRef()) {
      if (load || candidate->getBlock() != body ||
          candidate.getIndices() != store.getIndices() ||
          !candidate->isBeforeInBlock(store))
        return WalkResult::interrupt();
      load = candidate;
      return WalkResult::advance();
    }
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
        (effects && !effects.hasEffect<MemoryEffects::Write>()))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  if (other.wasInterrupted() || !load)
    return;
  Location loc = loop.getLoc();
  rewriter.setInsertionPoint(loop);
  Value initial = memref::LoadOp::create(rewriter, loc, store.getMemRef(),
                                         store.getIndices());
  Value stored = store.getValueToStore();
  FailureOr<LoopLikeOpInterface> carried =
      cast<LoopLikeOpInterface>(loop.getOperation())
          .replaceWithAdditionalYields(
              rewriter, initial, /*replaceInitOperandUsesInLoop=*/false,
              [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                return SmallVector<Value>{stored};
              });
  if (failed(carried))
    return;
  auto accumulating = cast<scf::ForOp>(carried->getOperation());
  rewriter.replaceAllUsesWith(load.getResult(),
                              accumulating.getRegionIterArgs().back());
  rewriter.setInsertionPointAfter(accumulating);
  memref::StoreOp::create(rewriter, loc, accumulating.getResults().back(),
                          store.getMemRef(), store.getIndices());
  rewriter.eraseOp(store);
  rewriter.eraseOp(load);
}

/// The root allocation or argument a view is taken of.
static Value viewRoot(Value buffer) {
  while (auto view = buffer.getDefiningOp<ViewLikeOpInterface>())
    buffer = view.getViewSource();
  return buffer;
}

/// The fill that gives `op`'s output its initial value, where `op` then
/// reads each output element once, in the iteration that writes it: its one
/// output is indexed by its parallel dimensions alone, each once; no input
/// aliases it; and only side-effect-free ops lie between the fill and it.
/// Such a fill need not be a kernel of its own: its value can start the
/// register that accumulates each element (foldFillIntoAccumulator).
static linalg::FillOp initializingFill(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || !op.hasPureBufferSemantics())
    return {};
  OpOperand *init = op.getDpsInitOperand(0);
  AffineMap map = op.getMatchingIndexingMap(init);
  if (!map.isProjectedPermutation())
    return {};
  SmallVector<unsigned> parallel;
  op.getParallelDims(parallel);
  if (map.getNumResults() != parallel.size() ||
      !llvm::all_of(parallel,
                    [&](unsigned dim) { return map.isFunctionOfDim(dim); }))
    return {};
  Value root = viewRoot(init->get());
  if (llvm::any_of(op.getDpsInputs(),
                   [&](Value input) { return viewRoot(input) == root; }))
    return {};
  for (Operation *before = op->getPrevNode(); before;
       before = before->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(before))
      return fill.hasPureBufferSemantics() &&
                     fill.getDpsInitOperand(0)->get() == init->get()
                 ? fill
                 : linalg::FillOp();
    if (!isMemoryEffectFree(before))
      return {};
  }
  return {};
}

/// Where the kernel of an op that a fill initializes reads each output
/// element once, before its reduction loops and into their accumulator
/// (accumulateInRegister), that read takes the fill's value and the fill's
/// kernel goes: one launch and one pass over the output less.
static void foldFillIntoAccumulator(RewriterBase &rewriter, Operation *kernel,
                                    Operation *fillKernel, Value output,
                                    Value value) {
  memref::LoadOp initial;
  WalkResult reads = kernel->walk([&](memref::LoadOp load) {
    if (viewRoot(load.getMemRef()) != viewRoot(output))
      return WalkResult::advance();
    if (initial || load.getMemRef() != output ||
        load->getParentOp() != kernel ||
        !llvm::all_of(load->getUsers(),
                      [](Operation *user) { return isa<scf::ForOp>(user); }))
      return WalkResult::interrupt();
    initial = load;
    return WalkResult::advance();
  });
  if (reads.wasInterrupted() || !initial || initial->use_empty())
    return;
  rewriter.replaceAllUsesWith(initial.getResult(), value);
  rewriter.eraseOp(initial);
  rewriter.eraseOp(fillKernel);
}

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
    // The fills that initialize an accumulating op, by that op.
    // (The fill and its value are taken before either is lowered and erased.)
    llvm::DenseMap<Operation *, std::pair<Operation *, Value>> fills;
    for (linalg::LinalgOp op : ops)
      if (linalg::FillOp fill = initializingFill(op))
        fills[op] = {fill, fill.value()};
    struct Initialized {
      Operation *kernel, *fillKernel;
      Value output, value;
    };
    SmallVector<Initialized> initialized;
    llvm::DenseMap<Operation *, Operation *> fillKernels;
    CreatedOps listener;
    IRRewriter rewriter(&getContext(), &listener);
    SmallVector<Operation *> kernels;
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
              /*precision=*/{}, /*warpTile=*/{});
        loops->front()->setAttr(sezm::kKernelConfigAttr, config);
        kernels.push_back(loops->front());
        if (isa<linalg::FillOp>(op))
          fillKernels[op] = loops->front();
        if (auto [fill, value] = fills.lookup(op); fillKernels.count(fill))
          initialized.push_back({loops->front(), fillKernels[fill],
                                 op.getDpsInitOperand(0)->get(), value});
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
    // With the indices folded, innermost first: an outer reduction loop
    // then carries what the inner one loads before it and stores after it.
    for (Operation *kernel : kernels) {
      SmallVector<scf::ForOp> reductions;
      kernel->walk([&](scf::ForOp loop) { reductions.push_back(loop); });
      for (scf::ForOp loop : reductions)
        accumulateInRegister(rewriter, loop);
    }
    for (const Initialized &op : initialized)
      foldFillIntoAccumulator(rewriter, op.kernel, op.fillKernel, op.output,
                              op.value);
  }
};
} // namespace
