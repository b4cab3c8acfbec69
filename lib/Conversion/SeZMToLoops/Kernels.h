//===- Kernels.h - the CPU kernel of each sezm op ---------------*- C++ -*-===//
//
// Each sezm op has an emitKernel overload that writes its loop nest with the
// KernelBuilder layer: it reads operand buffers through KernelIO::in and
// allocates its results through KernelIO::allocate.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_LIB_CONVERSION_SEZMTOLOOPS_KERNELS_H
#define SEZM_LIB_CONVERSION_SEZMTOLOOPS_KERNELS_H

#include "KernelBuilder/KernelBuilder.h"
#include "KernelBuilder/KernelIO.h"
#include "SeZM/Dialect/SeZM/SO2Layout.h"
#include "SeZM/Dialect/SeZM/SeZMOps.h"

namespace mlir::sezm {

/// The layout of an op with an lmax attribute.
template <typename OpTy> SO2Layout layoutOf(OpTy op) {
  return SO2Layout{static_cast<int64_t>(op.getLmax())};
}

/// A static extent of a tensor type.
inline int64_t staticDim(Value tensor, unsigned axis) {
  return cast<RankedTensorType>(tensor.getType()).getDimSize(axis);
}

#define SEZM_KERNEL(Op) void emitKernel(Op op, KernelIO &io);
SEZM_KERNEL(EdgeVectorsOp)
SEZM_KERNEL(EdgeVectorsGradOp)
SEZM_KERNEL(EnvelopeOp)
SEZM_KERNEL(EnvelopeGradOp)
SEZM_KERNEL(RadialBasisOp)
SEZM_KERNEL(RadialBasisGradOp)
SEZM_KERNEL(WignerOp)
SEZM_KERNEL(WignerGradOp)
SEZM_KERNEL(EnvelopeGradGradOp)
SEZM_KERNEL(RadialBasisGradGradOp)
SEZM_KERNEL(WignerGradGradOp)
SEZM_KERNEL(RotateOp)
SEZM_KERNEL(RotateGradOp)
SEZM_KERNEL(MixOp)
SEZM_KERNEL(MixGradOp)
SEZM_KERNEL(RotateMixOp)
SEZM_KERNEL(RotateMixGradOp)
SEZM_KERNEL(RotateMixGradReduceOp)
SEZM_KERNEL(RotateBackOp)
SEZM_KERNEL(RotateBackGradOp)
SEZM_KERNEL(SegmentReduceOp)
SEZM_KERNEL(SegmentReduceGradOp)
SEZM_KERNEL(ExchangeOp)
SEZM_KERNEL(SO2LinearOp)
SEZM_KERNEL(SO2LinearGradOp)
SEZM_KERNEL(GateOp)
SEZM_KERNEL(GateGradOp)
SEZM_KERNEL(FocusCompeteOp)
SEZM_KERNEL(FocusCompeteGradOp)
SEZM_KERNEL(FocusScaleOp)
SEZM_KERNEL(FocusScaleGradOp)
SEZM_KERNEL(EnvelopeAggregateOp)
SEZM_KERNEL(EnvelopeAggregateGradOp)
SEZM_KERNEL(AttentionAggregateOp)
SEZM_KERNEL(AttentionAggregateGradOp)
SEZM_KERNEL(DegreeLinearOp)
SEZM_KERNEL(DegreeLinearWeightGradOp)
SEZM_KERNEL(RmsNormOp)
SEZM_KERNEL(RmsNormGradOp)
SEZM_KERNEL(EquivariantRmsNormOp)
SEZM_KERNEL(EquivariantRmsNormGradOp)
SEZM_KERNEL(GluOp)
SEZM_KERNEL(GluGradOp)
SEZM_KERNEL(GridProductOp)
SEZM_KERNEL(GridProductGradOp)
#undef SEZM_KERNEL

} // namespace mlir::sezm

#endif // SEZM_LIB_CONVERSION_SEZMTOLOOPS_KERNELS_H
