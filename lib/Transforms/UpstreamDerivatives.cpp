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
/// The rule of an upstream op of one result, given its cotangent `g`;
/// `apply` is specialized for each op below.
template <typename OpTy>
struct Rule : DerivativeOpInterface::ExternalModel<Rule<OpTy>, OpTy> {
  LogicalResult backpropagate(Operation *op, ReverseMode &sweep,
                              ArrayRef<Value> cotangents) const {
    return apply(cast<OpTy>(op), sweep, cotangents.front());
  }
  static LogicalResult apply(OpTy o, ReverseMode &sweep, Value g);
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
LogicalResult Rule<arith::AddFOp>::apply(arith::AddFOp o, ReverseMode &sweep,
                                         Value g) {
  sweep.add(o.getLhs(), g);
  sweep.add(o.getRhs(), g);
  return success();
}

template <>
LogicalResult Rule<arith::MulFOp>::apply(arith::MulFOp o, ReverseMode &sweep,
                                         Value g) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  sweep.add(o.getLhs(), arith::MulFOp::create(b, loc, g, o.getRhs()));
  sweep.add(o.getRhs(), arith::MulFOp::create(b, loc, g, o.getLhs()));
  return success();
}

template <>
LogicalResult Rule<arith::SubFOp>::apply(arith::SubFOp o, ReverseMode &sweep,
                                         Value g) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  sweep.add(o.getLhs(), g);
  if (sweep.isActive(o.getRhs()))
    sweep.add(o.getRhs(), arith::NegFOp::create(b, loc, g));
  return success();
}

template <>
LogicalResult Rule<arith::NegFOp>::apply(arith::NegFOp o, ReverseMode &sweep,
                                         Value g) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  sweep.add(o.getOperand(), arith::NegFOp::create(b, loc, g));
  return success();
}

template <>
LogicalResult Rule<arith::DivFOp>::apply(arith::DivFOp o, ReverseMode &sweep,
                                         Value g) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
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

// A cast's cotangent is the cast back: DeePMD-kit's precision split (fp64
// edge vectors and energy sum around an fp32 network) differentiates
// through both directions.
template <>
LogicalResult Rule<arith::ExtFOp>::apply(arith::ExtFOp o, ReverseMode &sweep,
                                         Value g) {
  sweep.add(o.getIn(), arith::TruncFOp::create(sweep.builder(), sweep.getLoc(),
                                               o.getIn().getType(), g));
  return success();
}

template <>
LogicalResult Rule<arith::TruncFOp>::apply(arith::TruncFOp o,
                                           ReverseMode &sweep, Value g) {
  sweep.add(o.getIn(), arith::ExtFOp::create(sweep.builder(), sweep.getLoc(),
                                             o.getIn().getType(), g));
  return success();
}

template <>
LogicalResult Rule<math::ExpOp>::apply(math::ExpOp o, ReverseMode &sweep,
                                       Value g) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  sweep.add(o.getOperand(), arith::MulFOp::create(b, loc, g, o.getResult()));
  return success();
}

template <>
LogicalResult Rule<math::TanhOp>::apply(math::TanhOp o, ReverseMode &sweep,
                                        Value g) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  // t = tanh(x): dx = g (1 - t^2) = g - g t^2, which stays finite where
  // the exp form of a sigmoid overflows.
  Value t = o.getResult();
  Value gtt =
      arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, g, t), t);
  sweep.add(o.getOperand(), arith::SubFOp::create(b, loc, g, gtt));
  return success();
}

template <>
LogicalResult Rule<math::RsqrtOp>::apply(math::RsqrtOp o, ReverseMode &sweep,
                                         Value g) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
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
LogicalResult Rule<tensor::ExpandShapeOp>::apply(tensor::ExpandShapeOp o,
                                                 ReverseMode &sweep, Value g) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  // A reshape moves no values: the gradient is reshaped back.
  sweep.add(o.getSrc(),
            tensor::CollapseShapeOp::create(b, loc, o.getSrcType(), g,
                                            o.getReassociationIndices()));
  return success();
}

template <>
LogicalResult Rule<tensor::CollapseShapeOp>::apply(tensor::CollapseShapeOp o,
                                                   ReverseMode &sweep,
                                                   Value g) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  sweep.add(o.getSrc(),
            tensor::ExpandShapeOp::create(
                b, loc, o.getSrcType(), g, o.getReassociationIndices(),
                tensor::getMixedSizes(b, loc, o.getSrc())));
  return success();
}

template <>
LogicalResult Rule<linalg::MatmulOp>::apply(linalg::MatmulOp o,
                                            ReverseMode &sweep, Value g) {
  // C = A B: dA = g B^T, dB = A^T g.
  Value a = o.getInputs()[0], bMat = o.getInputs()[1];
  if (sweep.isActive(a))
    sweep.add(a, sweep.matmul(g, sweep.transposed(bMat)));
  if (sweep.isActive(bMat))
    sweep.add(bMat, sweep.matmul(sweep.transposed(a), g));
  return success();
}

template <>
LogicalResult Rule<linalg::TransposeOp>::apply(linalg::TransposeOp o,
                                               ReverseMode &sweep, Value g) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
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
LogicalResult Rule<linalg::BroadcastOp>::apply(linalg::BroadcastOp o,
                                               ReverseMode &sweep, Value g) {
  // The transpose of spreading along `dimensions` is the sum over them.
  sweep.add(o.getInput(), sweep.sumOver(g, o.getDimensions()));
  return success();
}

/// Whether `o`'s body adds its two block arguments and yields the sum.
static bool isSum(linalg::ReduceOp o) {
  Block &body = o.getCombiner().front();
  auto add = dyn_cast<arith::AddFOp>(&body.front());
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  return add && yield && yield.getNumOperands() == 1 &&
         yield.getOperand(0) == add.getResult() &&
         llvm::is_contained(body.getArguments(), add.getLhs()) &&
         llvm::is_contained(body.getArguments(), add.getRhs()) &&
         add.getLhs() != add.getRhs();
}

template <>
LogicalResult Rule<linalg::ReduceOp>::apply(linalg::ReduceOp o,
                                            ReverseMode &sweep, Value g) {
  // A sum over `dimensions`: every summed element gets its sum's cotangent.
  Value input = o.getInputs()[0];
  if (o.getInputs().size() != 1 || !isSum(o))
    return o->emitError() << "sezm-autodiff: only sums of one input have a "
                             "derivative rule";
  Value spread =
      linalg::BroadcastOp::create(sweep.builder(), sweep.getLoc(), g,
                                  sweep.emptyLike(input), o.getDimensions())
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
    arith::ExtFOp::attachInterface<Rule<arith::ExtFOp>>(*context);
    arith::TruncFOp::attachInterface<Rule<arith::TruncFOp>>(*context);
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
