//===- ModuleFile.cpp - what the tools share to read a module -------------===//

#include "SeZM/Execution/ModuleFile.h"

#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "SeZM/Execution/GpuCompiler.h"
#include "SeZM/Transforms/Passes.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"

using namespace mlir;
using namespace mlir::sezm;

void sezm::registerToolDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerGpuCompilerInterfaces(registry);
  registry.insert<SeZMDialect>();
}

ModuleFile::ModuleFile(llvm::StringRef path, MLIRContext &context) {
  auto file = openInputFile(path, &error);
  if (!file)
    return;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  handler = std::make_unique<SourceMgrDiagnosticHandler>(sourceMgr, &context);
  parsed = parseSourceFile<ModuleOp>(sourceMgr, &context);
}

LogicalResult sezm::addForces(ModuleOp module, llvm::StringRef energy) {
  PassManager pm(module.getContext());
  AutodiffOptions autodiff;
  autodiff.energy = energy.str();
  // Before the derivatives, which then take the Wigner-D's form.
  pm.addNestedPass<func::FuncOp>(createKeepWignerEntries());
  pm.addPass(createAutodiff(autodiff));
  return pm.run(module);
}
