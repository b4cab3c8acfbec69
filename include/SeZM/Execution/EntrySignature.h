//===- EntrySignature.h - an entry function's signature from IR -*- C++ -*-===//
//
// Derives the sezmrt::EntrySignature (Support/Signature.h) of an entry
// function: names from the `sezm.name` attribute (arg<i> / result<i> where
// unnamed), and the contracts from what its sezm ops' verifiers check.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_EXECUTION_ENTRYSIGNATURE_H
#define SEZM_EXECUTION_ENTRYSIGNATURE_H

#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "SeZM/Support/Signature.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir::sezm {

/// Reads the signature of the public function `entry` (or of the only
/// public function when `entry` is empty).
llvm::Expected<sezmrt::EntrySignature> getEntrySignature(ModuleOp module,
                                                         StringRef entry);

} // namespace mlir::sezm

#endif // SEZM_EXECUTION_ENTRYSIGNATURE_H
