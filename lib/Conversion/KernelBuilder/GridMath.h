//===- GridMath.h - what the grid products' kernels share -------*- C++ -*-===//
//
// The arithmetic of sezm.grid_product and its gradient at one grid point
// (sezm-ops.md 3.9, 4.9), which the loop kernels and the GPU microkernels
// both run, so that both sum in one order: over the coefficients, then
// over the points.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_LIB_CONVERSION_KERNELBUILDER_GRIDMATH_H
#define SEZM_LIB_CONVERSION_KERNELBUILDER_GRIDMATH_H

#include "KernelBuilder.h"

namespace mlir::sezm::kernel {

/// The J coefficients of channel c of node n of a field (N, J, W).
SmallVector<Num> loadGridCoefficients(Emitter &em, Value field, int64_t count,
                                      Idx n, Idx c);

/// A B at a grid point: the fields `a` and `b` there, with `to` the
/// point's column of to_grid.
Num gridValue(ArrayRef<Num> a, ArrayRef<Num> b, ArrayRef<Num> to);

/// The result's J sums after a grid point, from `partial`: partial[j] +
/// value from[j], with `from` the point's row of from_grid.
SmallVector<Num> addGridPoint(ArrayRef<Num> partial, Num value,
                              ArrayRef<Num> from);

/// Both gradients' sums after grid point p, from `partial` (a's J sums,
/// then b's): with G = grad . from, a's take G B to[i] and b's G A to[i].
SmallVector<Num> addGridPointGradient(ArrayRef<Num> partial, ArrayRef<Num> grad,
                                      ArrayRef<Num> a, ArrayRef<Num> b,
                                      ArrayRef<Num> to, ArrayRef<Num> from);

} // namespace mlir::sezm::kernel

#endif // SEZM_LIB_CONVERSION_KERNELBUILDER_GRIDMATH_H
