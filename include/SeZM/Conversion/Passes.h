//===- Passes.h - sezm conversion passes and pipelines ----------*- C++ -*-===//
#ifndef SEZM_CONVERSION_PASSES_H
#define SEZM_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::sezm {

#define GEN_PASS_DECL
#include "SeZM/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "SeZM/Conversion/Passes.h.inc"

/// Lowers a module of sezm, linalg, arith, math and tensor ops on tensors to
/// the LLVM dialect for the CPU: sezm kernels as loops, one-shot
/// bufferization, buffer deallocation, loops, LLVM.
void buildCpuPipeline(OpPassManager &pm);

/// Registers the named pipelines (`sezm-cpu-pipeline`).
void registerPipelines();

} // namespace mlir::sezm

#endif // SEZM_CONVERSION_PASSES_H
