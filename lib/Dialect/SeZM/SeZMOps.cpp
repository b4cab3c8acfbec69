//===- SeZMOps.cpp - sezm op verifiers and canonicalizations --------------===//
//
// Each verifier lists the shape of every operand and result in terms of the
// graph sizes N and E, the channel width C and the extents fixed by the op's
// attributes (sezm-ops.md section 1).
//
//===----------------------------------------------------------------------===//

#include "SeZM/Dialect/SeZM/SeZMOps.h"

#include "SeZM/Dialect/SeZM/SO2Layout.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::sezm;

#define GET_OP_CLASSES
#include "SeZM/Dialect/SeZM/SeZMOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared shape vocabulary
//===----------------------------------------------------------------------===//

namespace {
constexpr ElementKind kFloat = ElementKind::Float;
constexpr ElementKind kIndex = ElementKind::Index;

const Dim kNodes = Dim::graph("N");
const Dim kRowPointers = Dim::graph("N", 1);
const Dim kEdges = Dim::graph("E");
const Dim kChannels = Dim::channel("C");
const Dim kXYZ = Dim::fixed(3);

std::string lmaxContext(int64_t lmax) {
  return "for lmax = " + std::to_string(lmax);
}

/// The graph's edges where an op's per-edge operands hold a range of them
/// (EdgeRangeSumOpInterface): its CSR still lists every edge.
const Dim kGraphEdges = Dim::graph("E_graph");

/// Checks a CSR segmentation: `order` lists the E edges segment by segment
/// and `rowptr` holds the N+1 segment boundaries; with `rangeOfEdges`, the
/// op's E is a range of the CSR's edges.
LogicalResult checkCsr(ShapeChecker &shapes, StringRef orderName, Value order,
                       StringRef rowptrName, Value rowptr,
                       bool rangeOfEdges = false) {
  if (failed(shapes.check(orderName, order, kIndex,
                          {rangeOfEdges ? kGraphEdges : kEdges})))
    return failure();
  return shapes.check(rowptrName, rowptr, kIndex, {kRowPointers});
}

/// Checks the cutoff attributes shared by the radial ops.
LogicalResult verifyCutoff(Operation *op, double rcut, int64_t exponent) {
  if (!(rcut > 0.0))
    return op->emitOpError() << "rcut = " << llvm::formatv("{0}", rcut).str()
                             << " must be positive";
  if (exponent < 1)
    return op->emitOpError()
           << "envelope exponent = " << exponent << " must be at least 1";
  return success();
}

/// Checks the radial kernel operands of the mix family. With rank >= 1, `kc`
/// is the compact kernel (E, KSZ*rank) and `cb` the channel basis (rank, C);
/// with rank 0 (mixer-free) `kc` is the radial feature (E, lmax+1, C) and
/// there is no `cb`. Expects C to be bound already.
LogicalResult checkMixKernel(Operation *op, ShapeChecker &shapes,
                             SO2Layout layout, int64_t rank, Value kc,
                             Value cb) {
  if (rank < 0)
    return op->emitOpError() << "rank = " << rank << " must be non-negative";
  if (rank == 0) {
    if (cb)
      return op->emitOpError()
             << "rank = 0 (mixer-free) takes no channel basis 'cb'";
    return shapes.check("kc", kc, kFloat,
                        {kEdges, Dim::fixed(layout.lmax + 1), kChannels});
  }
  if (!cb)
    return op->emitOpError()
           << "rank = " << rank << " needs a channel basis 'cb' of shape ("
           << rank << ", C)";
  shapes.setContext("for lmax = " + std::to_string(layout.lmax) +
                    " and rank = " + std::to_string(rank) + " (KSZ = " +
                    std::to_string(layout.compactKernelSize()) + ")");
  if (failed(shapes.check(
          "kc", kc, kFloat,
          {kEdges, Dim::fixed(layout.compactKernelSize() * rank)})))
    return failure();
  return shapes.check("cb", cb, kFloat, {Dim::fixed(rank), kChannels});
}

/// Checks that an optional weight gradient is returned only for a weight
/// that is given, and then has its type.
LogicalResult checkOptionalGrad(ShapeChecker &shapes, StringRef gradName,
                                Value grad, StringRef inputName, Value input) {
  if (!grad)
    return success();
  if (!input)
    return shapes.getOp()->emitOpError()
           << "'" << gradName << "' needs a '" << inputName
           << "' operand to differentiate against";
  return shapes.checkSameType(gradName, grad, inputName, input);
}

/// The focus split of a channel width: C = focus * Cf.
struct FocusSplit {
  int64_t focus;
  int64_t streamWidth;
};

FailureOr<FocusSplit> splitFocus(Operation *op, const ShapeChecker &shapes,
                                 StringRef name, int64_t focus) {
  if (focus < 1)
    return op->emitOpError() << "focus = " << focus << " must be at least 1";
  int64_t channels = *shapes.extent("C");
  if (channels % focus != 0)
    return op->emitOpError()
           << "channel width C = " << channels << " of '" << name
           << "' does not split into focus = " << focus << " streams";
  return FocusSplit{focus, channels / focus};
}

std::string focusContext(int64_t lmax, FocusSplit split) {
  return "for lmax = " + std::to_string(lmax) +
         " and focus = " + std::to_string(split.focus) +
         " streams of Cf = " + std::to_string(split.streamWidth);
}
} // namespace

//===----------------------------------------------------------------------===//
// Edge geometry
//===----------------------------------------------------------------------===//

LogicalResult EdgeVectorsOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(
          shapes.check("positions", getPositions(), kFloat, {kNodes, kXYZ})) ||
      failed(shapes.check("src", getSrc(), kIndex, {kEdges})) ||
      failed(shapes.check("dst", getDst(), kIndex, {kEdges})))
    return failure();
  if (getShift() &&
      failed(shapes.check("shift", getShift(), kFloat, {kEdges, kXYZ})))
    return failure();
  return shapes.check("result", getResult(), kFloat, {kEdges, kXYZ});
}

LogicalResult EdgeVectorsGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(shapes.check("grad", getGrad(), kFloat, {kEdges, kXYZ})) ||
      failed(checkCsr(shapes, "src_order", getSrcOrder(), "src_rowptr",
                      getSrcRowptr())) ||
      failed(checkCsr(shapes, "dst_order", getDstOrder(), "dst_rowptr",
                      getDstRowptr())))
    return failure();
  return shapes.check("result", getResult(), kFloat, {kNodes, kXYZ});
}

LogicalResult EnvelopeOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyCutoff(*this, getRcut().convertToDouble(), getExponent())))
    return failure();
  if (failed(shapes.check("edge_vec", getEdgeVec(), kFloat, {kEdges, kXYZ})))
    return failure();
  return shapes.check("result", getResult(), kFloat, {kEdges});
}

LogicalResult EnvelopeGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyCutoff(*this, getRcut().convertToDouble(), getExponent())))
    return failure();
  if (failed(shapes.check("grad", getGrad(), kFloat, {kEdges})) ||
      failed(shapes.check("edge_vec", getEdgeVec(), kFloat, {kEdges, kXYZ})))
    return failure();
  return shapes.check("result", getResult(), kFloat, {kEdges, kXYZ});
}

/// A radial basis op's trained frequencies, where it has them: one per
/// function (K).
static LogicalResult checkFrequencies(ShapeChecker &shapes, Value freqs) {
  if (!freqs)
    return success();
  return shapes.check("freqs", freqs, kFloat, {Dim::channel("K")});
}

LogicalResult RadialBasisOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyCutoff(*this, getRcut().convertToDouble(), getExponent())))
    return failure();
  if (failed(shapes.check("edge_vec", getEdgeVec(), kFloat, {kEdges, kXYZ})) ||
      failed(shapes.check("result", getResult(), kFloat,
                          {kEdges, Dim::channel("K")})))
    return failure();
  return checkFrequencies(shapes, getFreqs());
}

LogicalResult RadialBasisGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyCutoff(*this, getRcut().convertToDouble(), getExponent())))
    return failure();
  if (failed(shapes.check("grad", getGrad(), kFloat,
                          {kEdges, Dim::channel("K")})) ||
      failed(shapes.check("edge_vec", getEdgeVec(), kFloat, {kEdges, kXYZ})) ||
      failed(checkFrequencies(shapes, getFreqs())))
    return failure();
  return shapes.check("result", getResult(), kFloat, {kEdges, kXYZ});
}

namespace {
/// The dimensions of a Wigner-D, or of a gradient or tangent of one: whole,
/// (E, D, D), or the entries a rotation keeps, (E, K) (SO2Layout::
/// keptWignerEntries), as `value` holds it.
SmallVector<Dim> wignerDims(SO2Layout layout, Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (type && type.getRank() == 2)
    return {kEdges, Dim::fixed(layout.keptWignerEntries())};
  Dim rows = Dim::fixed(layout.packedRows());
  return {kEdges, rows, rows};
}
} // namespace

LogicalResult WignerOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  if (failed(shapes.check("edge_vec", getEdgeVec(), kFloat, {kEdges, kXYZ})))
    return failure();
  return shapes.check("result", getResult(), kFloat,
                      wignerDims(layout, getResult()));
}

LogicalResult WignerGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  if (failed(shapes.check("grad", getGrad(), kFloat,
                          wignerDims(layout, getGrad()))) ||
      failed(shapes.check("edge_vec", getEdgeVec(), kFloat, {kEdges, kXYZ})))
    return failure();
  return shapes.check("result", getResult(), kFloat, {kEdges, kXYZ});
}

namespace {
/// The operands and results of a second-order edge op: cot and edge_vec
/// (E, 3), grad of shape `gradDims`, grad_cot like grad, edge_vec_grad
/// (E, 3).
template <typename OpTy>
LogicalResult verifySecondOrder(OpTy op, ShapeChecker &shapes,
                                ArrayRef<Dim> gradDims) {
  if (failed(shapes.check("cot", op.getCot(), kFloat, {kEdges, kXYZ})) ||
      failed(shapes.check("grad", op.getGrad(), kFloat, gradDims)) ||
      failed(
          shapes.check("edge_vec", op.getEdgeVec(), kFloat, {kEdges, kXYZ})) ||
      failed(shapes.checkSameType("grad_cot", op.getGradCot(), "grad",
                                  op.getGrad())))
    return failure();
  return shapes.check("edge_vec_grad", op.getEdgeVecGrad(), kFloat,
                      {kEdges, kXYZ});
}
} // namespace

LogicalResult EnvelopeGradGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyCutoff(*this, getRcut().convertToDouble(), getExponent())))
    return failure();
  return verifySecondOrder(*this, shapes, {kEdges});
}

LogicalResult RadialBasisGradGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyCutoff(*this, getRcut().convertToDouble(), getExponent())))
    return failure();
  if (failed(verifySecondOrder(*this, shapes, {kEdges, Dim::channel("K")})))
    return failure();
  return checkFrequencies(shapes, getFreqs());
}

LogicalResult WignerGradGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  return verifySecondOrder(*this, shapes, wignerDims(layout, getGrad()));
}

//===----------------------------------------------------------------------===//
// Rotation and mixing
//===----------------------------------------------------------------------===//

namespace {
/// The operands shared by the ops that gather x[src] and rotate by wigner.
LogicalResult checkRotateInputs(ShapeChecker &shapes, SO2Layout layout, Value x,
                                Value src, Value wigner) {
  Dim rows = Dim::fixed(layout.packedRows());
  if (failed(shapes.check("x", x, kFloat, {kNodes, rows, kChannels})) ||
      failed(shapes.check("src", src, kIndex, {kEdges})))
    return failure();
  return shapes.check("wigner", wigner, kFloat, wignerDims(layout, wigner));
}

Dim packedRows(SO2Layout layout) { return Dim::fixed(layout.packedRows()); }
Dim reducedRows(SO2Layout layout) { return Dim::fixed(layout.reducedRows()); }
} // namespace

LogicalResult RotateOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  if (failed(checkRotateInputs(shapes, layout, getX(), getSrc(), getWigner())))
    return failure();
  return shapes.check("result", getResult(), kFloat,
                      {kEdges, reducedRows(layout), kChannels});
}

LogicalResult RotateGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  if (failed(
          checkRotateInputs(shapes, layout, getX(), getSrc(), getWigner())) ||
      failed(shapes.check("grad", getGrad(), kFloat,
                          {kEdges, reducedRows(layout), kChannels})) ||
      failed(shapes.check("node_grad", getNodeGrad(), kFloat,
                          {kEdges, packedRows(layout), kChannels})))
    return failure();
  return shapes.checkSameType("wigner_grad", getWignerGrad(), "wigner",
                              getWigner());
}

LogicalResult MixOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  Dim rows = reducedRows(layout);
  if (failed(shapes.check("xl", getXl(), kFloat, {kEdges, rows, kChannels})) ||
      failed(
          checkMixKernel(*this, shapes, layout, getRank(), getKc(), getCb())))
    return failure();
  shapes.setContext(lmaxContext(layout.lmax));
  return shapes.check("result", getResult(), kFloat, {kEdges, rows, kChannels});
}

LogicalResult MixGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  Dim rows = reducedRows(layout);
  if (failed(
          shapes.check("grad", getGrad(), kFloat, {kEdges, rows, kChannels})) ||
      failed(shapes.check("xl", getXl(), kFloat, {kEdges, rows, kChannels})) ||
      failed(
          checkMixKernel(*this, shapes, layout, getRank(), getKc(), getCb())) ||
      failed(shapes.checkSameType("xl_grad", getXlGrad(), "xl", getXl())) ||
      failed(shapes.checkSameType("kc_grad", getKcGrad(), "kc", getKc())))
    return failure();
  return checkOptionalGrad(shapes, "cb_grad", getCbGrad(), "cb", getCb());
}

LogicalResult RotateMixOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  if (failed(
          checkRotateInputs(shapes, layout, getX(), getSrc(), getWigner())) ||
      failed(
          checkMixKernel(*this, shapes, layout, getRank(), getKc(), getCb())))
    return failure();
  shapes.setContext(lmaxContext(layout.lmax));
  std::optional<uint64_t> focusMajor = getFocusMajor();
  if (!focusMajor)
    return shapes.check("result", getResult(), kFloat,
                        {kEdges, reducedRows(layout), kChannels});
  FailureOr<FocusSplit> split =
      splitFocus(*this, shapes, "x", static_cast<int64_t>(*focusMajor));
  if (failed(split))
    return failure();
  shapes.setContext(focusContext(layout.lmax, *split) + ", focus-major");
  return shapes.check("result", getResult(), kFloat,
                      {Dim::fixed(split->focus), kEdges,
                       Dim::fixed(layout.reducedRows() * split->streamWidth)});
}

LogicalResult RotateMixGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  if (failed(
          checkRotateInputs(shapes, layout, getX(), getSrc(), getWigner())) ||
      failed(shapes.check("grad", getGrad(), kFloat,
                          {kEdges, reducedRows(layout), kChannels})) ||
      failed(
          checkMixKernel(*this, shapes, layout, getRank(), getKc(), getCb())))
    return failure();
  shapes.setContext(lmaxContext(layout.lmax));
  if (failed(shapes.check("node_grad", getNodeGrad(), kFloat,
                          {kEdges, packedRows(layout), kChannels})) ||
      failed(shapes.checkSameType("wigner_grad", getWignerGrad(), "wigner",
                                  getWigner())) ||
      failed(shapes.checkSameType("kc_grad", getKcGrad(), "kc", getKc())))
    return failure();
  return checkOptionalGrad(shapes, "cb_grad", getCbGrad(), "cb", getCb());
}

LogicalResult RotateMixGradReduceOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  if (getRank() > 1)
    return emitOpError() << "rank = " << getRank()
                         << " is not supported: the fused backward folds a "
                            "single channel basis, so it needs rank <= 1";
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  if (failed(
          checkRotateInputs(shapes, layout, getX(), getSrc(), getWigner())) ||
      failed(shapes.check("grad", getGrad(), kFloat,
                          {kEdges, reducedRows(layout), kChannels})) ||
      failed(
          checkMixKernel(*this, shapes, layout, getRank(), getKc(), getCb())) ||
      failed(checkCsr(shapes, "src_order", getSrcOrder(), "src_rowptr",
                      getSrcRowptr(), /*rangeOfEdges=*/bool(getFirstEdge()))) ||
      failed(shapes.checkSameType("x_grad", getXGrad(), "x", getX())) ||
      failed(shapes.checkSameType("wigner_grad", getWignerGrad(), "wigner",
                                  getWigner())))
    return failure();
  return shapes.checkSameType("kc_grad", getKcGrad(), "kc", getKc());
}

LogicalResult RotateBackOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  Dim rows = packedRows(layout);
  if (failed(shapes.check("xl", getXl(), kFloat,
                          {kEdges, reducedRows(layout), kChannels})) ||
      failed(shapes.check("wigner", getWigner(), kFloat,
                          wignerDims(layout, getWigner()))))
    return failure();
  return shapes.check("result", getResult(), kFloat, {kEdges, rows, kChannels});
}

LogicalResult RotateBackGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  Dim rows = packedRows(layout);
  if (failed(
          shapes.check("grad", getGrad(), kFloat, {kEdges, rows, kChannels})) ||
      failed(shapes.check("xl", getXl(), kFloat,
                          {kEdges, reducedRows(layout), kChannels})) ||
      failed(shapes.check("wigner", getWigner(), kFloat,
                          wignerDims(layout, getWigner()))) ||
      failed(shapes.checkSameType("xl_grad", getXlGrad(), "xl", getXl())))
    return failure();
  return shapes.checkSameType("wigner_grad", getWignerGrad(), "wigner",
                              getWigner());
}

//===----------------------------------------------------------------------===//
// Segment reduction
//===----------------------------------------------------------------------===//

namespace {
/// Checks `rows` (leading dimension `leading`) against `scattered` (leading
/// dimension the other graph size) with equal trailing dimensions.
LogicalResult checkSegmentPair(Operation *op, ShapeChecker &shapes,
                               StringRef rowsName, Value rows, Dim leading,
                               StringRef otherName, Value other,
                               Dim otherLeading) {
  auto type = cast<RankedTensorType>(rows.getType());
  if (type.getRank() < 1)
    return op->emitOpError()
           << "'" << rowsName << "' must have rank >= 1, one row per "
           << (leading.name == "E" ? "edge" : "node") << ", but has type "
           << type;
  SmallVector<Dim> dims{leading}, otherDims{otherLeading};
  for (int64_t size : type.getShape().drop_front()) {
    dims.push_back(Dim::fixed(size));
    otherDims.push_back(Dim::fixed(size));
  }
  if (failed(shapes.check(rowsName, rows, kFloat, dims)))
    return failure();
  return shapes.check(otherName, other, kFloat, otherDims);
}
} // namespace

LogicalResult SegmentReduceOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(checkCsr(shapes, "order", getOrder(), "rowptr", getRowptr())))
    return failure();
  return checkSegmentPair(*this, shapes, "values", getValues(), kEdges,
                          "result", getResult(), kNodes);
}

LogicalResult SegmentReduceGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(checkCsr(shapes, "order", getOrder(), "rowptr", getRowptr())))
    return failure();
  return checkSegmentPair(*this, shapes, "grad", getGrad(), kNodes, "result",
                          getResult(), kEdges);
}

//===----------------------------------------------------------------------===//
// Gated SO(2) mixing stack
//===----------------------------------------------------------------------===//

namespace {
/// The SO(2) linear weights: w0 (F, M0, M0) and wu, wv (F, lmax*Cf, lmax*Cf).
LogicalResult checkSO2Weights(ShapeChecker &shapes, SO2Layout layout,
                              FocusSplit split, Value w0, Value wu, Value wv) {
  Dim focus = Dim::fixed(split.focus);
  Dim m0 = Dim::fixed((layout.lmax + 1) * split.streamWidth);
  Dim m1 = Dim::fixed(layout.lmax * split.streamWidth);
  if (failed(shapes.check("w0", w0, kFloat, {focus, m0, m0})) ||
      failed(shapes.check("wu", wu, kFloat, {focus, m1, m1})))
    return failure();
  return shapes.check("wv", wv, kFloat, {focus, m1, m1});
}

/// Checks the edge-frame operand that fixes C, then splits C into streams.
FailureOr<FocusSplit> checkStreams(Operation *op, ShapeChecker &shapes,
                                   SO2Layout layout, StringRef name, Value u,
                                   int64_t focus) {
  if (failed(shapes.check(name, u, kFloat,
                          {kEdges, reducedRows(layout), kChannels})))
    return failure();
  FailureOr<FocusSplit> split = splitFocus(op, shapes, name, focus);
  if (succeeded(split))
    shapes.setContext(focusContext(layout.lmax, *split));
  return split;
}
} // namespace

LogicalResult SO2LinearOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  FailureOr<FocusSplit> split =
      checkStreams(*this, shapes, layout, "u", getU(), getFocus());
  if (failed(split) || failed(checkSO2Weights(shapes, layout, *split, getW0(),
                                              getWu(), getWv())))
    return failure();
  if (getAcc() && failed(shapes.checkSameType("acc", getAcc(), "u", getU())))
    return failure();
  return shapes.checkSameType("result", getResult(), "u", getU());
}

LogicalResult SO2LinearGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  FailureOr<FocusSplit> split =
      checkStreams(*this, shapes, layout, "u", getU(), getFocus());
  if (failed(split) ||
      failed(
          checkSO2Weights(shapes, layout, *split, getW0(), getWu(), getWv())) ||
      failed(shapes.checkSameType("grad", getGrad(), "u", getU())) ||
      failed(shapes.checkSameType("u_grad", getUGrad(), "u", getU())) ||
      (getAcc() &&
       failed(shapes.checkSameType("acc", getAcc(), "u", getU()))) ||
      failed(shapes.checkSameType("w0_grad", getW0Grad(), "w0", getW0())) ||
      failed(shapes.checkSameType("wu_grad", getWuGrad(), "wu", getWu())))
    return failure();
  return shapes.checkSameType("wv_grad", getWvGrad(), "wv", getWv());
}

namespace {
/// The gate weight: gw (F, Cf, lmax*Cf).
LogicalResult checkGateWeight(ShapeChecker &shapes, SO2Layout layout,
                              FocusSplit split, Value gw) {
  return shapes.check("gw", gw, kFloat,
                      {Dim::fixed(split.focus), Dim::fixed(split.streamWidth),
                       Dim::fixed(layout.lmax * split.streamWidth)});
}
} // namespace

LogicalResult GateOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  FailureOr<FocusSplit> split =
      checkStreams(*this, shapes, layout, "z", getZ(), getFocus());
  if (failed(split) || failed(checkGateWeight(shapes, layout, *split, getGw())))
    return failure();
  if (getAcc() && failed(shapes.checkSameType("acc", getAcc(), "z", getZ())))
    return failure();
  return shapes.checkSameType("result", getResult(), "z", getZ());
}

LogicalResult GateGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  FailureOr<FocusSplit> split =
      checkStreams(*this, shapes, layout, "z", getZ(), getFocus());
  if (failed(split) ||
      failed(checkGateWeight(shapes, layout, *split, getGw())) ||
      failed(shapes.checkSameType("grad", getGrad(), "z", getZ())) ||
      failed(shapes.checkSameType("z_grad", getZGrad(), "z", getZ())))
    return failure();
  return shapes.checkSameType("gw_grad", getGwGrad(), "gw", getGw());
}

namespace {
/// The competition weights: wfc (Cf, F) and the optional norm scale (F, Cf).
LogicalResult checkCompeteWeights(ShapeChecker &shapes, FocusSplit split,
                                  Value wfc, Value normScale) {
  Dim focus = Dim::fixed(split.focus);
  Dim width = Dim::fixed(split.streamWidth);
  if (failed(shapes.check("wfc", wfc, kFloat, {width, focus})))
    return failure();
  if (!normScale)
    return success();
  return shapes.check("norm_scale", normScale, kFloat, {focus, width});
}
} // namespace

LogicalResult FocusCompeteOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  FailureOr<FocusSplit> split =
      checkStreams(*this, shapes, layout, "u", getU(), getFocus());
  if (failed(split) ||
      failed(checkCompeteWeights(shapes, *split, getWfc(), getNormScale())))
    return failure();
  return shapes.check("result", getResult(), kFloat,
                      {kEdges, Dim::fixed(split->focus)});
}

LogicalResult FocusCompeteGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  FailureOr<FocusSplit> split =
      checkStreams(*this, shapes, layout, "u", getU(), getFocus());
  if (failed(split) ||
      failed(checkCompeteWeights(shapes, *split, getWfc(), getNormScale())) ||
      failed(shapes.check("grad", getGrad(), kFloat,
                          {kEdges, Dim::fixed(split->focus)})) ||
      failed(shapes.checkSameType("u_grad", getUGrad(), "u", getU())) ||
      failed(shapes.checkSameType("wfc_grad", getWfcGrad(), "wfc", getWfc())))
    return failure();
  if (getAcc() && failed(shapes.checkSameType("acc", getAcc(), "u", getU())))
    return failure();
  if (getNormScale() && !getNormScaleGrad())
    return emitOpError() << "'norm_scale_grad' must be returned when "
                            "'norm_scale' is given";
  return checkOptionalGrad(shapes, "norm_scale_grad", getNormScaleGrad(),
                           "norm_scale", getNormScale());
}

namespace {
/// y (E, rows, C) scaled per focus stream by alpha (E, F).
LogicalResult checkFocusScale(Operation *op, ShapeChecker &shapes, Value y,
                              Value alpha) {
  if (failed(shapes.check("y", y, kFloat,
                          {kEdges, Dim::channel("rows"), kChannels})) ||
      failed(shapes.check("alpha", alpha, kFloat, {kEdges, Dim::channel("F")})))
    return failure();
  return splitFocus(op, shapes, "y", *shapes.extent("F"));
}
} // namespace

LogicalResult FocusScaleOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(checkFocusScale(*this, shapes, getY(), getAlpha())))
    return failure();
  return shapes.checkSameType("result", getResult(), "y", getY());
}

LogicalResult FocusScaleGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(checkFocusScale(*this, shapes, getY(), getAlpha())) ||
      failed(shapes.checkSameType("grad", getGrad(), "y", getY())) ||
      failed(shapes.checkSameType("y_grad", getYGrad(), "y", getY())))
    return failure();
  return shapes.checkSameType("alpha_grad", getAlphaGrad(), "alpha",
                              getAlpha());
}

//===----------------------------------------------------------------------===//
// Per-degree channel mixing
//===----------------------------------------------------------------------===//

namespace {
/// The features (N, D, channels) and the per-degree weight (lmax+1, Cin,
/// Cout) of degree_linear, or (lmax+1, Cout, Cin) when transposed.
struct DegreeLinearShapes {
  Dim in = Dim::channel("Cin"), out = Dim::channel("Cout"), degrees, rows;
  bool transposed;
  DegreeLinearShapes(SO2Layout layout, bool transposed)
      : degrees(Dim::fixed(layout.lmax + 1)), rows(packedRows(layout)),
        transposed(transposed) {}
  SmallVector<Dim> features(Dim channels) const {
    return {kNodes, rows, channels};
  }
  SmallVector<Dim> weight() const {
    if (transposed)
      return {degrees, out, in};
    return {degrees, in, out};
  }
};
} // namespace

LogicalResult DegreeLinearOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  DegreeLinearShapes dims(layout, getTransposed());
  if (failed(shapes.check("x", getX(), kFloat, dims.features(dims.in))) ||
      failed(shapes.check("w", getW(), kFloat, dims.weight())))
    return failure();
  return shapes.check("result", getResult(), kFloat, dims.features(dims.out));
}

LogicalResult DegreeLinearWeightGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  DegreeLinearShapes dims(layout, getTransposed());
  if (failed(
          shapes.check("grad", getGrad(), kFloat, dims.features(dims.out))) ||
      failed(shapes.check("x", getX(), kFloat, dims.features(dims.in))))
    return failure();
  return shapes.check("result", getResult(), kFloat, dims.weight());
}

//===----------------------------------------------------------------------===//
// Channel RMS norm
//===----------------------------------------------------------------------===//

namespace {
/// x (R, C), scale (C), a positive eps, `result` of x's type.
LogicalResult checkChannelNorm(Operation *op, ShapeChecker &shapes, double eps,
                               Value x, Value scale, Value result) {
  if (!(eps > 0))
    return op->emitOpError() << "eps = " << llvm::formatv("{0}", eps).str()
                             << " must be positive";
  Dim rows = Dim::graph("R");
  if (failed(shapes.check("x", x, kFloat, {rows, kChannels})) ||
      failed(shapes.check("scale", scale, kFloat, {kChannels})))
    return failure();
  return shapes.checkSameType("result", result, "x", x);
}
} // namespace

LogicalResult RmsNormOp::verifyShapes(ShapeChecker &shapes) {
  return checkChannelNorm(*this, shapes, getEps().convertToDouble(), getX(),
                          getScale(), getResult());
}

LogicalResult RmsNormGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(checkChannelNorm(*this, shapes, getEps().convertToDouble(), getX(),
                              getScale(), getResult())))
    return failure();
  return shapes.checkSameType("grad", getGrad(), "x", getX());
}

//===----------------------------------------------------------------------===//
// Equivariant RMS norm
//===----------------------------------------------------------------------===//

namespace {
/// x (N, D, C) and scale (lmax+1, C) of an equivariant RMS norm, a
/// positive eps, and `result` of x's type.
LogicalResult checkRmsNorm(Operation *op, ShapeChecker &shapes, int64_t lmax,
                           double eps, std::optional<ArrayAttr> weights,
                           Value x, Value scale, Value result) {
  if (failed(verifyLmax(op, lmax)))
    return failure();
  if (!(eps > 0))
    return op->emitOpError() << "eps = " << llvm::formatv("{0}", eps).str()
                             << " must be positive";
  if (weights) {
    if (static_cast<int64_t>(weights->size()) != lmax + 1)
      return op->emitOpError() << "degree_weights has " << weights->size()
                               << " values, but lmax = " << lmax << " has "
                               << lmax + 1 << " degrees";
    for (Attribute w : *weights)
      if (!(cast<FloatAttr>(w).getValueAsDouble() > 0))
        return op->emitOpError() << "degree_weights must be positive";
  }
  SO2Layout layout{lmax};
  shapes.setContext(lmaxContext(lmax));
  if (failed(shapes.check("x", x, kFloat,
                          {kNodes, packedRows(layout), kChannels})) ||
      failed(shapes.check("scale", scale, kFloat,
                          {Dim::fixed(lmax + 1), kChannels})))
    return failure();
  return shapes.checkSameType("result", result, "x", x);
}
} // namespace

LogicalResult EquivariantRmsNormOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(checkRmsNorm(*this, shapes, getLmax(), getEps().convertToDouble(),
                          getDegreeWeights(), getX(), getScale(), getResult())))
    return failure();
  return shapes.check("bias", getBias(), kFloat, {kChannels});
}

LogicalResult EquivariantRmsNormGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(checkRmsNorm(*this, shapes, getLmax(), getEps().convertToDouble(),
                          getDegreeWeights(), getX(), getScale(), getResult())))
    return failure();
  return shapes.checkSameType("grad", getGrad(), "x", getX());
}

//===----------------------------------------------------------------------===//
// Gated linear units
//===----------------------------------------------------------------------===//

namespace {
/// The contract of a GLU over packed rows: x (N, D, 2H), gw (H, lmax*H)
/// exactly when lmax >= 1, and the (N, D, H) value `halfName`.
LogicalResult checkGlu(Operation *op, ShapeChecker &shapes, int64_t lmax,
                       Value x, Value gw, StringRef halfName, Value half) {
  if (failed(verifyLmax(op, lmax)))
    return failure();
  SO2Layout layout{lmax};
  shapes.setContext(lmaxContext(lmax));
  Dim rows = packedRows(layout);
  if (failed(
          shapes.check("x", x, kFloat, {kNodes, rows, Dim::channel("2H")})) ||
      failed(shapes.check(halfName, half, kFloat,
                          {kNodes, rows, Dim::channel("H")})))
    return failure();
  int64_t width = cast<RankedTensorType>(half.getType()).getDimSize(2);
  int64_t both = cast<RankedTensorType>(x.getType()).getDimSize(2);
  if (both != 2 * width)
    return op->emitOpError()
           << "'x' must hold a value and a gate half of " << width
           << " channels each (" << 2 * width << "), but has " << both;
  if (lmax == 0) {
    if (gw)
      return op->emitOpError()
             << "has a gate weight 'gw', but at lmax = 0 there are no rows "
                "of degree l >= 1 to gate";
    return success();
  }
  if (!gw)
    return op->emitOpError() << "needs a gate weight 'gw' (H, lmax*H) for "
                                "its rows of degree l >= 1";
  return shapes.check("gw", gw, kFloat,
                      {Dim::fixed(width), Dim::fixed(lmax * width)});
}
} // namespace

LogicalResult GluOp::verifyShapes(ShapeChecker &shapes) {
  return checkGlu(*this, shapes, getLmax(), getX(), getGw(), "result",
                  getResult());
}

LogicalResult GluGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(checkGlu(*this, shapes, getLmax(), getX(), getGw(), "grad",
                      getGrad())))
    return failure();
  return shapes.checkSameType("result", getResult(), "x", getX());
}

//===----------------------------------------------------------------------===//
// Grid products
//===----------------------------------------------------------------------===//

namespace {
/// Fields a, b (N, J, W) and the grid matrices to (J, P), from (P, J).
LogicalResult checkGridProduct(ShapeChecker &shapes, Value a, Value b,
                               Value toGrid, Value fromGrid) {
  const Dim coefficients = Dim::channel("J"), channels = Dim::channel("W"),
            points = Dim::channel("P");
  if (failed(shapes.check("a", a, kFloat, {kNodes, coefficients, channels})) ||
      failed(shapes.check("b", b, kFloat, {kNodes, coefficients, channels})) ||
      failed(shapes.check("to_grid", toGrid, kFloat, {coefficients, points})))
    return failure();
  return shapes.check("from_grid", fromGrid, kFloat, {points, coefficients});
}
} // namespace

LogicalResult GridProductOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(
          checkGridProduct(shapes, getA(), getB(), getToGrid(), getFromGrid())))
    return failure();
  return shapes.checkSameType("result", getResult(), "a", getA());
}

LogicalResult GridProductGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(checkGridProduct(shapes, getA(), getB(), getToGrid(),
                              getFromGrid())) ||
      failed(shapes.checkSameType("grad", getGrad(), "a", getA())) ||
      failed(shapes.checkSameType("a_grad", getAGrad(), "a", getA())))
    return failure();
  return shapes.checkSameType("b_grad", getBGrad(), "a", getA());
}

//===----------------------------------------------------------------------===//
// Aggregation
//===----------------------------------------------------------------------===//

namespace {
/// The per-edge message inputs and the destination CSR of an aggregation.
LogicalResult checkAggregateInputs(ShapeChecker &shapes, SO2Layout layout,
                                   Value xl, Value wigner, Value env,
                                   Value dstOrder, Value dstRowptr,
                                   bool rangeOfEdges = false) {
  if (failed(shapes.check("xl", xl, kFloat,
                          {kEdges, reducedRows(layout), kChannels})) ||
      failed(
          shapes.check("wigner", wigner, kFloat, wignerDims(layout, wigner))) ||
      failed(shapes.check("env", env, kFloat, {kEdges})))
    return failure();
  return checkCsr(shapes, "dst_order", dstOrder, "dst_rowptr", dstRowptr,
                  rangeOfEdges);
}
} // namespace

LogicalResult EnvelopeAggregateOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  if (failed(checkAggregateInputs(shapes, layout, getXl(), getWigner(),
                                  getEnv(), getDstOrder(), getDstRowptr(),
                                  /*rangeOfEdges=*/bool(getFirstEdge()))) ||
      failed(shapes.check("inv_sqrt_deg", getInvSqrtDeg(), kFloat, {kNodes})))
    return failure();
  if (getFocusAlpha() &&
      (failed(shapes.check("alpha", getFocusAlpha(), kFloat,
                           {kEdges, Dim::channel("F")})) ||
       failed(splitFocus(*this, shapes, "xl", *shapes.extent("F")))))
    return failure();
  return shapes.check("result", getResult(), kFloat,
                      {kNodes, packedRows(layout), kChannels});
}

LogicalResult EnvelopeAggregateGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  if (failed(shapes.check("xl", getXl(), kFloat,
                          {kEdges, reducedRows(layout), kChannels})) ||
      failed(shapes.check("wigner", getWigner(), kFloat,
                          wignerDims(layout, getWigner()))) ||
      failed(shapes.check("env", getEnv(), kFloat, {kEdges})) ||
      failed(shapes.check("dst", getDst(), kIndex, {kEdges})) ||
      failed(shapes.check("inv_sqrt_deg", getInvSqrtDeg(), kFloat, {kNodes})) ||
      failed(shapes.check("grad", getGrad(), kFloat,
                          {kNodes, packedRows(layout), kChannels})) ||
      failed(shapes.checkSameType("xl_grad", getXlGrad(), "xl", getXl())) ||
      failed(shapes.checkSameType("wigner_grad", getWignerGrad(), "wigner",
                                  getWigner())) ||
      failed(shapes.checkSameType("env_grad", getEnvGrad(), "env", getEnv())) ||
      failed(
          shapes.checkSameType("norm_terms", getNormTerms(), "env", getEnv())))
    return failure();
  if (bool(getFocusAlpha()) != bool(getAlphaGrad()))
    return emitOpError() << "has " << (getFocusAlpha() ? "" : "no ")
                         << "`scaled` operand but "
                         << (getAlphaGrad() ? "" : "no ")
                         << "alpha_grad result: they come together";
  if (!getFocusAlpha())
    return success();
  if (failed(shapes.check("alpha", getFocusAlpha(), kFloat,
                          {kEdges, Dim::channel("F")})) ||
      failed(splitFocus(*this, shapes, "xl", *shapes.extent("F"))))
    return failure();
  return shapes.checkSameType("alpha_grad", getAlphaGrad(), "alpha",
                              getFocusAlpha());
}

namespace {
/// The attention logits (E, F, H) and null logits (F, H); C must split into
/// F focus streams of H heads each.
LogicalResult checkAttention(Operation *op, ShapeChecker &shapes, Value logit,
                             Value nullLogit) {
  Dim focus = Dim::channel("F"), heads = Dim::channel("H");
  if (failed(shapes.check("logit", logit, kFloat, {kEdges, focus, heads})) ||
      failed(shapes.check("null_logit", nullLogit, kFloat, {focus, heads})))
    return failure();
  int64_t channels = *shapes.extent("C");
  int64_t streams = *shapes.extent("F") * *shapes.extent("H");
  if (channels % streams != 0)
    return op->emitOpError()
           << "channel width C = " << channels << " of 'xl' does not split "
           << "into F = " << *shapes.extent("F")
           << " focus streams of H = " << *shapes.extent("H") << " heads";
  return success();
}
} // namespace

LogicalResult AttentionAggregateOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  if (failed(checkAggregateInputs(shapes, layout, getXl(), getWigner(),
                                  getEnv(), getDstOrder(), getDstRowptr())) ||
      failed(checkAttention(*this, shapes, getLogit(), getNullLogit())))
    return failure();
  return shapes.check("result", getResult(), kFloat,
                      {kNodes, packedRows(layout), kChannels});
}

LogicalResult AttentionAggregateGradOp::verifyShapes(ShapeChecker &shapes) {
  if (failed(verifyLmax(*this, getLmax())))
    return failure();
  SO2Layout layout{static_cast<int64_t>(getLmax())};
  shapes.setContext(lmaxContext(layout.lmax));
  if (failed(checkAggregateInputs(shapes, layout, getXl(), getWigner(),
                                  getEnv(), getDstOrder(), getDstRowptr())) ||
      failed(checkAttention(*this, shapes, getLogit(), getNullLogit())) ||
      failed(shapes.check("grad", getGrad(), kFloat,
                          {kNodes, packedRows(layout), kChannels})) ||
      failed(shapes.checkSameType("xl_grad", getXlGrad(), "xl", getXl())) ||
      failed(shapes.checkSameType("wigner_grad", getWignerGrad(), "wigner",
                                  getWigner())) ||
      failed(shapes.checkSameType("logit_grad", getLogitGrad(), "logit",
                                  getLogit())) ||
      failed(shapes.checkSameType("env_grad", getEnvGrad(), "env", getEnv())))
    return failure();
  return shapes.checkSameType("null_logit_grad", getNullLogitGrad(),
                              "null_logit", getNullLogit());
}

//===----------------------------------------------------------------------===//
// Canonicalization
//===----------------------------------------------------------------------===//

namespace {
/// Drops a channel-basis gradient nothing uses: inference graphs never need
/// weight gradients, and without it the backward can fuse with the source
/// segment reduction.
template <typename GradOp>
struct DropUnusedChannelBasisGrad : OpRewritePattern<GradOp> {
  using OpRewritePattern<GradOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(GradOp op,
                                PatternRewriter &rewriter) const override {
    Value cbGrad = op.getCbGrad();
    if (!cbGrad || !cbGrad.use_empty())
      return failure();
    OperationState state(op.getLoc(), op->getName());
    state.addOperands(op->getOperands());
    state.addTypes(TypeRange(op->getResultTypes()).drop_back());
    state.addAttributes(op->getDiscardableAttrDictionary().getValue());
    state.propertiesAttr = op->getPropertiesAsAttribute();
    Operation *reduced = rewriter.create(state);
    for (auto [from, to] :
         llvm::zip(op->getResults().drop_back(), reduced->getResults()))
      rewriter.replaceAllUsesWith(from, to);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void MixGradOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                            MLIRContext *context) {
  patterns.add<DropUnusedChannelBasisGrad<MixGradOp>>(context);
}

void RotateMixGradOp::getCanonicalizationPatterns(RewritePatternSet &patterns,
                                                  MLIRContext *context) {
  patterns.add<DropUnusedChannelBasisGrad<RotateMixGradOp>>(context);
}

//===----------------------------------------------------------------------===//
// EdgeRangeSumOpInterface: the CSR a node sum follows
//===----------------------------------------------------------------------===//

Value EnvelopeAggregateOp::getSumOrder() { return getDstOrder(); }
Value EnvelopeAggregateOp::getSumRowptr() { return getDstRowptr(); }
Value RotateMixGradReduceOp::getSumOrder() { return getSrcOrder(); }
Value RotateMixGradReduceOp::getSumRowptr() { return getSrcRowptr(); }

//===----------------------------------------------------------------------===//
// EdgeRowwiseOpInterface: the results that sum over every edge
//===----------------------------------------------------------------------===//

SmallVector<unsigned> RotateMixGradOp::getEdgeSumResults() {
  if (getCbGrad())
    return {getNumResults() - 1};
  return {};
}

SmallVector<unsigned> SO2LinearGradOp::getEdgeSumResults() { return {1, 2, 3}; }

SmallVector<unsigned> GateGradOp::getEdgeSumResults() { return {1}; }

SmallVector<unsigned> FocusCompeteGradOp::getEdgeSumResults() {
  if (getNormScaleGrad())
    return {1, 2};
  return {1};
}

//===----------------------------------------------------------------------===//
// Stages
//===----------------------------------------------------------------------===//

LogicalResult ExchangeOp::verifyShapes(ShapeChecker &shapes) {
  auto type = cast<RankedTensorType>(getFeatures().getType());
  if (type.getRank() == 0)
    return emitOpError() << "'features' must have rank >= 1, one row per "
                            "node, but has type "
                         << type;
  SmallVector<Dim> dims{kNodes};
  for (int64_t size : type.getShape().drop_front())
    dims.push_back(Dim::fixed(size));
  if (failed(shapes.check("features", getFeatures(), kFloat, dims)))
    return failure();
  return shapes.check("result", getResult(), kFloat, dims);
}

OpFoldResult ExchangeOp::fold(FoldAdaptor) { return getFeatures(); }
