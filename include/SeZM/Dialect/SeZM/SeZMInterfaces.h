//===- SeZMInterfaces.h - what each sezm op states about itself -*- C++ -*-===//
#ifndef SEZM_DIALECT_SEZM_SEZMINTERFACES_H
#define SEZM_DIALECT_SEZM_SEZMINTERFACES_H

#include "SeZM/Dialect/SeZM/ReverseMode.h"
#include "SeZM/Dialect/SeZM/ShapeContract.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::sezm {
/// The buffers of a CPU loop kernel (lib/Conversion/KernelBuilder).
class KernelIO;
} // namespace mlir::sezm

#include "SeZM/Dialect/SeZM/SeZMInterfaces.h.inc"

#endif // SEZM_DIALECT_SEZM_SEZMINTERFACES_H
