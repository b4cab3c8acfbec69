//===- Microkernels.h - the hand-scheduled GPU kernels ----------*- C++ -*-===//
//
// The microkernel strategy: each entry is a GPU kernel designed for one op
// kind, with the test of which ops of that kind it lowers.
// sezm-select-lowering-strategy picks from this table; convert-sezm-to-gpu-
// kernels emits what the op's kernel configuration names.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_LIB_CONVERSION_SEZMTOGPU_MICROKERNELS_H
#define SEZM_LIB_CONVERSION_SEZMTOGPU_MICROKERNELS_H

#include "TiledGemm.h"

#include "SeZM/Dialect/SeZM/SeZMAttrs.h"
#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Operation.h"

namespace mlir::sezm {

class KernelIO;

/// Each microkernel, one file each: whether it lowers an op, and its
/// emitter, which names the kernel and asks for blocks per multiprocessor
/// as the op's configuration says.
namespace microkernels {
bool rotateMixApplies(RotateMixOp op);
void emitRotateMix(RotateMixOp op, KernelIO &io, KernelConfigAttr config);
bool segmentReduceApplies(SegmentReduceOp op);
void emitSegmentReduce(SegmentReduceOp op, KernelIO &io,
                       KernelConfigAttr config);
bool segmentReduceGradApplies(SegmentReduceGradOp op);
void emitSegmentReduceGrad(SegmentReduceGradOp op, KernelIO &io,
                           KernelConfigAttr config);
bool rotateMixGradApplies(RotateMixGradOp op);
void emitRotateMixGrad(RotateMixGradOp op, KernelIO &io,
                       KernelConfigAttr config);
bool rotateMixGradReduceApplies(RotateMixGradReduceOp op);
void emitRotateMixGradReduce(RotateMixGradReduceOp op, KernelIO &io,
                             KernelConfigAttr config);
bool isFullSum(linalg::ReduceOp op);
void emitFullSum(linalg::ReduceOp op, KernelIO &io, KernelConfigAttr config);
bool isLongMatmul(linalg::MatmulOp op);
void emitLongMatmul(linalg::MatmulOp op, KernelIO &io, KernelConfigAttr config);
bool envelopeAggregateGradApplies(EnvelopeAggregateGradOp op);
void emitEnvelopeAggregateGrad(EnvelopeAggregateGradOp op, KernelIO &io,
                               KernelConfigAttr config);
bool attentionAggregateGradApplies(AttentionAggregateGradOp op);
void emitAttentionAggregateGrad(AttentionAggregateGradOp op, KernelIO &io,
                                KernelConfigAttr config);
bool focusScaleApplies(FocusScaleOp op);
void emitFocusScale(FocusScaleOp op, KernelIO &io, KernelConfigAttr config);
bool focusCompeteGradApplies(FocusCompeteGradOp op);
void emitFocusCompeteGrad(FocusCompeteGradOp op, KernelIO &io,
                          KernelConfigAttr config);
bool focusScaleGradApplies(FocusScaleGradOp op);
void emitFocusScaleGrad(FocusScaleGradOp op, KernelIO &io,
                        KernelConfigAttr config);
bool degreeLinearApplies(DegreeLinearOp op);
ProductTiles degreeLinearTiles(DegreeLinearOp op);
void emitDegreeLinear(DegreeLinearOp op, KernelIO &io, KernelConfigAttr config);
bool isRowsMatmul(linalg::MatmulOp op);
ProductTiles rowsMatmulTiles(linalg::MatmulOp op);
void emitRowsMatmul(linalg::MatmulOp op, KernelIO &io, KernelConfigAttr config);
/// Whether `op`'s payload is scalar arith and math on its block's arguments
/// and constants: what a kernel can compute per element where it loads.
bool isScalarPayload(linalg::GenericOp op);
/// The indices at which `map` (a projected permutation) reads an operand
/// on the loops' iteration `loops`.
SmallVector<kernel::Idx> indicesOf(AffineMap map, ArrayRef<kernel::Idx> loops);
/// Maps the arguments of `op`'s payload (a scalar one) for the iteration
/// `loops`: each input loaded where its map reads it there, except the one
/// `given` names, which is `given`'s value.
void mapPayloadInputs(linalg::GenericOp op, KernelIO &io,
                      ArrayRef<kernel::Idx> loops,
                      std::pair<Value, kernel::Num> given, IRMapping &payload);
/// The values `op`'s payload (a scalar one) yields on the iteration
/// `loops`, each input loaded where its map reads it there, except the one
/// `given` names, which is `given`'s value.
SmallVector<kernel::Num> emitPayloadAt(linalg::GenericOp op, KernelIO &io,
                                       ArrayRef<kernel::Idx> loops,
                                       std::pair<Value, kernel::Num> given);
/// The elementwise generic that computes `operand`, where the kernel of its
/// one user may compute each element as it loads it instead of reading it:
/// one result, in place over its loops, read by that user alone, inputs
/// read through projections, a scalar payload, not a GEMM's epilogue; null
/// where none is.
linalg::GenericOp computableOperand(Value operand);
/// The kernel that computes operand `use` as it loads it, where the user's
/// microkernel does (a segment_reduce's values, a middle-axis product's x)
/// and computableOperand allows; empty where none does.
StringRef kernelComputingOperand(OpOperand &use);
/// A buffer of `operand`'s shape: its own, or where its producer is
/// computed in this kernel, the producer's destination.
Value shapeOf(KernelIO &io, Value operand);
/// `operand`'s element at `indices`: loaded, or computed from its
/// producer's inputs where the strategy room fused the producer into this
/// kernel.
kernel::Num loadOrCompute(KernelIO &io, Value operand,
                          ArrayRef<kernel::Idx> indices);
/// The tiled matmul whose product `op` (elementwise over its rows and
/// columns, with one result or several) finishes in the GEMM's stores:
/// read by `op` alone, in place, where the strategy room gives it the tiled
/// GEMM; null where none is.
linalg::MatmulOp epilogueProducer(linalg::GenericOp op);
bool isMatmulEpilogue(linalg::GenericOp op);
ProductTiles matmulEpilogueTiles(linalg::GenericOp op);
void emitMatmulEpilogue(linalg::GenericOp op, KernelIO &io,
                        KernelConfigAttr config);
bool isNarrowMatmul(linalg::MatmulOp op);
bool isSmallMatmul(linalg::MatmulOp op);
void emitSmallMatmul(linalg::MatmulOp op, KernelIO &io,
                     KernelConfigAttr config);
void emitNarrowMatmul(linalg::MatmulOp op, KernelIO &io,
                      KernelConfigAttr config);
bool isLaneSum(linalg::GenericOp op);
void emitLaneSum(linalg::GenericOp op, KernelIO &io, KernelConfigAttr config);
bool isMiddleAxisProduct(linalg::GenericOp op);
void emitMiddleAxisProduct(linalg::GenericOp op, KernelIO &io,
                           KernelConfigAttr config);
bool gridProductApplies(GridProductOp op);
void emitGridProduct(GridProductOp op, KernelIO &io, KernelConfigAttr config);
bool gridProductGradApplies(GridProductGradOp op);
void emitGridProductGrad(GridProductGradOp op, KernelIO &io,
                         KernelConfigAttr config);
bool rmsNormApplies(RmsNormOp op);
void emitRmsNorm(RmsNormOp op, KernelIO &io, KernelConfigAttr config);
bool rmsNormGradApplies(RmsNormGradOp op);
void emitRmsNormGrad(RmsNormGradOp op, KernelIO &io, KernelConfigAttr config);
bool equivariantRmsNormApplies(EquivariantRmsNormOp op);
void emitEquivariantRmsNorm(EquivariantRmsNormOp op, KernelIO &io,
                            KernelConfigAttr config);
bool equivariantRmsNormGradApplies(EquivariantRmsNormGradOp op);
void emitEquivariantRmsNormGrad(EquivariantRmsNormGradOp op, KernelIO &io,
                                KernelConfigAttr config);
/// Blocks (of kWarpsPerBlock warps) per multiprocessor the gates' warp
/// kernels ask for: at most 32 registers a thread (no spills), every warp
/// slot filled, so that enough edges' loads are in flight (gate_grad took
/// 122 unasked).
constexpr int64_t kGateWarpBlocksPerSm = 16;
/// Words of gw a lane of a resident gate warp holds in registers (its
/// channels' columns at every degree of every stream): DPA4-Mini's 32
/// channels at lmax 2 take 64.
constexpr int64_t kGateHeldWeightsPerLane = 64;
/// Blocks per multiprocessor of a resident gate's warps: up to 128
/// registers a thread, for the held weights.
constexpr int64_t kGateResidentBlocksPerSm = 4;
/// The most blocks a resident gate launches: four waves of
/// kGateResidentBlocksPerSm on an H100's or H200's 132 multiprocessors, each
/// warp then taking E / 8448 edges.
constexpr int64_t kGateResidentBlocks = 2112;
bool gateApplies(GateOp op);
void emitGate(GateOp op, KernelIO &io, KernelConfigAttr config);
bool residentGateApplies(GateOp op);
void emitResidentGate(GateOp op, KernelIO &io, KernelConfigAttr config);
bool gateGradApplies(GateGradOp op);
ProductTiles gateGradTiles(GateGradOp op);
void emitGateGrad(GateGradOp op, KernelIO &io, KernelConfigAttr config);
bool so2LinearApplies(SO2LinearOp op);
ProductTiles so2LinearTiles(SO2LinearOp op);
void emitSO2Linear(SO2LinearOp op, KernelIO &io, KernelConfigAttr config);
bool so2LinearGradApplies(SO2LinearGradOp op);
ProductTiles so2LinearGradTiles(SO2LinearGradOp op);
void emitSO2LinearGrad(SO2LinearGradOp op, KernelIO &io,
                       KernelConfigAttr config);
} // namespace microkernels

struct Microkernel {
  /// The kernel configuration's `kernel`, and the kernel's name in profiles.
  StringLiteral name;
  /// The blocks per multiprocessor it is tuned for (0: as ptxas likes).
  int64_t blocksPerSm;
  /// Whether it lowers `op`.
  bool (*applies)(Operation *op);
  /// The GEMM tiles it records for `op`, one per product shape in launch
  /// order; null for an untiled kernel.
  microkernels::ProductTiles (*tiles)(Operation *op);
  /// Writes the kernel of `op`, as `config` says.
  void (*emit)(Operation *op, KernelIO &io, KernelConfigAttr config);
};

/// Every microkernel, in the order the strategy tries them.
ArrayRef<Microkernel> getMicrokernels();
/// The microkernel named `name`, or null.
const Microkernel *lookupMicrokernel(StringRef name);
/// The first microkernel (in the strategy's order) that lowers `op`, or
/// null.
const Microkernel *firstMicrokernelFor(Operation *op);

} // namespace mlir::sezm

#endif // SEZM_LIB_CONVERSION_SEZMTOGPU_MICROKERNELS_H
