//===- ForcesProgram.h - an energy with forces, compiled for the CPU ------===//
//
// What the force tests share: parse an energy module, add @energy_forces
// with sezm-autodiff and compile both for the CPU.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_UNITTESTS_FORCESPROGRAM_H
#define SEZM_UNITTESTS_FORCESPROGRAM_H

#include "SeZM/Execution/CpuRunner.h"
#include "SeZM/Execution/ModuleFile.h"
#include "SeZM/Transforms/Passes.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

#include <memory>

namespace sezm::testing {

/// Compiles `source` (with @energy) and the @energy_forces that sezm-autodiff
/// adds (returning also the gradients of the arguments named in `weights`);
/// records a test failure and returns null when any step fails.
inline std::unique_ptr<mlir::sezm::CpuProgram>
compileWithForces(mlir::MLIRContext &context, const char *source,
                  const std::vector<std::string> &weights = {}) {
  mlir::DialectRegistry registry;
  mlir::sezm::registerToolDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(source, &context);
  if (!module) {
    ADD_FAILURE() << "the energy module does not parse";
    return nullptr;
  }
  mlir::PassManager pm(&context);
  mlir::sezm::AutodiffOptions options;
  options.weights.assign(weights.begin(), weights.end());
  pm.addPass(mlir::sezm::createAutodiff(options));
  if (mlir::failed(pm.run(*module)) || !module->lookupSymbol("energy_forces")) {
    ADD_FAILURE() << "sezm-autodiff did not add @energy_forces";
    return nullptr;
  }
  auto compiled = mlir::sezm::CpuProgram::compile(std::move(module));
  if (!compiled) {
    ADD_FAILURE() << llvm::toString(compiled.takeError());
    return nullptr;
  }
  return std::move(*compiled);
}

/// A 1-D int64 tensor.
inline sezmrt::HostTensor int64Tensor(const std::vector<int64_t> &values) {
  return sezmrt::tensorFrom(sezmrt::ElementType::I64,
                            {static_cast<int64_t>(values.size())}, values);
}

} // namespace sezm::testing

#endif // SEZM_UNITTESTS_FORCESPROGRAM_H
