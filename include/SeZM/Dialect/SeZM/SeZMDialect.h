//===- SeZMDialect.h - the sezm dialect -------------------------*- C++ -*-===//
#ifndef SEZM_DIALECT_SEZM_SEZMDIALECT_H
#define SEZM_DIALECT_SEZM_SEZMDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <string>

#include "SeZM/Dialect/SeZM/SeZMOpsDialect.h.inc"

namespace mlir::sezm {

/// The attribute that names a function argument or result.
constexpr llvm::StringLiteral kNameAttr = "sezm.name";
/// The argument attribute that marks a CSR array (order or rowptr) as the
/// segmentation of the edges by the key argument it names.
constexpr llvm::StringLiteral kCsrOfAttr = "sezm.csr_of";

/// The name argument `index` of `func` goes by: its sezm.name, else arg<i>.
std::string argumentName(FunctionOpInterface func, unsigned index);

} // namespace mlir::sezm

#endif // SEZM_DIALECT_SEZM_SEZMDIALECT_H
