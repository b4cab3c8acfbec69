//===- Fusion.cpp - rotate+mix, the backward's reduction, adds, scales ---===//

#include "SeZM/Transforms/Passes.h"
#include "SeZM/Transforms/ProgramOrder.h"

#include "SeZM/Dialect/SeZM/FillValue.h"
#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_FUSEROTATEMIX
#define GEN_PASS_DEF_FUSEBACKWARDREDUCE
#define GEN_PASS_DEF_FUSEACCUMULATE
#define GEN_PASS_DEF_FUSEFOCUSSCALE
#define GEN_PASS_DEF_FUSEELEMENTWISE
#include "SeZM/Transforms/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;

namespace {
struct FuseRotateIntoMix : OpRewritePattern<MixOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MixOp mix,
                                PatternRewriter &rewriter) const override {
    auto rotate = mix.getXl().getDefiningOp<RotateOp>();
    if (!rotate)
      return failure();
    // A rotation used elsewhere too would be computed twice.
    if (!rotate->hasOneUse())
      return rewriter.notifyMatchFailure(mix, "the rotation has other uses");
    auto fused = RotateMixOp::create(
        rewriter, mix.getLoc(), mix.getResult().getType(), rotate.getX(),
        rotate.getSrc(), rotate.getWigner(), mix.getKc(), mix.getCb(),
        mix.getLmaxAttr(), mix.getRankAttr(), /*focus_major=*/IntegerAttr());
    rewriter.replaceOp(mix, fused.getResult());
    rewriter.eraseOp(rotate);
    return success();
  }
};

/// Why the backward of `grad` may not fuse with `reduce`, or empty.
std::string fusionBlocker(func::FuncOp func, RotateMixGradOp grad,
                          SegmentReduceOp reduce) {
  auto schedule = func->getAttrOfType<StringAttr>(kScheduleAttr);
  if (!schedule)
    return "@" + func.getSymName().str() +
           " has no schedule (run sezm-select-schedule first)";
  if (schedule.getValue() != kInference)
    return "@" + func.getSymName().str() + " has the " +
           schedule.getValue().str() +
           " schedule: the fused backward has no derivative rule";
  if (grad.getRank() > 1)
    return "rank = " + std::to_string(grad.getRank()) +
           ": the fused backward folds a single channel basis (rank <= 1)";
  if (!grad.getNodeGrad().hasOneUse())
    return "the per-edge node gradient has other uses";
  if (grad.getCbGrad() && !grad.getCbGrad().use_empty())
    return "the channel-basis gradient is used, and the fused backward does "
           "not compute it";
  if (reduce.getResult().getType() != grad.getX().getType())
    return "the reduction's result type differs from that of 'x'";
  auto src = dyn_cast<BlockArgument>(grad.getSrc());
  if (!src || src.getOwner() != &func.getBody().front())
    return "'src' is not an argument of @" + func.getSymName().str();
  // A CSR names the edge index it sorts (sezm.csr_of); an unnamed one has
  // none that could name it (sezm-drop-port-names runs after the fusions).
  if (!func.getArgAttrOfType<StringAttr>(src.getArgNumber(), kNameAttr))
    return "'src' has no sezm.name, so no CSR can be marked as its own";
  std::string srcName = argumentName(func, src.getArgNumber());
  for (Value csr : {reduce.getOrder(), reduce.getRowptr()}) {
    auto arg = dyn_cast<BlockArgument>(csr);
    auto of =
        arg && arg.getOwner() == &func.getBody().front()
            ? func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kCsrOfAttr)
            : StringAttr();
    if (!of || of.getValue() != srcName)
      return "the reduction is not over the source CSR: its order and "
             "rowptr must be arguments marked sezm.csr_of = \"" +
             srcName + "\"";
  }
  return std::string();
}

/// A fusion pattern that tells each op once, by a remark, why it stays
/// unfused (the greedy driver may try it many times).
template <typename OpTy> struct ReportingPattern : OpRewritePattern<OpTy> {
  ReportingPattern(MLIRContext *context, llvm::DenseSet<Operation *> &reported)
      : OpRewritePattern<OpTy>(context), reported(reported) {}

  /// Whether `blocker` is empty; else remarks on `op`, the first time,
  /// `what` and the blocker.
  bool unblocked(Operation *op, StringRef what, StringRef blocker) const {
    if (blocker.empty())
      return true;
    if (reported.insert(op).second)
      op->emitRemark() << what << ": " << blocker;
    return false;
  }

  /// The ops already told why they stay unfused.
  llvm::DenseSet<Operation *> &reported;
};

/// Runs `Pattern` (a ReportingPattern) greedily over `function`.
template <typename Pattern>
LogicalResult applyReportingPattern(Operation *function) {
  llvm::DenseSet<Operation *> reported;
  RewritePatternSet patterns(function->getContext());
  patterns.add<Pattern>(function->getContext(), reported);
  return applyPatternsGreedily(function, std::move(patterns));
}

struct FuseBackwardWithReduce : ReportingPattern<SegmentReduceOp> {
  using ReportingPattern::ReportingPattern;

  LogicalResult matchAndRewrite(SegmentReduceOp reduce,
                                PatternRewriter &rewriter) const override {
    auto grad = reduce.getValues().getDefiningOp<RotateMixGradOp>();
    if (!grad || reduce.getValues() != grad.getNodeGrad())
      return failure();
    auto func = reduce->getParentOfType<func::FuncOp>();
    if (!unblocked(grad, "not fused with the segment reduction",
                   fusionBlocker(func, grad, reduce)))
      return failure();
    auto fused = RotateMixGradReduceOp::create(
        rewriter, reduce.getLoc(), reduce.getResult().getType(),
        grad.getWignerGrad().getType(), grad.getKcGrad().getType(),
        grad.getGrad(), grad.getX(), grad.getSrc(), grad.getWigner(),
        grad.getKc(), grad.getCb(), reduce.getOrder(), reduce.getRowptr(),
        /*first_edge=*/Value(), grad.getLmaxAttr(), grad.getRankAttr());
    rewriter.replaceOp(reduce, fused.getXGrad());
    rewriter.replaceAllUsesWith(grad.getWignerGrad(), fused.getWignerGrad());
    rewriter.replaceAllUsesWith(grad.getKcGrad(), fused.getKcGrad());
    rewriter.eraseOp(grad);
    return success();
  }
};

/// Why `op` may not take the other operand of `add` as the addend of its
/// first result, or empty.
std::string accumulateBlocker(AccumulatingOpInterface op, arith::AddFOp add) {
  if (op.getAccumulator())
    return "it already has an addend";
  // Moved into a loop body it would run once per iteration.
  if (op->getBlock() != add->getBlock())
    return "the add is in another block";
  if (!op->getResult(0).hasOneUse())
    return "its result has other uses";
  for (OpResult result : op->getResults().drop_front())
    if (!result.use_empty())
      return "its result #" + std::to_string(result.getResultNumber()) +
             " is used, and the fused op moves to the add";
  return std::string();
}

struct FoldAddIntoAccumulator : ReportingPattern<arith::AddFOp> {
  using ReportingPattern::ReportingPattern;

  LogicalResult matchAndRewrite(arith::AddFOp add,
                                PatternRewriter &rewriter) const override {
    if (!isa<RankedTensorType>(add.getType()))
      return failure();
    for (unsigned operand : {1u, 0u}) {
      Value addend = add->getOperand(1 - operand);
      auto op =
          add->getOperand(operand).getDefiningOp<AccumulatingOpInterface>();
      if (!op || op->getResult(0) != add->getOperand(operand))
        continue;
      if (!unblocked(op, "keeps its add", accumulateBlocker(op, add)))
        continue;
      rewriter.setInsertionPoint(add);
      Operation *fused = op.cloneWithAccumulator(rewriter, addend);
      rewriter.replaceOp(add, fused->getResult(0));
      rewriter.eraseOp(op);
      return success();
    }
    return failure();
  }
};

/// Why `aggregate` may not scale the messages of `scale` itself, or empty.
std::string focusScaleBlocker(EnvelopeAggregateOp aggregate,
                              FocusScaleOp scale) {
  if (aggregate.getFocusAlpha())
    return "the aggregation already scales its messages";
  if (scale->getBlock() != aggregate->getBlock())
    return "the scale is in another block";
  if (!scale.getResult().hasOneUse())
    return "the scaled messages have other uses";
  return std::string();
}

struct FoldFocusScaleIntoAggregate : ReportingPattern<EnvelopeAggregateOp> {
  using ReportingPattern::ReportingPattern;

  LogicalResult matchAndRewrite(EnvelopeAggregateOp aggregate,
                                PatternRewriter &rewriter) const override {
    auto scale = aggregate.getXl().getDefiningOp<FocusScaleOp>();
    if (!scale || !unblocked(aggregate, "keeps its focus_scale",
                             focusScaleBlocker(aggregate, scale)))
      return failure();
    rewriter.modifyOpInPlace(aggregate, [&] {
      aggregate.getXlMutable().assign(scale.getY());
      aggregate.getFocusAlphaMutable().assign(scale.getAlpha());
    });
    rewriter.eraseOp(scale);
    return success();
  }
};

/// Why the backward `aggregate` of the messages `scale` makes may not be
/// that scale's backward too, or empty; `scaleGrad` is the user of its
/// message gradient.
std::string focusScaleGradBlocker(EnvelopeAggregateGradOp aggregate,
                                  FocusScaleOp scale,
                                  FocusScaleGradOp scaleGrad) {
  if (aggregate.getFocusAlpha())
    return "the aggregation's backward already scales its messages";
  if (scale->getBlock() != aggregate->getBlock())
    return "the scale is in another block";
  if (!aggregate.getXlGrad().hasOneUse() || !scaleGrad)
    return "the scaled messages' gradient is not only the scale's backward's";
  if (scaleGrad->getBlock() != aggregate->getBlock())
    return "the scale's backward is in another block";
  if (scaleGrad.getY() != scale.getY() ||
      scaleGrad.getAlpha() != scale.getAlpha())
    return "the scale's backward reads other messages or factors";
  return std::string();
}

/// The backward of the aggregation of `focus_scale %y by %alpha`, followed
/// by that scale's backward, becomes one op on y `scaled %alpha`: the
/// scaled messages are recomputed as they are loaded and their gradient is
/// never stored.
struct FoldFocusScaleIntoAggregateGrad
    : ReportingPattern<EnvelopeAggregateGradOp> {
  using ReportingPattern::ReportingPattern;

  LogicalResult matchAndRewrite(EnvelopeAggregateGradOp aggregate,
                                PatternRewriter &rewriter) const override {
    auto scale = aggregate.getXl().getDefiningOp<FocusScaleOp>();
    if (!scale)
      return failure();
    FocusScaleGradOp scaleGrad;
    if (aggregate.getXlGrad().hasOneUse())
      scaleGrad =
          dyn_cast<FocusScaleGradOp>(*aggregate.getXlGrad().user_begin());
    if (!unblocked(aggregate, "keeps its focus_scale",
                   focusScaleGradBlocker(aggregate, scale, scaleGrad)))
      return failure();
    rewriter.setInsertionPoint(aggregate);
    auto fused = EnvelopeAggregateGradOp::create(
        rewriter, aggregate.getLoc(), scaleGrad.getYGrad().getType(),
        aggregate.getWignerGrad().getType(), aggregate.getEnvGrad().getType(),
        aggregate.getNormTerms().getType(), scaleGrad.getAlphaGrad().getType(),
        aggregate.getGrad(), scale.getY(), scale.getAlpha(),
        aggregate.getWigner(), aggregate.getEnv(), aggregate.getInvSqrtDeg(),
        aggregate.getDst(), aggregate.getLmaxAttr());
    rewriter.replaceOp(scaleGrad, {fused.getXlGrad(), fused.getAlphaGrad()});
    // Its message gradient's one use, the scale's backward, is gone.
    for (unsigned i : {1, 2, 3})
      rewriter.replaceAllUsesWith(aggregate->getResult(i), fused->getResult(i));
    rewriter.eraseOp(aggregate);
    if (scale->use_empty())
      rewriter.eraseOp(scale);
    return success();
  }
};

struct FuseRotateMixPass : sezm::impl::FuseRotateMixBase<FuseRotateMixPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseRotateIntoMix>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

struct FuseBackwardReducePass
    : sezm::impl::FuseBackwardReduceBase<FuseBackwardReducePass> {
  void runOnOperation() override {
    if (failed(applyReportingPattern<FuseBackwardWithReduce>(getOperation())))
      signalPassFailure();
  }
};

struct FuseFocusScalePass : sezm::impl::FuseFocusScaleBase<FuseFocusScalePass> {
  void runOnOperation() override {
    if (failed(applyReportingPattern<FoldFocusScaleIntoAggregate>(
            getOperation())) ||
        failed(applyReportingPattern<FoldFocusScaleIntoAggregateGrad>(
            getOperation())))
      signalPassFailure();
  }
};

struct FuseAccumulatePass : sezm::impl::FuseAccumulateBase<FuseAccumulatePass> {
  void runOnOperation() override {
    if (failed(applyReportingPattern<FoldAddIntoAccumulator>(getOperation())))
      signalPassFailure();
  }
};

/// Whether `map` reads an operand in place or broadcast along some of the
/// loops: the loops it keeps, in order (no transposition).
/// Points the `tensor.dim` users of `value` at what its producer makes its
/// extents of (its destination's extents for a linalg op, the output shape of
/// an expand_shape), so that they keep no use of it: autodiff sizes inits
/// through the values it differentiates, and such a use would keep a fusion
/// from consuming the value.
static void detachExtents(RewriterBase &rewriter, Value value) {
  auto result = dyn_cast<OpResult>(value);
  if (!result)
    return;
  for (OpOperand &use : llvm::make_early_inc_range(value.getUses())) {
    auto dim = dyn_cast<tensor::DimOp>(use.getOwner());
    std::optional<int64_t> axis = dim ? dim.getConstantIndex() : std::nullopt;
    if (!axis)
      continue;
    rewriter.setInsertionPoint(dim);
    FailureOr<OpFoldResult> extent =
        reifyDimOfResult(rewriter, result.getOwner(), result.getResultNumber(),
                         static_cast<int>(*axis));
    if (failed(extent))
      continue;
    rewriter.replaceOp(
        dim, getValueOrCreateConstantIndexOp(rewriter, dim.getLoc(), *extent));
  }
}

static bool isInOrderProjection(AffineMap map) {
  if (!map.isProjectedPermutation())
    return false;
  int64_t last = -1;
  for (AffineExpr result : map.getResults()) {
    int64_t position = cast<AffineDimExpr>(result).getPosition();
    if (position <= last)
      return false;
    last = position;
  }
  return true;
}

/// A generic over tensors whose results are written in place (identity
/// maps), that iterates in parallel only and reads each input in place or
/// broadcast: elementwise, with nothing to recompute when it is fused into
/// a user that reads it in place.
static bool isPlainElementwise(linalg::GenericOp generic) {
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic->getNumResults() == 0 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return false;
  for (OpOperand &operand : generic->getOpOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(&operand);
    if (generic.isDpsInit(&operand) ? !map.isIdentity()
                                    : !isInOrderProjection(map))
      return false;
  }
  return true;
}

/// Whether `generic`'s init `operand` is only a destination (its value is
/// not read by the body).
static bool isUnreadInit(linalg::GenericOp generic, OpOperand &operand) {
  return generic.getMatchingBlockArgument(&operand).use_empty();
}

/// Fuses one plain elementwise producer of `consumer` (a plain elementwise
/// generic) into it; returns the fused generic, or null when no producer
/// fuses. A producer result that is also used after the consumer (a
/// forward value the backward reads again) stays a result of the fused
/// generic: the chain is one kernel that writes what is kept, where each
/// link was a kernel that read its input back.
static linalg::GenericOp fuseOneProducer(RewriterBase &rewriter,
                                         linalg::GenericOp consumer) {
  for (OpOperand *input : consumer.getDpsInputOperands()) {
    auto producer = input->get().getDefiningOp<linalg::GenericOp>();
    // A producer read broadcast would be recomputed for every element it
    // is broadcast to.
    if (!isPlainElementwise(producer) ||
        producer->getBlock() != consumer->getBlock() ||
        !consumer.getMatchingIndexingMap(input).isIdentity())
      continue;
    auto value = cast<OpResult>(input->get());
    // One read of it, by this consumer; the consumer may also write into it
    // (convert-elementwise-to-linalg's destination is the first operand),
    // which then writes into the producer's destination. The fused generic
    // takes the consumer's place: the producer's other users must come
    // after it.
    int64_t reads = 0;
    bool fusable = isUnreadInit(
        producer, producer.getDpsInitsMutable()[value.getResultNumber()]);
    for (OpOperand &use : value.getUses()) {
      if (use.getOwner() != consumer)
        continue;
      if (consumer.isDpsInput(&use))
        ++reads;
      else if (!isUnreadInit(consumer, use))
        fusable = false;
    }
    for (Operation *user : producer->getUsers())
      if (user != consumer && (user->getBlock() != consumer->getBlock() ||
                               !consumer->isBeforeInBlock(user)))
        fusable = false;
    // The consumer reads no other result of the producer: the fused generic
    // would read its own result.
    for (Value operand : consumer->getOperands())
      if (operand.getDefiningOp() == producer && operand != value)
        fusable = false;
    if (!fusable || reads != 1)
      continue;
    Value destination = producer.getDpsInits()[value.getResultNumber()];
    for (OpOperand &init : consumer.getDpsInitsMutable())
      if (init.get() == value)
        rewriter.modifyOpInPlace(consumer, [&] { init.set(destination); });
    rewriter.setInsertionPoint(consumer);
    FailureOr<linalg::ElementwiseOpFusionResult> result =
        linalg::fuseElementwiseOps(rewriter, input);
    if (failed(result))
      continue;
    for (auto [original, replacement] : result->replacements)
      rewriter.replaceAllUsesWith(original, replacement);
    rewriter.eraseOp(consumer);
    rewriter.eraseOp(producer);
    return cast<linalg::GenericOp>(result->fusedOp);
  }
  return nullptr;
}

/// The most ops a generic's body, and the most generics a recomputation,
/// may have: a few instructions per element against a store and a load.
static constexpr int64_t kMaxRecomputedOps = 8;
static constexpr int64_t kMaxRecomputedGenerics = 6;

/// Whether `value` is read at or after `point`, an op of the block that
/// defines it (or it is defined outside that block, and so live there).
static bool isReadFrom(Value value, Operation *point) {
  Block *block = point->getBlock();
  if (isa<BlockArgument>(value) || value.getParentBlock() != block)
    return true;
  return llvm::any_of(value.getUsers(), [&](Operation *user) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    return ancestor && (ancestor == point || point->isBeforeInBlock(ancestor));
  });
}

/// What the extents of `value` can be read from without reading it: the
/// `tensor.empty` or `tensor.expand_shape` (its output shape) at the end of
/// its chain of destinations, or the argument that chain ends at; failure
/// otherwise.
static FailureOr<Value> extentSource(Value value) {
  while (true) {
    if (isa<BlockArgument>(value) ||
        isa_and_present<tensor::EmptyOp, tensor::ExpandShapeOp>(
            value.getDefiningOp()))
      return value;
    auto result = dyn_cast<OpResult>(value);
    auto op = value.getDefiningOp<DestinationStyleOpInterface>();
    if (!result || !op)
      return failure();
    value = op.getTiedOpOperand(result)->get();
  }
}

/// A `tensor.empty` of the type of `like` with its extents, built at the
/// rewriter's insertion point.
static Value emptyLike(RewriterBase &rewriter, Location loc, Value like) {
  auto type = cast<RankedTensorType>(like.getType());
  Value source = *extentSource(like);
  SmallVector<Value> extents;
  if (auto empty = source.getDefiningOp<tensor::EmptyOp>())
    llvm::append_range(extents, empty.getDynamicSizes());
  else if (auto expand = source.getDefiningOp<tensor::ExpandShapeOp>())
    llvm::append_range(extents, expand.getOutputShape());
  else
    for (int64_t axis = 0; axis < type.getRank(); ++axis)
      if (type.isDynamicDim(axis))
        extents.push_back(tensor::DimOp::create(rewriter, loc, source, axis));
  return tensor::EmptyOp::create(rewriter, loc, type.getShape(),
                                 type.getElementType(), extents);
}

/// A plain elementwise generic of one result whose body only computes
/// (arith and math ops, no loads, few of them) and whose destination can be
/// made again (extentSource): cheaper to compute again where a later reader
/// needs it than to store it until then.
static bool isCheapToRecompute(linalg::GenericOp generic) {
  if (!isPlainElementwise(generic) || generic->getNumResults() != 1 ||
      !isUnreadInit(generic, generic.getDpsInitsMutable()[0]))
    return false;
  Block &body = generic.getRegion().front();
  if (static_cast<int64_t>(body.getOperations().size()) - 1 > kMaxRecomputedOps)
    return false;
  return succeeded(extentSource(generic.getDpsInits()[0])) &&
         llvm::all_of(body.without_terminator(), [](Operation &op) {
           return isa<arith::ArithDialect, math::MathDialect>(
                      op.getDialect()) &&
                  isPure(&op) && op.getNumRegions() == 0;
         });
}

/// Copies `ops` (in program order; generics, fills, reshapes) in front of
/// `reader`. A destination no body reads is made anew (the original would
/// have to live until here); one that is read (a contraction's fill) is
/// the copy's.
static IRMapping copyInFront(RewriterBase &rewriter, ArrayRef<Operation *> ops,
                             Operation *reader) {
  rewriter.setInsertionPoint(reader);
  IRMapping mapping;
  for (Operation *op : ops) {
    OpOperand *init = nullptr;
    if (auto dps = dyn_cast<DestinationStyleOpInterface>(op))
      init = &dps.getDpsInitsMutable()[0];
    auto generic = dyn_cast<linalg::GenericOp>(op);
    Value empty = init && (!generic || isUnreadInit(generic, *init))
                      ? emptyLike(rewriter, op->getLoc(), init->get())
                      : Value();
    Operation *copy = rewriter.clone(*op, mapping);
    if (empty)
      copy->setOperand(init->getOperandNumber(), empty);
  }
  return mapping;
}

/// The generics, in program order, that recompute `root` at `point` from
/// values live there anyway: `root` and, transitively, each cheap producer
/// it reads in place whose value is not read from `point` on. Empty where
/// that would keep more alive than storing `root` does: more than one
/// tensor read in place (the size of `root`) whose last read was before
/// `point`, or too many generics.
static SmallVector<Operation *> recomputation(linalg::GenericOp root,
                                              Operation *point) {
  llvm::SetVector<Operation *> generics;
  generics.insert(root);
  llvm::SetVector<Value> extended;
  for (size_t next = 0; next < generics.size(); ++next) {
    auto generic = cast<linalg::GenericOp>(generics[next]);
    for (OpOperand *input : generic.getDpsInputOperands()) {
      Value value = input->get();
      if (!isa<RankedTensorType>(value.getType()) ||
          isa_and_present<linalg::FillOp, arith::ConstantOp, tensor::EmptyOp>(
              value.getDefiningOp()) ||
          isReadFrom(value, point))
        continue;
      // A broadcast read is smaller than `root` (and a producer read so
      // would be recomputed per element): it stays stored, a little longer.
      if (!generic.getMatchingIndexingMap(input).isIdentity())
        continue;
      auto producer = value.getDefiningOp<linalg::GenericOp>();
      if (producer && producer->getBlock() == root->getBlock() &&
          isCheapToRecompute(producer))
        generics.insert(producer);
      else
        extended.insert(value);
    }
  }
  if (extended.size() > 1 ||
      static_cast<int64_t>(generics.size()) > kMaxRecomputedGenerics)
    return {};
  return inProgramOrder(generics.getArrayRef());
}

/// A cheap elementwise value (the SiLU's tanh and sigmoid, which the
/// backward reads again) is computed again, from values live there anyway,
/// in front of each of its readers after the first, where each of its
/// readers is a plain elementwise generic that reads it once in place: the
/// copies fuse into the later readers, the value into the first, and it is
/// no longer stored from the forward to the backward. At no point does more
/// stay alive: what the copies read that would have died earlier is at most
/// one tensor the size of the value (and ones read broadcast, smaller). The
/// same operations on the same operands: the same bits.
static void recomputeForLaterReaders(RewriterBase &rewriter,
                                     func::FuncOp func) {
  SmallVector<linalg::GenericOp> roots;
  func.walk([&](linalg::GenericOp generic) {
    if (isCheapToRecompute(generic))
      roots.push_back(generic);
  });
  for (linalg::GenericOp root : roots) {
    Value value = root->getResult(0);
    // Extents are read without keeping the value (detachExtents, once the
    // value qualifies).
    llvm::SmallSetVector<Operation *, 4> distinct;
    for (Operation *user : value.getUsers())
      if (!isa<tensor::DimOp>(user))
        distinct.insert(user);
    if (distinct.size() < 2 || llvm::any_of(distinct, [&](Operation *reader) {
          return reader->getBlock() != root->getBlock();
        }))
      continue;
    SmallVector<Operation *> readers = inProgramOrder(distinct.getArrayRef());
    // The first reader too: a value stored for it anyway is better read
    // again than recomputed.
    auto later = llvm::drop_begin(readers);
    bool eligible = llvm::all_of(readers, [&](Operation *op) {
      auto reader = dyn_cast<linalg::GenericOp>(op);
      if (!isPlainElementwise(reader))
        return false;
      int64_t reads = 0;
      for (OpOperand &use : reader->getOpOperands()) {
        if (use.get() != value)
          continue;
        if (!reader.isDpsInput(&use)) {
          if (!isUnreadInit(reader, use))
            return false;
          continue;
        }
        if (!reader.getMatchingIndexingMap(&use).isIdentity())
          return false;
        ++reads;
      }
      return reads == 1;
    });
    if (!eligible)
      continue;
    SmallVector<Operation *> generics = recomputation(root, readers.back());
    if (generics.empty())
      continue;
    detachExtents(rewriter, value);
    for (Operation *reader : later) {
      Value copied = copyInFront(rewriter, generics, reader).lookup(value);
      rewriter.modifyOpInPlace(reader, [&] {
        for (OpOperand &use : reader->getOpOperands())
          if (use.get() == value)
            use.set(copied);
      });
    }
  }
}

/// The most weights a contraction recomputed for a late reader may have
/// (DPA4's mixings into grid directions are 3 x 7 and 4 x 10): a few
/// multiply-adds per output, against keeping the output.
static constexpr int64_t kMaxRecomputedWeights = 64;

/// A product over the middle axis as contractMiddleAxes writes it (x by a
/// small static w, from a fill), cheap to compute again.
static bool isSmallContraction(linalg::GenericOp generic) {
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumDpsInputs() != 2 || generic->getNumResults() != 1 ||
      generic.getNumReductionLoops() != 1 ||
      !generic.getDpsInits()[0].getDefiningOp<linalg::FillOp>())
    return false;
  auto w = dyn_cast<RankedTensorType>(generic.getDpsInputs()[1].getType());
  Block &body = generic.getRegion().front();
  return w && w.hasStaticShape() &&
         w.getNumElements() <= kMaxRecomputedWeights &&
         body.getOperations().size() == 3 && isa<arith::MulFOp>(body.front()) &&
         isa<arith::AddFOp>(*std::next(body.begin()));
}

/// The static elements of a row of `type` (the product of its extents but a
/// dynamic first); nullopt where another extent is dynamic, 0 where the
/// first is static too (a weight: nothing per row).
static std::optional<int64_t> rowElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() == 0)
    return 0;
  if (!tensor.isDynamicDim(0))
    return tensor.hasStaticShape() ? std::optional<int64_t>(0) : std::nullopt;
  int64_t elements = 1;
  for (int64_t extent : tensor.getShape().drop_front()) {
    if (ShapedType::isDynamic(extent))
      return std::nullopt;
    elements *= extent;
  }
  return elements;
}

/// The ops, in program order, that compute `root` (a small contraction)
/// again at `point` from values live there anyway: `root`, the fill it
/// starts from, and transitively the cheap elementwise generics and the
/// reshapes whose values it reads that are dead by `point`. Empty where the
/// values it would keep alive longer instead are more per row than `root`.
static SmallVector<Operation *> contractionRecomputation(linalg::GenericOp root,
                                                         Operation *point) {
  std::optional<int64_t> budget = rowElements(root->getResultTypes()[0]);
  auto fill = root.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  if (!budget || *budget == 0 || failed(extentSource(fill.getOutputs()[0])))
    return {};
  llvm::SetVector<Operation *> ops;
  ops.insert(root);
  ops.insert(fill);
  int64_t extended = 0;
  for (size_t next = 0; next < ops.size(); ++next) {
    Operation *op = ops[next];
    SmallVector<Value> reads;
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      llvm::append_range(reads, generic.getDpsInputs());
    else if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op))
      reads.push_back(op->getOperand(0));
    for (Value value : reads) {
      if (!isa<RankedTensorType>(value.getType()) ||
          isa_and_present<linalg::FillOp, arith::ConstantOp, tensor::EmptyOp>(
              value.getDefiningOp()) ||
          isReadFrom(value, point))
        continue;
      Operation *producer = value.getDefiningOp();
      auto generic = dyn_cast_or_null<linalg::GenericOp>(producer);
      if (producer && producer->getBlock() == root->getBlock() &&
          (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(producer) ||
           isCheapToRecompute(generic))) {
        ops.insert(producer);
        continue;
      }
      std::optional<int64_t> elements = rowElements(value.getType());
      extended += elements ? *elements : *budget + 1;
    }
  }
  if (extended > *budget ||
      static_cast<int64_t>(ops.size()) > 2 + kMaxRecomputedGenerics)
    return {};
  return inProgramOrder(ops.getArrayRef());
}

/// A small contraction (a product over the middle axis: DPA4's first
/// messages, mixed into grid directions, which the aggregation reads at the
/// start of the step and its backward at the end) read again after other
/// sezm ops have run since its previous reader is computed again in front
/// of that reader, from values live there anyway: it is not kept through
/// the step. Readers close together share a copy. As with the cheap
/// values, nothing stays alive longer that is larger than it; the same
/// operations on the same operands, the same bits.
static void recomputeContractionsForLateReaders(RewriterBase &rewriter,
                                                func::FuncOp func) {
  SmallVector<linalg::GenericOp> roots;
  func.walk([&](linalg::GenericOp generic) {
    if (isSmallContraction(generic))
      roots.push_back(generic);
  });
  for (linalg::GenericOp root : roots) {
    Value value = root->getResult(0);
    Block *block = root->getBlock();
    SmallVector<OpOperand *> uses =
        usesInProgramOrder(value, block, [](OpOperand &use) {
          return !isa<tensor::DimOp>(use.getOwner());
        });
    if (uses.size() < 2)
      continue;
    Operation *previous = uses.front()->getOwner();
    Value current = value;
    for (OpOperand *use : llvm::drop_begin(uses)) {
      Operation *reader = use->getOwner();
      bool busy = previous != reader && sezmOpRunsBetween(previous, reader);
      previous = reader;
      SmallVector<Operation *> ops;
      if (busy)
        ops = contractionRecomputation(root, reader);
      if (!ops.empty()) {
        detachExtents(rewriter, value);
        current = copyInFront(rewriter, ops, reader).lookup(value);
      }
      rewriter.modifyOpInPlace(reader, [&] { use->set(current); });
    }
  }
}

/// A column (M x 1) times a constant row of ones (1 x N) from a zero init
/// becomes the column broadcast along the rows (a 1 x 1 product of each
/// element with one: the same values). The DPA4 import writes the env
/// scaling of the radial features so, because autodiff has a rule for the
/// product; as a broadcast, it fuses into the elementwise op that reads it.
static void broadcastProductsWithOnes(RewriterBase &rewriter,
                                      func::FuncOp func) {
  SmallVector<linalg::MatmulOp> products;
  func.walk([&](linalg::MatmulOp matmul) {
    auto lhs = dyn_cast<RankedTensorType>(matmul.getInputs()[0].getType());
    auto out = dyn_cast<RankedTensorType>(matmul.getOutputs()[0].getType());
    DenseElementsAttr rhs;
    if (matmul.hasUserDefinedMaps() || !matmul.hasPureTensorSemantics() ||
        !lhs || !out || lhs.getDimSize(1) != 1 ||
        !matchPattern(matmul.getInputs()[1], m_Constant(&rhs)) ||
        !rhs.isSplat() || !isa<FloatType>(rhs.getElementType()) ||
        !rhs.getSplatValue<APFloat>().isExactlyValue(1.0) ||
        getConstantFillValue(matmul.getOutputs()[0]) != 0.0)
      return;
    products.push_back(matmul);
  });
  for (linalg::MatmulOp matmul : products) {
    rewriter.setInsertionPoint(matmul);
    Location loc = matmul.getLoc();
    Value column = tensor::CollapseShapeOp::create(
        rewriter, loc, matmul.getInputs()[0],
        SmallVector<ReassociationIndices>{{0, 1}});
    Value rows =
        matmul.getOutputs()[0].getDefiningOp<linalg::FillOp>().getOutputs()[0];
    auto broadcast = linalg::BroadcastOp::create(rewriter, loc, column, rows,
                                                 ArrayRef<int64_t>{1});
    rewriter.replaceOp(matmul, broadcast->getResults());
  }
}

/// The transpose that computes `value` where it swaps the last two of three
/// dimensions, else null.
static linalg::TransposeOp swapOfLastTwo(Value value) {
  auto transpose = value.getDefiningOp<linalg::TransposeOp>();
  if (!transpose || transpose.getPermutation() != ArrayRef<int64_t>{0, 2, 1})
    return nullptr;
  return transpose;
}

/// A product over the middle axis of a 3-D tensor, out[e, j, c] = sum_i
/// X[e, i, c] W[i, j], written as transpose -> collapse -> matmul by W ->
/// expand -> transpose (the DPA4 import's mixing of grid points or degrees,
/// and its derivative: matmul's rule transposes W), becomes one contraction
/// that reads X and writes out in place: the two transposed copies are
/// never written. Either transpose may be absent (X read, or out written,
/// as (e, c, i) or (e, c, j)), but one is there. The sums run over i in
/// order from the zero init, as the matmul's do: the same bits.
static void contractMiddleAxes(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<linalg::MatmulOp> products;
  func.walk([&](linalg::MatmulOp matmul) { products.push_back(matmul); });
  for (linalg::MatmulOp matmul : products) {
    auto collapse =
        matmul.getInputs()[0].getDefiningOp<tensor::CollapseShapeOp>();
    auto weight = dyn_cast<RankedTensorType>(matmul.getInputs()[1].getType());
    if (matmul.hasUserDefinedMaps() || !matmul.hasPureTensorSemantics() ||
        !collapse || !weight || !weight.hasStaticShape() ||
        getConstantFillValue(matmul.getOutputs()[0]) != 0.0 ||
        !matmul->hasOneUse() || collapse.getSrcType().getRank() != 3 ||
        collapse.getReassociationIndices() !=
            SmallVector<ReassociationIndices>{{0, 1}, {2}})
      continue;
    auto expand = dyn_cast<tensor::ExpandShapeOp>(*matmul->user_begin());
    if (!expand || expand.getResultType().getRank() != 3 ||
        expand.getReassociationIndices() !=
            SmallVector<ReassociationIndices>{{0, 1}, {2}} ||
        expand.getResultType().getDimSize(1) !=
            collapse.getSrcType().getDimSize(1) ||
        ShapedType::isDynamic(expand.getResultType().getDimSize(1)))
      continue;
    linalg::TransposeOp inSwap = swapOfLastTwo(collapse.getSrc());
    detachExtents(rewriter, expand.getResult());
    linalg::TransposeOp outSwap =
        expand->hasOneUse()
            ? dyn_cast<linalg::TransposeOp>(*expand->user_begin())
            : nullptr;
    if (outSwap && !swapOfLastTwo(outSwap->getResult(0)))
      outSwap = nullptr;
    if (!inSwap && !outSwap)
      continue;

    // Loops (e, a, b, i): the output's dimensions in its order, then the
    // depth i; c is a (out written (e, c, j)) or b (out written (e, j, c)).
    MLIRContext *context = rewriter.getContext();
    AffineExpr e = getAffineDimExpr(0, context),
               a = getAffineDimExpr(1, context),
               b = getAffineDimExpr(2, context),
               i = getAffineDimExpr(3, context);
    AffineExpr c = outSwap ? b : a, j = outSwap ? a : b;
    Value x = inSwap ? inSwap.getInput() : collapse.getSrc();
    AffineMap xMap = AffineMap::get(4, 0,
                                    inSwap ? ArrayRef<AffineExpr>{e, i, c}
                                           : ArrayRef<AffineExpr>{e, c, i},
                                    context);
    AffineMap wMap = AffineMap::get(4, 0, {i, j}, context);
    AffineMap outMap = AffineMap::get(4, 0, {e, a, b}, context);

    Location loc = matmul.getLoc();
    rewriter.setInsertionPoint(outSwap ? outSwap.getOperation()
                                       : expand.getOperation());
    Value result = outSwap ? outSwap->getResult(0) : Value(expand.getResult());
    auto resultType = cast<RankedTensorType>(result.getType());
    SmallVector<Value> dynamicSizes;
    if (resultType.isDynamicDim(0))
      dynamicSizes.push_back(tensor::DimOp::create(rewriter, loc, x, 0));
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                resultType.getElementType(), dynamicSizes);
    Value zero =
        matmul.getOutputs()[0].getDefiningOp<linalg::FillOp>().getInputs()[0];
    Value init =
        linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
    auto contraction = linalg::GenericOp::create(
        rewriter, loc, resultType, ValueRange{x, matmul.getInputs()[1]},
        ValueRange{init}, ArrayRef<AffineMap>{xMap, wMap, outMap},
        ArrayRef<utils::IteratorType>{
            utils::IteratorType::parallel, utils::IteratorType::parallel,
            utils::IteratorType::parallel, utils::IteratorType::reduction},
        [](OpBuilder &builder, Location loc, ValueRange args) {
          Value product = arith::MulFOp::create(builder, loc, args[0], args[1]);
          Value sum = arith::AddFOp::create(builder, loc, args[2], product);
          linalg::YieldOp::create(builder, loc, sum);
        });
    rewriter.replaceAllUsesWith(result, contraction.getResult(0));
    if (outSwap)
      rewriter.eraseOp(outSwap);
    rewriter.eraseOp(expand);
    rewriter.eraseOp(matmul);
    if (collapse->use_empty())
      rewriter.eraseOp(collapse);
    if (inSwap && inSwap->use_empty())
      rewriter.eraseOp(inSwap);
  }
}

/// A broadcast or a fill that elementwise generics read in place becomes,
/// for each of them, a generic that reads its input broadcast, so that it
/// fuses into that reader: the broadcast tensor is never written. (A
/// reader may also write into it, as convert-elementwise-to-linalg's
/// destination, the first operand.)
static void spreadIntoReaders(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<Operation *> candidates;
  func.walk([&](Operation *op) {
    if (isa<linalg::BroadcastOp, linalg::FillOp>(op) &&
        op->getNumResults() == 1 && !op->use_empty())
      candidates.push_back(op);
  });
  SmallVector<linalg::LinalgOp> spreads;
  for (Operation *op : candidates) {
    // Each reader's uses: one in-place read, and unread destinations.
    llvm::MapVector<Operation *, int64_t> reads;
    bool taken = true;
    for (OpOperand &use : op->getUses()) {
      auto reader = dyn_cast<linalg::GenericOp>(use.getOwner());
      if (!isPlainElementwise(reader) ||
          (reader.isDpsInput(&use)
               ? !reader.getMatchingIndexingMap(&use).isIdentity()
               : !isUnreadInit(reader, use))) {
        taken = false;
        break;
      }
      reads[reader] += reader.isDpsInput(&use);
    }
    if (!taken ||
        llvm::any_of(reads, [](auto &entry) { return entry.second != 1; }))
      continue;
    // A copy per reader after the first (it costs nothing once it is a
    // broadcast read).
    for (auto &entry : llvm::drop_begin(reads)) {
      Operation *reader = entry.first;
      rewriter.setInsertionPoint(reader);
      Operation *copy = rewriter.clone(*op);
      rewriter.modifyOpInPlace(reader, [&] {
        for (OpOperand &operand : reader->getOpOperands())
          if (operand.get() == op->getResult(0))
            operand.set(copy->getResult(0));
      });
      spreads.push_back(cast<linalg::LinalgOp>(copy));
    }
    spreads.push_back(cast<linalg::LinalgOp>(op));
  }
  for (linalg::LinalgOp spread : spreads) {
    rewriter.setInsertionPoint(spread);
    (void)linalg::generalizeNamedOp(rewriter, spread);
  }
}

/// Two plain elementwise generics over the same loops that read one tensor
/// in place (the backward of a product, da = g * b and db = g * a, reads g
/// twice) become one generic with both results, at the later one's place:
/// one pass reads the shared tensor once, and a product it is may then
/// finish in a GEMM's epilogue. Legal where the later does not read the
/// earlier's result and nothing reads that before the later's place.
static void fuseSiblings(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<linalg::GenericOp> generics;
  func.walk([&](linalg::GenericOp generic) {
    if (isPlainElementwise(generic) && generic->getNumResults() == 1)
      generics.push_back(generic);
  });
  // The plain generics that read each tensor in place, in program order.
  llvm::MapVector<Value, SmallVector<linalg::GenericOp>> readers;
  for (linalg::GenericOp generic : generics)
    for (OpOperand *input : generic.getDpsInputOperands())
      if (isa<RankedTensorType>(input->get().getType()) &&
          generic.getMatchingIndexingMap(input).isIdentity() &&
          !llvm::is_contained(readers[input->get()], generic))
        readers[input->get()].push_back(generic);
  llvm::DenseSet<Operation *> merged;
  for (auto &[shared, users] : readers) {
    for (auto [earlier, later] : llvm::zip(users, llvm::drop_begin(users))) {
      if (merged.contains(earlier) || merged.contains(later) ||
          earlier->getBlock() != later->getBlock() ||
          earlier.getResultTypes() != later.getResultTypes() ||
          llvm::is_contained(later->getOperands(), earlier->getResult(0)) ||
          llvm::any_of(earlier->getUsers(),
                       [&, later = later](Operation *user) {
                         return user->getBlock() != later->getBlock() ||
                                user->isBeforeInBlock(later);
                       }))
        continue;
      rewriter.setInsertionPoint(later);
      SmallVector<Value> inputs(earlier.getDpsInputs());
      llvm::append_range(inputs, later.getDpsInputs());
      SmallVector<Value> inits = {earlier.getDpsInits()[0],
                                  later.getDpsInits()[0]};
      SmallVector<AffineMap> maps;
      for (OpOperand *input : earlier.getDpsInputOperands())
        maps.push_back(earlier.getMatchingIndexingMap(input));
      for (OpOperand *input : later.getDpsInputOperands())
        maps.push_back(later.getMatchingIndexingMap(input));
      maps.push_back(earlier.getIndexingMapsArray().back());
      maps.push_back(later.getIndexingMapsArray().back());
      SmallVector<Type> resultTypes = {earlier.getResultTypes()[0],
                                       later.getResultTypes()[0]};
      auto both = linalg::GenericOp::create(rewriter, later.getLoc(),
                                            resultTypes, inputs, inits, maps,
                                            later.getIteratorTypesArray());
      both->setDiscardableAttrs(later->getDiscardableAttrDictionary());
      // One block: both ops' inputs, then their inits, as arguments.
      Block *body = rewriter.createBlock(&both.getRegion());
      for (Value value : llvm::concat<Value>(inputs, inits))
        body->addArgument(getElementTypeOrSelf(value.getType()),
                          later.getLoc());
      SmallVector<Value> yielded;
      int64_t earlierInputs = earlier.getNumDpsInputs();
      int64_t laterInputs = later.getNumDpsInputs();
      for (auto [index, generic] :
           llvm::enumerate(std::array<linalg::GenericOp, 2>{earlier, later})) {
        IRMapping mapping;
        Block &original = generic.getRegion().front();
        int64_t first = index == 0 ? 0 : earlierInputs;
        int64_t count = index == 0 ? earlierInputs : laterInputs;
        for (int64_t i = 0; i < count; ++i)
          mapping.map(original.getArgument(i), body->getArgument(first + i));
        mapping.map(original.getArguments().back(),
                    body->getArgument(earlierInputs + laterInputs + index));
        for (Operation &op : original.without_terminator())
          rewriter.clone(op, mapping);
        yielded.push_back(
            mapping.lookupOrDefault(original.getTerminator()->getOperand(0)));
      }
      linalg::YieldOp::create(rewriter, later.getLoc(), yielded);
      rewriter.replaceOp(earlier, both->getResult(0));
      rewriter.replaceOp(later, both->getResult(1));
      merged.insert(earlier);
      merged.insert(later);
    }
  }
}

/// A plain elementwise generic of one result, read once and only by a
/// `linalg.reduce` (a product's gradient summed over the axes it was
/// broadcast along), is fused into it: the reduction becomes a generic that
/// computes each term as it adds it, and the terms are never stored. Sums
/// along rows only: the loop kernel runs a thread per output, and a sum
/// over the rows (a full sum) has a kernel of its own. Each
/// term is the same operations, added in the same order from the same
/// init: the same bits. A reduce whose loops the producer's inputs would
/// not all span is left alone (the fused generic could not size them).
static void fuseIntoReductions(RewriterBase &rewriter, func::FuncOp func) {
  SmallVector<linalg::ReduceOp> reductions;
  func.walk([&](linalg::ReduceOp reduce) { reductions.push_back(reduce); });
  for (linalg::ReduceOp reduce : reductions) {
    if (reduce.getNumDpsInputs() != 1 ||
        llvm::is_contained(reduce.getDimensions(), 0))
      continue;
    Value terms = reduce.getInputs()[0];
    auto producer = terms.getDefiningOp<linalg::GenericOp>();
    if (!isPlainElementwise(producer) || producer->getNumResults() != 1 ||
        producer->getBlock() != reduce->getBlock() ||
        !isUnreadInit(producer, producer.getDpsInitsMutable()[0]))
      continue;
    detachExtents(rewriter, terms);
    if (!terms.hasOneUse())
      continue;
    llvm::SmallBitVector spanned(producer.getNumLoops());
    for (OpOperand *input : producer.getDpsInputOperands())
      if (isa<ShapedType>(input->get().getType()))
        for (AffineExpr result :
             producer.getMatchingIndexingMap(input).getResults())
          spanned.set(cast<AffineDimExpr>(result).getPosition());
    if (!spanned.all())
      continue;
    rewriter.setInsertionPoint(reduce);
    FailureOr<linalg::GenericOp> generic =
        linalg::generalizeNamedOp(rewriter, reduce);
    if (failed(generic))
      continue;
    FailureOr<linalg::ElementwiseOpFusionResult> fused =
        linalg::fuseElementwiseOps(rewriter, generic->getDpsInputOperand(0));
    if (failed(fused))
      continue;
    for (auto [original, replacement] : fused->replacements)
      rewriter.replaceAllUsesWith(original, replacement);
    rewriter.eraseOp(*generic);
    rewriter.eraseOp(producer);
  }
}

/// Each plain elementwise generic, in program order, takes its producers
/// one at a time until none fuses. A producer comes before its consumer,
/// so the ops a fusion erases have all been visited: one pass, linear in
/// the function's generics.
static void fuseElementwiseChains(RewriterBase &rewriter, func::FuncOp func) {
  contractMiddleAxes(rewriter, func);
  broadcastProductsWithOnes(rewriter, func);
  recomputeForLaterReaders(rewriter, func);
  recomputeContractionsForLateReaders(rewriter, func);
  spreadIntoReaders(rewriter, func);
  SmallVector<linalg::GenericOp> generics;
  func.walk([&](linalg::GenericOp generic) { generics.push_back(generic); });
  for (linalg::GenericOp consumer : generics)
    while (isPlainElementwise(consumer))
      consumer = fuseOneProducer(rewriter, consumer);
  fuseIntoReductions(rewriter, func);
  fuseSiblings(rewriter, func);
}

struct FuseElementwisePass
    : sezm::impl::FuseElementwiseBase<FuseElementwisePass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    fuseElementwiseChains(rewriter, getOperation());
  }
};
} // namespace
