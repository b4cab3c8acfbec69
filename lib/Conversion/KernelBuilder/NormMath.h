//===- NormMath.h - what the RMS norms' kernels share -----------*- C++ -*-===//
//
// The constants of sezm.equivariant_rms_norm and its gradient that the loop
// kernels and the GPU's warp kernels both use (sezm-ops.md 3.7).
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_LIB_CONVERSION_KERNELBUILDER_NORMMATH_H
#define SEZM_LIB_CONVERSION_KERNELBUILDER_NORMMATH_H

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::sezm::kernel {

/// Each degree's weight in an equivariant norm's shared mean square: the
/// op's degree_weights (a checkpoint's balance_weight), or
/// 1 / ((2l+1) (lmax+1) C).
template <typename NormOp>
SmallVector<double> meanSquareWeights(NormOp op, int64_t channels) {
  int64_t lmax = op.getLmax();
  SmallVector<double> weights;
  for (int64_t l = 0; l <= lmax; ++l)
    weights.push_back(
        op.getDegreeWeights()
            ? cast<FloatAttr>((*op.getDegreeWeights())[l]).getValueAsDouble()
            : 1.0 / static_cast<double>((2 * l + 1) * (lmax + 1) * channels));
  return weights;
}

} // namespace mlir::sezm::kernel

#endif // SEZM_LIB_CONVERSION_KERNELBUILDER_NORMMATH_H
