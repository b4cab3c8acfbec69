//===- ModuleFile.h - what the tools share to read a module -----*- C++ -*-===//
#ifndef SEZM_EXECUTION_MODULEFILE_H
#define SEZM_EXECUTION_MODULEFILE_H

#include "SeZM/Import/DPA4Import.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/SourceMgr.h"

#include <memory>
#include <optional>
#include <string>

namespace mlir::sezm {

/// Every dialect, extension and translation the tools compile with.
void registerToolDialects(DialectRegistry &registry);

/// Adds @<energy>_forces (energy, forces, virial) to `module` with
/// sezm-autodiff, the tools' --forces-of; errors go to the context's
/// diagnostic handler.
/// With `perAtom`, it returns each atom's energy and virial too
/// (atom_energy, atom_virial). With `stages`, the energy is also cut into
/// stages at its block boundaries (sezm-split-stages), for a domain
/// decomposition.
LogicalResult addForces(ModuleOp module, llvm::StringRef energy,
                        bool perAtom = false, bool stages = false);

/// A module parsed from a file, or imported from a DeePMD-kit DPA4
/// checkpoint (in `precision`). Diagnostics about it (parse errors, and
/// anything reported later while it lives) go to stderr with their
/// location in the file (in the imported text for a checkpoint).
class ModuleFile {
public:
  ModuleFile(
      llvm::StringRef path, MLIRContext &context,
      sezmrt::ImportPrecision precision = sezmrt::ImportPrecision::Model);

  /// What was imported from a checkpoint (its weights bind the module's
  /// weight arguments); none for a module file.
  std::optional<sezmrt::ImportedModel> &importedModel() { return imported; }

  /// The module; null when the file could not be opened or parsed.
  OwningOpRef<ModuleOp> &module() { return parsed; }
  /// Why the file could not be opened (empty when it could).
  const std::string &openError() const { return error; }

private:
  llvm::SourceMgr sourceMgr;
  std::unique_ptr<SourceMgrDiagnosticHandler> handler;
  OwningOpRef<ModuleOp> parsed;
  std::optional<sezmrt::ImportedModel> imported;
  std::string error;
};

} // namespace mlir::sezm

#endif // SEZM_EXECUTION_MODULEFILE_H
