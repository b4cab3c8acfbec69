//===- ModuleFile.cpp - what the tools share to read a module -------------===//

#include "SeZM/Execution/ModuleFile.h"

#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "SeZM/Execution/GpuCompiler.h"
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
  registerGpuCompilerInterfaces(registry);
  registry.insert<SeZMDialect>();
}

/// Why a PyTorch checkpoint given as a module is refused: its own damage,
/// the model it holds (which descriptor, type map and cutoff), and that a
/// module is not yet built from one (docs/import.md).
static std::string refuseCheckpoint(llvm::StringRef path, std::string bytes) {
  sezmrt::TorchCheckpoint checkpoint;
  std::string why;
  if (!sezmrt::parseTorchCheckpoint(std::move(bytes), checkpoint, why))
    return path.str() + ": " + why;
  const sezmrt::PyObject *params = nullptr;
  if (const sezmrt::PyObject *model = checkpoint.root->get("model"))
    if (const sezmrt::PyObject *extra = model->get("_extra_state"))
      params = extra->get("model_params");
  if (!params)
    return path.str() + ": a PyTorch checkpoint without the model_params of "
                        "a DeePMD-kit model (model._extra_state.model_params)";
  auto text = [](const sezmrt::PyObject *value) {
    return value && value->kind == sezmrt::PyObject::Kind::String
               ? value->text
               : std::string("?");
  };
  const sezmrt::PyObject *descriptor = params->get("descriptor");
  std::string type = text(descriptor ? descriptor->get("type") : nullptr);
  if (type != "dpa4")
    return path.str() + ": a DeePMD-kit checkpoint of descriptor '" + type +
           "', which sezm does not import (only dpa4, DPA4/SeZM)";
  std::string species;
  if (const sezmrt::PyObject *typeMap = params->get("type_map"))
    for (const sezmrt::PyObject *name : typeMap->items)
      species += (species.empty() ? "" : ", ") + text(name);
  return path.str() + ": a DeePMD-kit DPA4 checkpoint (type_map " + species +
         "); sezm reads it but does not yet build a module from it "
         "(docs/import.md)";
}

ModuleFile::ModuleFile(llvm::StringRef path, MLIRContext &context) {
  auto file = openInputFile(path, &error);
  if (!file)
    return;
  // A checkpoint given where a module goes is described, not parsed (and
  // echoed) as MLIR.
  if (sezmrt::looksLikeZip(file->getBuffer().take_front(4).str())) {
    error = refuseCheckpoint(path, file->getBuffer().str());
    return;
  }
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
