//===- FillValue.h - the constant a tensor is filled with -------*- C++ -*-===//
//
// A matmul's init is often a linalg.fill of a constant: the fusions and the
// GPU kernels fold such an init instead of reading it.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_DIALECT_SEZM_FILLVALUE_H
#define SEZM_DIALECT_SEZM_FILLVALUE_H

#include "mlir/IR/Value.h"

#include <optional>

namespace mlir::sezm {

/// The float `value` is filled with, where a linalg.fill of a float
/// constant computes it.
std::optional<double> getConstantFillValue(Value value);

} // namespace mlir::sezm

#endif // SEZM_DIALECT_SEZM_FILLVALUE_H
