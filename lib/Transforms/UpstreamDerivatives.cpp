//===- UpstreamDerivatives.cpp - derivative rules of upstream ops ---------===//
//
// DerivativeOpInterface external models for the arith, math, tensor and
// linalg ops that sezm programs use around the sezm ops (residual adds,
// activations, reshapes, the dense layers, the energy sum).
//
//===----------------------------------------------------------------------===//

#include "SeZM/Transforms/Passes.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::sezm;

namespace {
/// The rule of an upstream op; each is specialized below.
template <typename OpTy>
struct Rule : DerivativeOpInterface::ExternalModel<Rule<OpTy>, OpTy> {
  LogicalResult backpropagate(Operation *op, ReverseMode &sweep,
                              ArrayRef<Value> cotangents) const;
};

/// Ops whose results carry no derivative (fills, constants, shapes).
template <typename OpTy>
struct NoDerivative
    : DerivativeOpInterface::ExternalModel<NoDerivative<OpTy>, OpTy> {
  LogicalResult backpropagate(Operation *, ReverseMode &,
                              ArrayRef<Value>) const {
    return success();
  }
};
} // namespace

template <>
LogicalResult
Rule<arith::AddFOp>::backpropagate(Operation *op, ReverseMode &sweep,
                                   ArrayRef<Value> cotangents) const {
  Value g = cotangents.front();
  auto o = cast<arith::AddFOp>(op);
  sweep.add(o.getLhs(), g);
  sweep.add(o.getRhs(), g);
  return success();
}

template <>
LogicalResult
Rule<arith::MulFOp>::backpropagate(Operation *op, ReverseMode &sweep,
                                   ArrayRef<Value> cotangents) const {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto o = cast<arith::MulFOp>(op);
  sweep.add(o.getLhs(), arith::MulFOp::create(b, loc, g, o.getRhs()));
  sweep.add(o.getRhs(), arith::MulFOp::create(b, loc, g, o.getLhs()));
  return success();
}

template <>
LogicalResult
Rule<arith::SubFOp>::backpropagate(Operation *op, ReverseMode &sweep,
                                   ArrayRef<Value> cotangents) const {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto o = cast<arith::SubFOp>(op);
  sweep.add(o.getLhs(), g);
  if (sweep.isActive(o.getRhs()))
    sweep.add(o.getRhs(), arith::NegFOp::create(b, loc, g));
  return success();
}

template <>
LogicalResult
Rule<arith::NegFOp>::backpropagate(Operation *op, ReverseMode &sweep,
                                   ArrayRef<Value> cotangents) const {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto o = cast<arith::NegFOp>(op);
  sweep.add(o.getOperand(), arith::NegFOp::create(b, loc, g));
  return success();
}

template <>
LogicalResult
Rule<arith::DivFOp>::backpropagate(Operation *op, ReverseMode &sweep,
                                   ArrayRef<Value> cotangents) const {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto o = cast<arith::DivFOp>(op);
  // r = a / b: da = g / b, db = -(g / b) r.
  Value gOverB = arith::DivFOp::create(b, loc, g, o.getRhs());
  sweep.add(o.getLhs(), gOverB);
  if (sweep.isActive(o.getRhs()))
    sweep.add(
        o.getRhs(),
        arith::NegFOp::create(
            b, loc, arith::MulFOp::create(b, loc, gOverB, o.getResult())));
  return success();
}

template <>
LogicalResult
Rule<math::ExpOp>::backpropagate(Operation *op, ReverseMode &sweep,
                                 ArrayRef<Value> cotangents) const {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto o = cast<math::ExpOp>(op);
  sweep.add(o.getOperand(), arith::MulFOp::create(b, loc, g, o.getResult()));
  return success();
}

template <>
LogicalResult
Rule<math::TanhOp>::backpropagate(Operation *op, ReverseMode &sweep,
                                  ArrayRef<Value> cotangents) const {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto o = cast<math::TanhOp>(op);
  // t = tanh(x): dx = g (1 - t^2) = g - g t^2, which stays finite where
  // the exp form of a sigmoid overflows.
  Value t = o.getResult();
  Value gtt =
      arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, g, t), t);
  sweep.add(o.getOperand(), arith::SubFOp::create(b, loc, g, gtt));
  return success();
}

template <>
LogicalResult
Rule<math::RsqrtOp>::backpropagate(Operation *op, ReverseMode &sweep,
                                   ArrayRef<Value> cotangents) const {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto o = cast<math::RsqrtOp>(op);
  // r = x^(-1/2): dx = -g r^3 / 2.
  Value r = o.getResult();
  Value minusHalf = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(getElementTypeOrSelf(r.getType()), -0.5));
  Value half = linalg::FillOp::create(b, loc, minusHalf, sweep.emptyLike(r))
                   .getResult(0);
  Value cube =
      arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, r, r), r);
  sweep.add(o.getOperand(),
            arith::MulFOp::create(
                b, loc, arith::MulFOp::create(b, loc, g, cube), half));
  return success();
}

template <>
LogicalResult
Rule<tensor::ExpandShapeOp>::backpropagate(Operation *op, ReverseMode &sweep,
                                           ArrayRef<Value> cotangents) const {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto o = cast<tensor::ExpandShapeOp>(op);
  // A reshape moves no values: the gradient is reshaped back.
  sweep.add(o.getSrc(),
            tensor::CollapseShapeOp::create(b, loc, o.getSrcType(), g,
                                            o.getReassociationIndices()));
  return success();
}

template <>
LogicalResult
Rule<tensor::CollapseShapeOp>::backpropagate(Operation *op, ReverseMode &sweep,
                                             ArrayRef<Value> cotangents) const {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto o = cast<tensor::CollapseShapeOp>(op);
  sweep.add(o.getSrc(),
            tensor::ExpandShapeOp::create(
                b, loc, o.getSrcType(), g, o.getReassociationIndices(),
                tensor::getMixedSizes(b, loc, o.getSrc())));
  return success();
}

template <>
LogicalResult
Rule<linalg::MatmulOp>::backpropagate(Operation *op, ReverseMode &sweep,
                                      ArrayRef<Value> cotangents) const {
  Value g = cotangents.front();
  auto o = cast<linalg::MatmulOp>(op);
  // C = A B: dA = g B^T, dB = A^T g.
  Value a = o.getInputs()[0], bMat = o.getInputs()[1];
  if (sweep.isActive(a))
    sweep.add(a, sweep.matmul(g, sweep.transposed(bMat)));
  if (sweep.isActive(bMat))
    sweep.add(bMat, sweep.matmul(sweep.transposed(a), g));
  return success();
}

template <>
LogicalResult
Rule<linalg::TransposeOp>::backpropagate(Operation *op, ReverseMode &sweep,
                                         ArrayRef<Value> cotangents) const {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto o = cast<linalg::TransposeOp>(op);
  ArrayRef<int64_t> permutation = o.getPermutation();
  SmallVector<int64_t> inverse(permutation.size());
  SmallVector<OpFoldResult> sizes;
  for (auto [to, from] : llvm::enumerate(permutation))
    inverse[from] = static_cast<int64_t>(to);
  for (int64_t axis : inverse)
    sizes.push_back(tensor::getMixedSize(b, loc, g, axis));
  Value init =
      tensor::EmptyOp::create(b, loc, sizes, getElementTypeOrSelf(g.getType()));
  sweep.add(
      o.getInput(),
      linalg::TransposeOp::create(b, loc, g, init, inverse).getResult()[0]);
  return success();
}

template <>
LogicalResult
Rule<linalg::BroadcastOp>::backpropagate(Operation *op, ReverseMode &sweep,
                                         ArrayRef<Value> cotangents) const {
  Value g = cotangents.front();
  auto o = cast<linalg::BroadcastOp>(op);
  // Only a scalar spread over a whole tensor (the derivative of a full
  // sum): its transpose is the full sum.
  if (cast<ShapedType>(o.getInput().getType()).getRank() != 0)
    return op->emitError() << "sezm-autodiff: only broadcasts of a scalar "
                              "have a derivative rule";
  sweep.add(o.getInput(), sweep.fullSum(g));
  return success();
}

template <>
LogicalResult
Rule<linalg::ReduceOp>::backpropagate(Operation *op, ReverseMode &sweep,
                                      ArrayRef<Value> cotangents) const {
  auto o = cast<linalg::ReduceOp>(op);
  Value g = cotangents.front();
  // A full sum to a scalar: every element gets the scalar's cotangent.
  Value input = o.getInputs()[0];
  auto type = cast<RankedTensorType>(input.getType());
  if (cast<ShapedType>(g.getType()).getRank() != 0 ||
      o.getDimensions().size() != static_cast<size_t>(type.getRank()))
    return op->emitError() << "sezm-autodiff: only full sums to a scalar "
                              "have a derivative rule";
  Value spread = linalg::BroadcastOp::create(
                     sweep.builder(), sweep.getLoc(), g, sweep.emptyLike(input),
                     llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())))
                     .getResult()[0];
  sweep.add(input, spread);
  return success();
}

void sezm::registerUpstreamDerivatives(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, arith::ArithDialect *) {
    arith::AddFOp::attachInterface<Rule<arith::AddFOp>>(*context);
    arith::MulFOp::attachInterface<Rule<arith::MulFOp>>(*context);
    arith::SubFOp::attachInterface<Rule<arith::SubFOp>>(*context);
    arith::NegFOp::attachInterface<Rule<arith::NegFOp>>(*context);
    arith::DivFOp::attachInterface<Rule<arith::DivFOp>>(*context);
    arith::ConstantOp::attachInterface<NoDerivative<arith::ConstantOp>>(
        *context);
  });
  registry.addExtension(+[](MLIRContext *context, math::MathDialect *) {
    math::ExpOp::attachInterface<Rule<math::ExpOp>>(*context);
    math::TanhOp::attachInterface<Rule<math::TanhOp>>(*context);
    math::RsqrtOp::attachInterface<Rule<math::RsqrtOp>>(*context);
  });
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    tensor::ExpandShapeOp::attachInterface<Rule<tensor::ExpandShapeOp>>(
        *context);
    tensor::CollapseShapeOp::attachInterface<Rule<tensor::CollapseShapeOp>>(
        *context);
    tensor::EmptyOp::attachInterface<NoDerivative<tensor::EmptyOp>>(*context);
    tensor::DimOp::attachInterface<NoDerivative<tensor::DimOp>>(*context);
  });
  registry.addExtension(+[](MLIRContext *context, linalg::LinalgDialect *) {
    linalg::MatmulOp::attachInterface<Rule<linalg::MatmulOp>>(*context);
    linalg::TransposeOp::attachInterface<Rule<linalg::TransposeOp>>(*context);
    linalg::BroadcastOp::attachInterface<Rule<linalg::BroadcastOp>>(*context);
    linalg::ReduceOp::attachInterface<Rule<linalg::ReduceOp>>(*context);
    linalg::FillOp::attachInterface<NoDerivative<linalg::FillOp>>(*context);
  });
}
