//===- Passes.h - sezm graph passes -----------------------------*- C++ -*-===//
#ifndef SEZM_TRANSFORMS_PASSES_H
#define SEZM_TRANSFORMS_PASSES_H

#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::sezm {

/// The function attribute that records the schedule, and its values.
constexpr llvm::StringLiteral kScheduleAttr = "sezm.schedule";
constexpr llvm::StringLiteral kInference = "inference";
constexpr llvm::StringLiteral kTraining = "training";

/// Attaches the derivative rules (DerivativeOpInterface) of the upstream
/// arith, math, tensor and linalg ops; sezm-autodiff does so itself.
void registerUpstreamDerivatives(DialectRegistry &registry);

#define GEN_PASS_DECL
#include "SeZM/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "SeZM/Transforms/Passes.h.inc"

} // namespace mlir::sezm

#endif // SEZM_TRANSFORMS_PASSES_H
