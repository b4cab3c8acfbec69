//===- ModuleFile.cpp - what the tools share to read a module -------------===//

#include "SeZM/Execution/ModuleFile.h"

#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "SeZM/Execution/ArtifactCompiler.h"
#include "SeZM/Import/DPA4Import.h"
#include "SeZM/Support/TorchCheckpoint.h"
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
  registerArtifactCompilerInterfaces(registry);
  registry.insert<SeZMDialect>();
}

ModuleFile::ModuleFile(llvm::StringRef path, MLIRContext &context,
                       sezmrt::ImportPrecision precision) {
  auto file = openInputFile(path, &error);
  if (!file)
    return;
  // A checkpoint is imported: the module is built from its config and
  // weights (docs/import.md), not parsed (and echoed) as MLIR.
  if (sezmrt::looksLikeZip(file->getBuffer().take_front(4).str())) {
    sezmrt::TorchCheckpoint checkpoint;
    std::string why;
    if (!sezmrt::parseTorchCheckpoint(file->getBuffer().str(), checkpoint,
                                      why)) {
      error = path.str() + ": " + why;
      return;
    }
    sezmrt::ImportedModel model;
    if (!sezmrt::importDPA4(checkpoint, precision, model, why)) {
      error = path.str() + ": " + why;
      return;
    }
    imported = std::move(model);
    file = llvm::MemoryBuffer::getMemBufferCopy(imported->moduleText,
                                                path.str() + " (imported)");
  }
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  handler = std::make_unique<SourceMgrDiagnosticHandler>(sourceMgr, &context);
  parsed = parseSourceFile<ModuleOp>(sourceMgr, &context);
}

LogicalResult sezm::addForces(ModuleOp module, llvm::StringRef energy,
                              bool perAtom, bool stages) {
  PassManager pm(module.getContext());
  AutodiffOptions autodiff;
  autodiff.energy = energy.str();
  autodiff.perAtom = perAtom;
  // Before the derivatives, which then take the Wigner-D's form.
  pm.addNestedPass<func::FuncOp>(createKeepWignerEntries());
  if (stages) {
    SplitStagesOptions split;
    split.energy = energy.str();
    split.perAtom = perAtom;
    pm.addPass(createSplitStages(split));
  }
  pm.addPass(createAutodiff(autodiff));
  return pm.run(module);
}
