//===- SeZMDerivatives.cpp - the derivative rule of each sezm op ----------===//
//
// DerivativeOpInterface::backpropagate of every differentiable sezm op. The
// rules of the first-order gradient ops (edge_vectors_grad, envelope_grad,
// radial_basis_grad, wigner_grad, segment_reduce_grad) are the second-order
// rules a backward that is differentiated again (create-graph) needs.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Dialect/SeZM/SO2Layout.h"
#include "SeZM/Dialect/SeZM/SeZMOps.h"

using namespace mlir;
using namespace mlir::sezm;

namespace {
/// The rule of an edge function's first-order gradient op
/// (`<f>_grad %grad, %edge_vec {attrs}`): its second-order op, with the
/// same attributes, gives the cotangents of both operands.
template <typename SecondOrderOp>
LogicalResult addSecondOrder(Operation *op, ReverseMode &sweep,
                             ArrayRef<Value> cotangents) {
  Value grad = op->getOperand(0), edgeVec = op->getOperand(1);
  // Operands past the edge vectors (radial_basis's frequencies) are
  // weights, passed on as they are.
  SmallVector<Value> operands{cotangents.front(), grad, edgeVec};
  llvm::append_range(operands, op->getOperands().drop_front(2));
  auto second = SecondOrderOp::create(
      sweep.builder(), sweep.getLoc(),
      TypeRange{grad.getType(), edgeVec.getType()}, operands, op->getAttrs());
  sweep.add(grad, second.getGradCot());
  sweep.add(edgeVec, second.getEdgeVecGrad());
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// Edge geometry
//===----------------------------------------------------------------------===//

LogicalResult EdgeVectorsOp::backpropagate(ReverseMode &sweep,
                                           ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto bySrc = sweep.csrOf(*this, getSrc());
  if (failed(bySrc))
    return failure();
  auto byDst = sweep.csrOf(*this, getDst());
  if (failed(byDst))
    return failure();
  sweep.add(getPositions(),
            EdgeVectorsGradOp::create(b, loc, getPositions().getType(), g,
                                      bySrc->first, bySrc->second, byDst->first,
                                      byDst->second));
  sweep.recordEdgeVectors(getResult(), g, *bySrc, *byDst);
  return success();
}

LogicalResult EnvelopeOp::backpropagate(ReverseMode &sweep,
                                        ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  sweep.add(getEdgeVec(), EnvelopeGradOp::create(b, loc, getEdgeVec().getType(),
                                                 g, getEdgeVec(), getRcutAttr(),
                                                 getExponentAttr()));
  return success();
}

LogicalResult RadialBasisOp::backpropagate(ReverseMode &sweep,
                                           ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  if (getFreqs() && sweep.isActive(getFreqs()))
    return emitOpError("differentiates with respect to its frequencies, "
                       "which sezm-autodiff does not (they are weights)");
  sweep.add(getEdgeVec(), RadialBasisGradOp::create(
                              b, loc, getEdgeVec().getType(), g, getEdgeVec(),
                              getFreqs(), getRcutAttr(), getExponentAttr()));
  return success();
}

LogicalResult WignerOp::backpropagate(ReverseMode &sweep,
                                      ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  sweep.add(getEdgeVec(), WignerGradOp::create(b, loc, getEdgeVec().getType(),
                                               g, getEdgeVec(), getLmaxAttr()));
  return success();
}

LogicalResult EdgeVectorsGradOp::backpropagate(ReverseMode &sweep,
                                               ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  // Linear in grad; its transpose takes the edge vectors of the cotangent.
  FailureOr<Value> src = sweep.keysOfCsr(*this, getSrcOrder());
  if (failed(src))
    return failure();
  FailureOr<Value> dst = sweep.keysOfCsr(*this, getDstOrder());
  if (failed(dst))
    return failure();
  sweep.add(getGrad(), EdgeVectorsOp::create(b, loc, getGrad().getType(), g,
                                             *src, *dst, /*shift=*/Value()));
  return success();
}

LogicalResult EnvelopeGradOp::backpropagate(ReverseMode &sweep,
                                            ArrayRef<Value> cotangents) {
  return addSecondOrder<EnvelopeGradGradOp>(*this, sweep, cotangents);
}

LogicalResult RadialBasisGradOp::backpropagate(ReverseMode &sweep,
                                               ArrayRef<Value> cotangents) {
  return addSecondOrder<RadialBasisGradGradOp>(*this, sweep, cotangents);
}

LogicalResult WignerGradOp::backpropagate(ReverseMode &sweep,
                                          ArrayRef<Value> cotangents) {
  return addSecondOrder<WignerGradGradOp>(*this, sweep, cotangents);
}

LogicalResult SegmentReduceGradOp::backpropagate(ReverseMode &sweep,
                                                 ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  // Spreads each segment's row to its edges: the transpose is the sum.
  sweep.add(getGrad(), SegmentReduceOp::create(b, loc, getGrad().getType(), g,
                                               getOrder(), getRowptr()));
  return success();
}

//===----------------------------------------------------------------------===//
// Rotation, mixing and aggregation
//===----------------------------------------------------------------------===//

LogicalResult RotateMixOp::backpropagate(ReverseMode &sweep,
                                         ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  if (getFocusMajor())
    g = sweep.edgeFrameOf(
        g, SO2Layout{static_cast<int64_t>(getLmax())}.reducedRows());
  Type cbGrad = sweep.isActive(getCb()) ? getCb().getType() : Type();
  auto grad = RotateMixGradOp::create(
      b, loc, getX().getType(), getWigner().getType(), getKc().getType(),
      cbGrad, g, getX(), getSrc(), getWigner(), getKc(), getCb(), getLmaxAttr(),
      getRankAttr());
  if (failed(sweep.addGathered(*this, getX(), getSrc(), grad.getNodeGrad())))
    return failure();
  sweep.add(getWigner(), grad.getWignerGrad());
  sweep.add(getKc(), grad.getKcGrad());
  if (cbGrad)
    sweep.add(getCb(), grad.getCbGrad());
  return success();
}

LogicalResult RotateOp::backpropagate(ReverseMode &sweep,
                                      ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto grad =
      RotateGradOp::create(b, loc, getX().getType(), getWigner().getType(), g,
                           getX(), getSrc(), getWigner(), getLmaxAttr());
  if (failed(sweep.addGathered(*this, getX(), getSrc(), grad.getNodeGrad())))
    return failure();
  sweep.add(getWigner(), grad.getWignerGrad());
  return success();
}

LogicalResult MixOp::backpropagate(ReverseMode &sweep,
                                   ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  Type cbGrad = sweep.isActive(getCb()) ? getCb().getType() : Type();
  auto grad = MixGradOp::create(b, loc, getXl().getType(), getKc().getType(),
                                cbGrad, g, getXl(), getKc(), getCb(),
                                getLmaxAttr(), getRankAttr());
  sweep.add(getXl(), grad.getXlGrad());
  sweep.add(getKc(), grad.getKcGrad());
  if (cbGrad)
    sweep.add(getCb(), grad.getCbGrad());
  return success();
}

LogicalResult RotateBackOp::backpropagate(ReverseMode &sweep,
                                          ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto grad =
      RotateBackGradOp::create(b, loc, getXl().getType(), getWigner().getType(),
                               g, getXl(), getWigner(), getLmaxAttr());
  sweep.add(getXl(), grad.getXlGrad());
  sweep.add(getWigner(), grad.getWignerGrad());
  return success();
}

LogicalResult FocusCompeteOp::backpropagate(ReverseMode &sweep,
                                            ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  Value norm = getNormScale();
  auto grad = FocusCompeteGradOp::create(
      b, loc, getU().getType(), getWfc().getType(),
      norm ? norm.getType() : Type(), g, getU(), getWfc(), norm,
      /*acc=*/Value(), getLmaxAttr(), getFocusAttr());
  sweep.add(getU(), grad.getUGrad());
  sweep.add(getWfc(), grad.getWfcGrad());
  if (norm)
    sweep.add(norm, grad.getNormScaleGrad());
  return success();
}

LogicalResult FocusScaleOp::backpropagate(ReverseMode &sweep,
                                          ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto grad = FocusScaleGradOp::create(
      b, loc, getY().getType(), getAlpha().getType(), g, getY(), getAlpha());
  sweep.add(getY(), grad.getYGrad());
  sweep.add(getAlpha(), grad.getAlphaGrad());
  return success();
}

LogicalResult EnvelopeAggregateOp::backpropagate(ReverseMode &sweep,
                                                 ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  if (getFirstEdge())
    return emitOpError() << "sums a range of the edges (`from`), which only "
                            "sezm-chunk-edges' loops do, after autodiff; it "
                            "has no derivative rule";
  if (getFocusAlpha())
    return emitOpError() << "scales its messages (`scaled`), which only "
                            "sezm-fuse-focus-scale does, after autodiff; it "
                            "has no derivative rule";
  // The edge-wise part reads each edge's destination, so that it runs in
  // chunks of edges; only the norm's gradient sums over a segment.
  FailureOr<Value> dst = sweep.keysOfCsr(*this, getDstOrder());
  if (failed(dst))
    return failure();
  auto grad = EnvelopeAggregateGradOp::create(
      b, loc, getXl().getType(), getWigner().getType(), getEnv().getType(),
      getEnv().getType(), /*alpha_grad=*/Type(), g, getXl(),
      /*focus_alpha=*/Value(), getWigner(), getEnv(), getInvSqrtDeg(), *dst,
      getLmaxAttr());
  sweep.add(getXl(), grad.getXlGrad());
  sweep.add(getWigner(), grad.getWignerGrad());
  sweep.add(getEnv(), grad.getEnvGrad());
  sweep.add(getInvSqrtDeg(),
            SegmentReduceOp::create(b, loc, getInvSqrtDeg().getType(),
                                    grad.getNormTerms(), getDstOrder(),
                                    getDstRowptr()));
  return success();
}

LogicalResult AttentionAggregateOp::backpropagate(ReverseMode &sweep,
                                                  ArrayRef<Value> cotangents) {
  auto grad = AttentionAggregateGradOp::create(
      sweep.builder(), sweep.getLoc(), getXl().getType(), getWigner().getType(),
      getLogit().getType(), getEnv().getType(), getNullLogit().getType(),
      cotangents.front(), getXl(), getWigner(), getLogit(), getEnv(),
      getNullLogit(), getDstOrder(), getDstRowptr(), getLmaxAttr());
  sweep.add(getXl(), grad.getXlGrad());
  sweep.add(getWigner(), grad.getWignerGrad());
  sweep.add(getLogit(), grad.getLogitGrad());
  sweep.add(getEnv(), grad.getEnvGrad());
  sweep.add(getNullLogit(), grad.getNullLogitGrad());
  return success();
}

LogicalResult SO2LinearOp::backpropagate(ReverseMode &sweep,
                                         ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto grad = SO2LinearGradOp::create(
      b, loc, getU().getType(), getW0().getType(), getWu().getType(),
      getWv().getType(), g, getU(), getW0(), getWu(), getWv(), /*acc=*/Value(),
      getLmaxAttr(), getFocusAttr());
  // The addend reaches the result unchanged.
  if (getAcc())
    sweep.add(getAcc(), g);
  sweep.add(getU(), grad.getUGrad());
  sweep.add(getW0(), grad.getW0Grad());
  sweep.add(getWu(), grad.getWuGrad());
  sweep.add(getWv(), grad.getWvGrad());
  return success();
}

LogicalResult GateOp::backpropagate(ReverseMode &sweep,
                                    ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  auto grad =
      GateGradOp::create(b, loc, getZ().getType(), getGw().getType(), g, getZ(),
                         getGw(), getLmaxAttr(), getFocusAttr());
  // The addend reaches the result unchanged.
  if (getAcc())
    sweep.add(getAcc(), g);
  sweep.add(getZ(), grad.getZGrad());
  sweep.add(getGw(), grad.getGwGrad());
  return success();
}

LogicalResult DegreeLinearOp::backpropagate(ReverseMode &sweep,
                                            ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  // The map is linear in x: its gradient is the transposed map.
  if (sweep.isActive(getW()))
    sweep.add(getW(), DegreeLinearWeightGradOp::create(b, loc, getW().getType(),
                                                       g, getX(), getLmaxAttr(),
                                                       getTransposedAttr()));
  sweep.add(getX(), DegreeLinearOp::create(
                        b, loc, getX().getType(), g, getW(), getLmaxAttr(),
                        getTransposed() ? UnitAttr() : b.getUnitAttr()));
  return success();
}

LogicalResult RmsNormOp::backpropagate(ReverseMode &sweep,
                                       ArrayRef<Value> cotangents) {
  if (sweep.isActive(getScale()))
    return emitOpError("differentiates with respect to its scale, which "
                       "sezm-autodiff does not (a weight)");
  sweep.add(getX(), RmsNormGradOp::create(sweep.builder(), sweep.getLoc(),
                                          getX().getType(), cotangents.front(),
                                          getX(), getScale(), getEpsAttr()));
  return success();
}

LogicalResult EquivariantRmsNormOp::backpropagate(ReverseMode &sweep,
                                                  ArrayRef<Value> cotangents) {
  if (sweep.isActive(getScale()) || sweep.isActive(getBias()))
    return emitOpError("differentiates with respect to its scale or bias, "
                       "which sezm-autodiff does not (weights)");
  sweep.add(getX(), EquivariantRmsNormGradOp::create(
                        sweep.builder(), sweep.getLoc(), getX().getType(),
                        cotangents.front(), getX(), getScale(), getLmaxAttr(),
                        getEpsAttr(), getDegreeWeightsAttr()));
  return success();
}

LogicalResult GluOp::backpropagate(ReverseMode &sweep,
                                   ArrayRef<Value> cotangents) {
  if (getGw() && sweep.isActive(getGw()))
    return emitOpError("differentiates with respect to its gate weight, "
                       "which sezm-autodiff does not (a weight)");
  sweep.add(getX(), GluGradOp::create(sweep.builder(), sweep.getLoc(),
                                      getX().getType(), cotangents.front(),
                                      getX(), getGw(), getLmaxAttr()));
  return success();
}

LogicalResult GridProductOp::backpropagate(ReverseMode &sweep,
                                           ArrayRef<Value> cotangents) {
  if (sweep.isActive(getToGrid()) || sweep.isActive(getFromGrid()))
    return emitOpError("differentiates with respect to its grid matrices, "
                       "which sezm-autodiff does not (constants)");
  auto grad = GridProductGradOp::create(
      sweep.builder(), sweep.getLoc(), getA().getType(), getA().getType(),
      cotangents.front(), getA(), getB(), getToGrid(), getFromGrid());
  sweep.add(getA(), grad.getAGrad());
  sweep.add(getB(), grad.getBGrad());
  return success();
}

LogicalResult SegmentReduceOp::backpropagate(ReverseMode &sweep,
                                             ArrayRef<Value> cotangents) {
  OpBuilder &b = sweep.builder();
  Location loc = sweep.getLoc();
  Value g = cotangents.front();
  sweep.add(getValues(),
            SegmentReduceGradOp::create(b, loc, getValues().getType(), g,
                                        getOrder(), getRowptr()));
  return success();
}

//===----------------------------------------------------------------------===//
// Stages
//===----------------------------------------------------------------------===//

LogicalResult ExchangeOp::backpropagate(ReverseMode &sweep,
                                        ArrayRef<Value> cotangents) {
  // The identity's: a ghost row's gradient reaches its owner through the
  // caller's reverse communication, between stages.
  sweep.add(getFeatures(), cotangents.front());
  return success();
}
