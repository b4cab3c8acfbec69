//===- SeZMAttrs.h - sezm attributes ----------------------------*- C++ -*-===//
#ifndef SEZM_DIALECT_SEZM_SEZMATTRS_H
#define SEZM_DIALECT_SEZM_SEZMATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "SeZM/Dialect/SeZM/SeZMEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "SeZM/Dialect/SeZM/SeZMAttrs.h.inc"

namespace mlir::sezm {
/// The op attribute holding an op's KernelConfigAttr.
constexpr llvm::StringLiteral kKernelConfigAttr = "sezm.kernel_config";
} // namespace mlir::sezm

#endif // SEZM_DIALECT_SEZM_SEZMATTRS_H
