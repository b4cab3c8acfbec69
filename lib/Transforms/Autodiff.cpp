//===- Autodiff.cpp - forces and virial from an energy, by reverse mode ---===//

#include "SeZM/Transforms/Passes.h"

#include "SeZM/Dialect/SeZM/SO2Layout.h"
#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_AUTODIFF
#include "SeZM/Transforms/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;

namespace {
/// Whether sezm-autodiff can differentiate `op` (each has a case in
/// ReverseSweep::backpropagate). create-graph requires it of every op the
/// backward is made of.
bool hasDerivativeRule(Operation *op) {
  return isa<
      // sezm forward ops
      EdgeVectorsOp, EnvelopeOp, RadialBasisOp, WignerOp, RotateMixOp, RotateOp,
      MixOp, RotateBackOp, FocusCompeteOp, FocusScaleOp, EnvelopeAggregateOp,
      SO2LinearOp, GateOp, DegreeLinearOp, SegmentReduceOp,
      // sezm gradient ops that are differentiated again
      EdgeVectorsGradOp, EnvelopeGradOp, RadialBasisGradOp, WignerGradOp,
      SegmentReduceGradOp,
      // upstream ops
      arith::AddFOp, arith::MulFOp, arith::SubFOp, arith::NegFOp, arith::DivFOp,
      math::ExpOp, math::TanhOp, math::RsqrtOp, tensor::ExpandShapeOp,
      tensor::CollapseShapeOp, linalg::MatmulOp, linalg::TransposeOp,
      linalg::BroadcastOp, linalg::ReduceOp,
      // no derivative
      linalg::FillOp, tensor::EmptyOp, arith::ConstantOp, tensor::DimOp>(op);
}

/// The reverse sweep over one function body.
class ReverseSweep {
public:
  ReverseSweep(func::FuncOp func, OpBuilder &builder)
      : func(func), b(builder), loc(func.getLoc()) {}

  /// The argument named `name` (sezm.name, else arg<i>).
  Value argument(StringRef name) {
    for (BlockArgument arg : func.getArguments())
      if (argumentName(func, arg.getArgNumber()) == name)
        return arg;
    return Value();
  }

  /// The CSR (order, rowptr) of the edges by the key argument `keys`.
  FailureOr<std::pair<Value, Value>> csrOf(Operation *op, Value keys) {
    auto keyArg = dyn_cast<BlockArgument>(keys);
    if (!keyArg)
      return op->emitError() << "sezm-autodiff: the edge indices must be an "
                                "argument, to find their CSR";
    std::string key = argumentName(func, keyArg.getArgNumber());
    Value order, rowptr;
    for (BlockArgument arg : func.getArguments()) {
      auto of =
          func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kCsrOfAttr);
      if (!of || of.getValue() != key)
        continue;
      std::string name = argumentName(func, arg.getArgNumber());
      if (StringRef(name).ends_with("order"))
        order = arg;
      else if (StringRef(name).ends_with("rowptr"))
        rowptr = arg;
    }
    if (!order || !rowptr)
      return op->emitError()
             << "sezm-autodiff: no CSR of '" << key
             << "' among the arguments (mark its order and rowptr with "
                "sezm.csr_of = \""
             << key << "\")";
    return std::make_pair(order, rowptr);
  }

  /// The edge index argument whose CSR `order` is (its sezm.csr_of).
  FailureOr<Value> keysOfCsr(Operation *op, Value order) {
    auto orderArg = dyn_cast<BlockArgument>(order);
    StringAttr of = orderArg ? func.getArgAttrOfType<StringAttr>(
                                   orderArg.getArgNumber(), kCsrOfAttr)
                             : StringAttr();
    if (of)
      if (Value keys = argument(of.getValue()))
        return keys;
    return op->emitError() << "sezm-autodiff: the CSR order must be an "
                              "argument marked sezm.csr_of with the name of "
                              "its edge index argument";
  }

  /// Marks what depends on the seeds. A value that does, read inside an
  /// op's body rather than as its operand, is an error: no rule would see
  /// that dependence, and the derivative would silently miss it.
  LogicalResult markActive(ArrayRef<Value> seeds) {
    active.insert(seeds.begin(), seeds.end());
    for (Operation &op : func.getBody().front()) {
      WalkResult captured = op.walk([&](Operation *nested) {
        if (nested == &op)
          return WalkResult::advance();
        for (Value v : nested->getOperands())
          if (active.contains(v)) {
            op.emitError() << "sezm-autodiff: reads a value that depends on "
                              "what is differentiated inside its body "
                              "(pass it as an operand instead)";
            return WalkResult::interrupt();
          }
        return WalkResult::advance();
      });
      if (captured.wasInterrupted())
        return failure();
      if (llvm::any_of(op.getOperands(),
                       [&](Value v) { return active.contains(v); }))
        for (Value result : op.getResults())
          if (isa<FloatType>(getElementTypeOrSelf(result.getType())))
            active.insert(result);
    }
    return success();
  }

  void seed(Value value, Value cotangent) { cotangents[value] = cotangent; }
  Value cotangentOf(Value value) const { return cotangents.lookup(value); }

  /// Adds `g` to the cotangent of `value` if it depends on the positions.
  void add(Value value, Value g) {
    if (!active.contains(value) || !g)
      return;
    auto [it, inserted] = cotangents.try_emplace(value, g);
    if (!inserted)
      it->second = arith::AddFOp::create(b, loc, it->second, g);
  }
  bool isActive(Value value) const { return active.contains(value); }

  LogicalResult backpropagate(Operation *op);

  /// Adds to the features `x`, gathered per edge by `src`, their per-edge
  /// gradient summed over each source node's edges (the source CSR).
  LogicalResult addGathered(Operation *op, Value x, Value src, Value nodeGrad) {
    if (!isActive(x))
      return success();
    auto bySrc = csrOf(op, src);
    if (failed(bySrc))
      return failure();
    add(x, SegmentReduceOp::create(b, loc, x.getType(), nodeGrad, bySrc->first,
                                   bySrc->second));
    return success();
  }

  /// virial[k][j] = -sum_e dE/dv[e][k] v[e][j] = -(g^T v)[k][j], of
  /// differentiable ops; null when no edge vectors were differentiated.
  Value virial() {
    if (!edgeGrad)
      return Value();
    return arith::NegFOp::create(b, loc,
                                 matmul(transposed(edgeGrad), edgeVectors));
  }

private:
  /// The edge-frame (E, rows, C) tensor of a focus-major (F, E, rows*Cf)
  /// one.
  Value edgeFrameOf(Value focusMajor, int64_t rows);
  /// An uninitialized tensor of the shape and type of `like`.
  Value emptyLike(Value like);
  /// `matrix` transposed (a rank-2 linalg.transpose).
  Value transposed(Value matrix);
  /// A @ B as linalg.matmul into a zero-filled (rows of a, columns of b).
  Value matmul(Value a, Value bMat);
  /// The sum of every element of `input`, as a rank-0 tensor.
  Value fullSum(Value input);

  func::FuncOp func;
  OpBuilder &b;
  Location loc;
  /// The rule of an edge function's first-order gradient op
  /// (`<f>_grad %grad, %edge_vec {attrs}`): its second-order op, with the
  /// same attributes, gives the cotangents of both operands.
  template <typename SecondOrderOp>
  LogicalResult addSecondOrder(Operation *op, Value g) {
    Value grad = op->getOperand(0), edgeVec = op->getOperand(1);
    auto second = SecondOrderOp::create(
        b, loc, TypeRange{grad.getType(), edgeVec.getType()},
        ValueRange{g, grad, edgeVec}, op->getAttrs());
    add(grad, second.getGradCot());
    add(edgeVec, second.getEdgeVecGrad());
    return success();
  }

  /// The edge-vector gradient and edge vectors, for the virial.
  Value edgeGrad, edgeVectors;
  llvm::DenseSet<Value> active;
  llvm::DenseMap<Value, Value> cotangents;
};

Value ReverseSweep::emptyLike(Value like) {
  return tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, like),
                                 getElementTypeOrSelf(like.getType()));
}

Value ReverseSweep::edgeFrameOf(Value focusMajor, int64_t rows) {
  auto type = cast<RankedTensorType>(focusMajor.getType());
  int64_t streams = type.getDimSize(0), streamWidth = type.getDimSize(2) / rows;
  Type element = type.getElementType();
  OpFoldResult edges = tensor::getMixedSize(b, loc, focusMajor, 1);
  // (F, E, Dm*Cf) -> (F, E, Dm, Cf) -> (E, Dm, F, Cf) -> (E, Dm, C).
  Value split = tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get({streams, type.getDimSize(1), rows, streamWidth},
                            element),
      focusMajor, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}},
      SmallVector<OpFoldResult>{b.getIndexAttr(streams), edges,
                                b.getIndexAttr(rows),
                                b.getIndexAttr(streamWidth)});
  Value init = tensor::EmptyOp::create(
      b, loc,
      SmallVector<OpFoldResult>{edges, b.getIndexAttr(rows),
                                b.getIndexAttr(streams),
                                b.getIndexAttr(streamWidth)},
      element);
  Value edgeMajor = linalg::TransposeOp::create(b, loc, split, init,
                                                ArrayRef<int64_t>{1, 2, 0, 3})
                        .getResult()[0];
  return tensor::CollapseShapeOp::create(
      b, loc, edgeMajor, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
}

Value ReverseSweep::transposed(Value matrix) {
  OpFoldResult rows = tensor::getMixedSize(b, loc, matrix, 0);
  OpFoldResult columns = tensor::getMixedSize(b, loc, matrix, 1);
  Value init = tensor::EmptyOp::create(b, loc, {columns, rows},
                                       getElementTypeOrSelf(matrix.getType()));
  return linalg::TransposeOp::create(b, loc, matrix, init,
                                     ArrayRef<int64_t>{1, 0})
      .getResult()[0];
}

Value ReverseSweep::matmul(Value a, Value bMat) {
  Type element = getElementTypeOrSelf(a.getType());
  Value empty = tensor::EmptyOp::create(b, loc,
                                        {tensor::getMixedSize(b, loc, a, 0),
                                         tensor::getMixedSize(b, loc, bMat, 1)},
                                        element);
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0));
  Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  return linalg::MatmulOp::create(b, loc, ValueRange{a, bMat}, ValueRange{init})
      .getResult(0);
}

Value ReverseSweep::fullSum(Value input) {
  Type element = getElementTypeOrSelf(input.getType());
  auto scalarType = RankedTensorType::get({}, element);
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0));
  Value empty = tensor::EmptyOp::create(b, loc, scalarType, ValueRange());
  Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  return linalg::ReduceOp::create(
             b, loc, ValueRange{input}, ValueRange{init},
             llvm::to_vector(llvm::seq<int64_t>(0, rank)),
             [](OpBuilder &nested, Location l, ValueRange args) {
               Value sum = arith::AddFOp::create(nested, l, args[0], args[1]);
               linalg::YieldOp::create(nested, l, sum);
             })
      .getResult(0);
}

LogicalResult ReverseSweep::backpropagate(Operation *op) {
  SmallVector<Value> gs;
  bool any = false;
  for (Value result : op->getResults()) {
    gs.push_back(cotangentOf(result));
    any |= static_cast<bool>(gs.back());
  }
  if (!any)
    return success();
  if (!hasDerivativeRule(op))
    return op->emitError() << "sezm-autodiff: no derivative rule for "
                           << op->getName();
  Value g = gs.front();
  b.setInsertionPoint(func.getBody().front().getTerminator());

  if (auto o = dyn_cast<EdgeVectorsOp>(op)) {
    auto bySrc = csrOf(op, o.getSrc());
    if (failed(bySrc))
      return failure();
    auto byDst = csrOf(op, o.getDst());
    if (failed(byDst))
      return failure();
    add(o.getPositions(),
        EdgeVectorsGradOp::create(b, loc, o.getPositions().getType(), g,
                                  bySrc->first, bySrc->second, byDst->first,
                                  byDst->second));
    edgeGrad = g;
    edgeVectors = o.getResult();
    return success();
  }
  if (auto o = dyn_cast<EnvelopeOp>(op)) {
    add(o.getEdgeVec(), EnvelopeGradOp::create(
                            b, loc, o.getEdgeVec().getType(), g, o.getEdgeVec(),
                            o.getRcutAttr(), o.getExponentAttr()));
    return success();
  }
  if (auto o = dyn_cast<RadialBasisOp>(op)) {
    add(o.getEdgeVec(), RadialBasisGradOp::create(
                            b, loc, o.getEdgeVec().getType(), g, o.getEdgeVec(),
                            o.getRcutAttr(), o.getExponentAttr()));
    return success();
  }
  if (auto o = dyn_cast<WignerOp>(op)) {
    add(o.getEdgeVec(),
        WignerGradOp::create(b, loc, o.getEdgeVec().getType(), g,
                             o.getEdgeVec(), o.getLmaxAttr()));
    return success();
  }
  // The derivative rules of the first-order gradient ops, for a backward
  // that is differentiated again (create-graph).
  if (auto o = dyn_cast<EdgeVectorsGradOp>(op)) {
    // Linear in grad; its transpose takes the edge vectors of the cotangent.
    FailureOr<Value> src = keysOfCsr(op, o.getSrcOrder());
    if (failed(src))
      return failure();
    FailureOr<Value> dst = keysOfCsr(op, o.getDstOrder());
    if (failed(dst))
      return failure();
    add(o.getGrad(), EdgeVectorsOp::create(b, loc, o.getGrad().getType(), g,
                                           *src, *dst, /*shift=*/Value()));
    return success();
  }
  if (isa<EnvelopeGradOp>(op))
    return addSecondOrder<EnvelopeGradGradOp>(op, g);
  if (isa<RadialBasisGradOp>(op))
    return addSecondOrder<RadialBasisGradGradOp>(op, g);
  if (isa<WignerGradOp>(op))
    return addSecondOrder<WignerGradGradOp>(op, g);
  if (auto o = dyn_cast<SegmentReduceGradOp>(op)) {
    // Spreads each segment's row to its edges: the transpose is the sum.
    add(o.getGrad(), SegmentReduceOp::create(b, loc, o.getGrad().getType(), g,
                                             o.getOrder(), o.getRowptr()));
    return success();
  }
  if (auto o = dyn_cast<RotateMixOp>(op)) {
    if (o.getFocusMajor())
      g = edgeFrameOf(
          g, SO2Layout{static_cast<int64_t>(o.getLmax())}.reducedRows());
    Type cbGrad = isActive(o.getCb()) ? o.getCb().getType() : Type();
    auto grad = RotateMixGradOp::create(
        b, loc, o.getX().getType(), o.getWigner().getType(),
        o.getKc().getType(), cbGrad, g, o.getX(), o.getSrc(), o.getWigner(),
        o.getKc(), o.getCb(), o.getLmaxAttr(), o.getRankAttr());
    if (failed(addGathered(op, o.getX(), o.getSrc(), grad.getNodeGrad())))
      return failure();
    add(o.getWigner(), grad.getWignerGrad());
    add(o.getKc(), grad.getKcGrad());
    if (cbGrad)
      add(o.getCb(), grad.getCbGrad());
    return success();
  }
  if (auto o = dyn_cast<RotateOp>(op)) {
    auto grad = RotateGradOp::create(
        b, loc, o.getX().getType(), o.getWigner().getType(), g, o.getX(),
        o.getSrc(), o.getWigner(), o.getLmaxAttr());
    if (failed(addGathered(op, o.getX(), o.getSrc(), grad.getNodeGrad())))
      return failure();
    add(o.getWigner(), grad.getWignerGrad());
    return success();
  }
  if (auto o = dyn_cast<MixOp>(op)) {
    Type cbGrad = isActive(o.getCb()) ? o.getCb().getType() : Type();
    auto grad = MixGradOp::create(
        b, loc, o.getXl().getType(), o.getKc().getType(), cbGrad, g, o.getXl(),
        o.getKc(), o.getCb(), o.getLmaxAttr(), o.getRankAttr());
    add(o.getXl(), grad.getXlGrad());
    add(o.getKc(), grad.getKcGrad());
    if (cbGrad)
      add(o.getCb(), grad.getCbGrad());
    return success();
  }
  if (auto o = dyn_cast<RotateBackOp>(op)) {
    auto grad = RotateBackGradOp::create(b, loc, o.getXl().getType(),
                                         o.getWigner().getType(), g, o.getXl(),
                                         o.getWigner(), o.getLmaxAttr());
    add(o.getXl(), grad.getXlGrad());
    add(o.getWigner(), grad.getWignerGrad());
    return success();
  }
  if (auto o = dyn_cast<FocusCompeteOp>(op)) {
    Value norm = o.getNormScale();
    auto grad = FocusCompeteGradOp::create(
        b, loc, o.getU().getType(), o.getWfc().getType(),
        norm ? norm.getType() : Type(), g, o.getU(), o.getWfc(), norm,
        o.getLmaxAttr(), o.getFocusAttr());
    add(o.getU(), grad.getUGrad());
    add(o.getWfc(), grad.getWfcGrad());
    if (norm)
      add(norm, grad.getNormScaleGrad());
    return success();
  }
  if (auto o = dyn_cast<FocusScaleOp>(op)) {
    auto grad = FocusScaleGradOp::create(b, loc, o.getY().getType(),
                                         o.getAlpha().getType(), g, o.getY(),
                                         o.getAlpha());
    add(o.getY(), grad.getYGrad());
    add(o.getAlpha(), grad.getAlphaGrad());
    return success();
  }
  if (auto o = dyn_cast<EnvelopeAggregateOp>(op)) {
    auto grad = EnvelopeAggregateGradOp::create(
        b, loc, o.getXl().getType(), o.getWigner().getType(),
        o.getEnv().getType(), o.getInvSqrtDeg().getType(), g, o.getXl(),
        o.getWigner(), o.getEnv(), o.getInvSqrtDeg(), o.getDstOrder(),
        o.getDstRowptr(), o.getLmaxAttr());
    add(o.getXl(), grad.getXlGrad());
    add(o.getWigner(), grad.getWignerGrad());
    add(o.getEnv(), grad.getEnvGrad());
    add(o.getInvSqrtDeg(), grad.getInvSqrtDegGrad());
    return success();
  }
  if (auto o = dyn_cast<SO2LinearOp>(op)) {
    auto grad = SO2LinearGradOp::create(
        b, loc, o.getU().getType(), o.getW0().getType(), o.getWu().getType(),
        o.getWv().getType(), g, o.getU(), o.getW0(), o.getWu(), o.getWv(),
        o.getLmaxAttr(), o.getFocusAttr());
    add(o.getU(), grad.getUGrad());
    add(o.getW0(), grad.getW0Grad());
    add(o.getWu(), grad.getWuGrad());
    add(o.getWv(), grad.getWvGrad());
    return success();
  }
  if (auto o = dyn_cast<GateOp>(op)) {
    auto grad = GateGradOp::create(b, loc, o.getZ().getType(),
                                   o.getGw().getType(), g, o.getZ(), o.getGw(),
                                   o.getLmaxAttr(), o.getFocusAttr());
    add(o.getZ(), grad.getZGrad());
    add(o.getGw(), grad.getGwGrad());
    return success();
  }
  if (auto o = dyn_cast<DegreeLinearOp>(op)) {
    // The map is linear in x: its gradient is the transposed map.
    if (isActive(o.getW()))
      add(o.getW(), DegreeLinearWeightGradOp::create(
                        b, loc, o.getW().getType(), g, o.getX(),
                        o.getLmaxAttr(), o.getTransposedAttr()));
    add(o.getX(), DegreeLinearOp::create(
                      b, loc, o.getX().getType(), g, o.getW(), o.getLmaxAttr(),
                      o.getTransposed() ? UnitAttr() : b.getUnitAttr()));
    return success();
  }
  if (auto o = dyn_cast<SegmentReduceOp>(op)) {
    add(o.getValues(),
        SegmentReduceGradOp::create(b, loc, o.getValues().getType(), g,
                                    o.getOrder(), o.getRowptr()));
    return success();
  }
  if (auto o = dyn_cast<arith::AddFOp>(op)) {
    add(o.getLhs(), g);
    add(o.getRhs(), g);
    return success();
  }
  if (auto o = dyn_cast<arith::MulFOp>(op)) {
    add(o.getLhs(), arith::MulFOp::create(b, loc, g, o.getRhs()));
    add(o.getRhs(), arith::MulFOp::create(b, loc, g, o.getLhs()));
    return success();
  }
  if (auto o = dyn_cast<arith::SubFOp>(op)) {
    add(o.getLhs(), g);
    if (isActive(o.getRhs()))
      add(o.getRhs(), arith::NegFOp::create(b, loc, g));
    return success();
  }
  if (auto o = dyn_cast<arith::NegFOp>(op)) {
    add(o.getOperand(), arith::NegFOp::create(b, loc, g));
    return success();
  }
  if (auto o = dyn_cast<arith::DivFOp>(op)) {
    // r = a / b: da = g / b, db = -(g / b) r.
    Value gOverB = arith::DivFOp::create(b, loc, g, o.getRhs());
    add(o.getLhs(), gOverB);
    if (isActive(o.getRhs()))
      add(o.getRhs(),
          arith::NegFOp::create(
              b, loc, arith::MulFOp::create(b, loc, gOverB, o.getResult())));
    return success();
  }
  if (auto o = dyn_cast<math::ExpOp>(op)) {
    add(o.getOperand(), arith::MulFOp::create(b, loc, g, o.getResult()));
    return success();
  }
  if (auto o = dyn_cast<math::TanhOp>(op)) {
    // t = tanh(x): dx = g (1 - t^2) = g - g t^2, which stays finite where
    // the exp form of a sigmoid overflows.
    Value t = o.getResult();
    Value gtt =
        arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, g, t), t);
    add(o.getOperand(), arith::SubFOp::create(b, loc, g, gtt));
    return success();
  }
  if (auto o = dyn_cast<math::RsqrtOp>(op)) {
    // r = x^(-1/2): dx = -g r^3 / 2.
    Value r = o.getResult();
    Value minusHalf = arith::ConstantOp::create(
        b, loc, b.getFloatAttr(getElementTypeOrSelf(r.getType()), -0.5));
    Value half =
        linalg::FillOp::create(b, loc, minusHalf, emptyLike(r)).getResult(0);
    Value cube =
        arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, r, r), r);
    add(o.getOperand(),
        arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, g, cube),
                              half));
    return success();
  }
  if (auto o = dyn_cast<tensor::ExpandShapeOp>(op)) {
    // A reshape moves no values: the gradient is reshaped back.
    add(o.getSrc(),
        tensor::CollapseShapeOp::create(b, loc, o.getSrcType(), g,
                                        o.getReassociationIndices()));
    return success();
  }
  if (auto o = dyn_cast<tensor::CollapseShapeOp>(op)) {
    add(o.getSrc(), tensor::ExpandShapeOp::create(
                        b, loc, o.getSrcType(), g, o.getReassociationIndices(),
                        tensor::getMixedSizes(b, loc, o.getSrc())));
    return success();
  }
  if (auto o = dyn_cast<linalg::MatmulOp>(op)) {
    // C = A B: dA = g B^T, dB = A^T g.
    Value a = o.getInputs()[0], bMat = o.getInputs()[1];
    if (isActive(a))
      add(a, matmul(g, transposed(bMat)));
    if (isActive(bMat))
      add(bMat, matmul(transposed(a), g));
    return success();
  }
  if (auto o = dyn_cast<linalg::TransposeOp>(op)) {
    ArrayRef<int64_t> permutation = o.getPermutation();
    SmallVector<int64_t> inverse(permutation.size());
    SmallVector<OpFoldResult> sizes;
    for (auto [to, from] : llvm::enumerate(permutation))
      inverse[from] = static_cast<int64_t>(to);
    for (int64_t axis : inverse)
      sizes.push_back(tensor::getMixedSize(b, loc, g, axis));
    Value init = tensor::EmptyOp::create(b, loc, sizes,
                                         getElementTypeOrSelf(g.getType()));
    add(o.getInput(),
        linalg::TransposeOp::create(b, loc, g, init, inverse).getResult()[0]);
    return success();
  }
  if (auto o = dyn_cast<linalg::BroadcastOp>(op)) {
    // Only a scalar spread over a whole tensor (the derivative of a full
    // sum): its transpose is the full sum.
    if (cast<ShapedType>(o.getInput().getType()).getRank() != 0)
      return op->emitError() << "sezm-autodiff: only broadcasts of a scalar "
                                "have a derivative rule";
    add(o.getInput(), fullSum(g));
    return success();
  }
  if (isa<linalg::ReduceOp>(op)) {
    auto o = cast<linalg::ReduceOp>(op);
    // A full sum to a scalar: every element gets the scalar's cotangent.
    Value input = o.getInputs()[0];
    auto type = cast<RankedTensorType>(input.getType());
    if (cast<ShapedType>(g.getType()).getRank() != 0 ||
        o.getDimensions().size() != static_cast<size_t>(type.getRank()))
      return op->emitError() << "sezm-autodiff: only full sums to a scalar "
                                "have a derivative rule";
    Value spread = linalg::BroadcastOp::create(
                       b, loc, g, emptyLike(input),
                       llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())))
                       .getResult()[0];
    add(input, spread);
    return success();
  }
  if (isa<linalg::FillOp, tensor::EmptyOp, arith::ConstantOp, tensor::DimOp>(
          op))
    return success();
  return op->emitError() << "sezm-autodiff: internal error: " << op->getName()
                         << " is listed as differentiable but has no rule";
}

struct AutodiffPass : sezm::impl::AutodiffBase<AutodiffPass> {
  using sezm::impl::AutodiffBase<AutodiffPass>::AutodiffBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto source = module.lookupSymbol<func::FuncOp>(energy);
    if (!source) {
      module.emitError() << "sezm-autodiff: no function @" << energy;
      return signalPassFailure();
    }
    if (source.getNumResults() != 1 ||
        cast<ShapedType>(source.getResultTypes()[0]).getRank() != 0) {
      source.emitError() << "sezm-autodiff: @" << energy
                         << " must return one scalar energy (a rank-0 tensor)";
      return signalPassFailure();
    }
    // A declaration of the derived function (so that other functions can
    // call it before it exists, e.g. a force loss) is replaced by it.
    std::string derivedName = energy + "_forces";
    auto declared = module.lookupSymbol<func::FuncOp>(derivedName);
    if (declared && !declared.isDeclaration()) {
      declared.emitError() << "sezm-autodiff: @" << derivedName
                           << " exists already";
      return signalPassFailure();
    }
    func::FuncOp derived = source.clone();
    derived.setSymName(derivedName);
    module.push_back(derived);

    OpBuilder b(derived.getContext());
    ReverseSweep sweep(derived, b);
    Value positions = sweep.argument("positions");
    if (!positions) {
      source.emitError() << "sezm-autodiff: @" << energy
                         << " has no argument named \"positions\"";
      return signalPassFailure();
    }
    // The arguments whose gradients are returned too (training).
    SmallVector<Value> seeds = {positions};
    for (const std::string &name : weights) {
      Value weight = sweep.argument(name);
      if (!weight || weight == positions) {
        source.emitError() << "sezm-autodiff: @" << energy
                           << " has no weight argument named \"" << name
                           << "\"";
        return signalPassFailure();
      }
      seeds.push_back(weight);
    }
    if (failed(sweep.markActive(seeds)))
      return signalPassFailure();

    auto returnOp =
        cast<func::ReturnOp>(derived.getBody().front().getTerminator());
    Value energyValue = returnOp.getOperand(0);
    b.setInsertionPoint(returnOp);
    Location loc = derived.getLoc();
    auto energyType = cast<RankedTensorType>(energyValue.getType());
    Value one = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            energyType, b.getFloatAttr(energyType.getElementType(), 1.0)));
    sweep.seed(energyValue, one);

    SmallVector<Operation *> forward;
    for (Operation &op : derived.getBody().front().without_terminator())
      forward.push_back(&op);
    for (Operation *op : llvm::reverse(forward))
      if (failed(sweep.backpropagate(op)))
        return signalPassFailure();

    b.setInsertionPoint(returnOp);
    Value gradient = sweep.cotangentOf(positions);
    if (!gradient) {
      source.emitError() << "sezm-autodiff: the energy of @" << energy
                         << " does not depend on the positions";
      return signalPassFailure();
    }
    Value forces = arith::NegFOp::create(b, loc, gradient);
    Type element = energyType.getElementType();
    auto virialType = RankedTensorType::get({3, 3}, element);
    Value virial = sweep.virial();
    if (!virial)
      virial = arith::ConstantOp::create(
          b, loc,
          DenseElementsAttr::get(virialType, b.getFloatAttr(element, 0.0)));
    SmallVector<Value> results = {energyValue, forces, virial};
    SmallVector<std::string> names = {"energy", "forces", "virial"};
    for (auto [name, weight] :
         llvm::zip(weights, ArrayRef(seeds).drop_front())) {
      Value weightGrad = sweep.cotangentOf(weight);
      if (!weightGrad) {
        source.emitError() << "sezm-autodiff: the energy of @" << energy
                           << " does not depend on \"" << name << "\"";
        return signalPassFailure();
      }
      results.push_back(weightGrad);
      names.push_back(name + "_grad");
    }
    func::ReturnOp::create(b, loc, results);
    returnOp.erase();
    derived.setType(FunctionType::get(derived.getContext(),
                                      derived.getArgumentTypes(),
                                      ValueRange(results).getTypes()));
    derived.setAllResultAttrs(ArrayRef<DictionaryAttr>{});
    for (auto [i, name] : llvm::enumerate(names))
      derived.setResultAttr(i, kNameAttr, b.getStringAttr(name));

    if (createGraph) {
      // Everything after the forward ops is the backward: each op of it must
      // be differentiable again.
      for (Operation &op : llvm::make_range(
               std::next(forward.back()->getIterator()),
               derived.getBody().front().without_terminator().end()))
        if (!hasDerivativeRule(&op)) {
          op.emitError() << "sezm-autodiff: create-graph: the backward of @"
                         << energy << " uses " << op.getName()
                         << ", which has no derivative rule yet";
          return signalPassFailure();
        }
      derived->setAttr(kCreateGraphAttr, b.getUnitAttr());
    }
    if (declared) {
      if (declared.getFunctionType() != derived.getFunctionType()) {
        declared.emitError() << "sezm-autodiff: @" << derivedName
                             << " is declared as " << declared.getFunctionType()
                             << ", but it is " << derived.getFunctionType();
        return signalPassFailure();
      }
      declared.erase();
    }
  }
};
} // namespace
