//===- CpuRunner.h - JIT-compile and run sezm programs on the CPU -*- C++
//-*-===//
//
// The CPU backend behind `sezm-run --device cpu` and the execution tests:
// lowers a module with the CPU pipeline, JIT-compiles it with the MLIR
// ExecutionEngine and calls an entry function on host tensors.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_EXECUTION_CPURUNNER_H
#define SEZM_EXECUTION_CPURUNNER_H

#include "SeZM/Execution/EntrySignature.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace mlir::sezm {

class CpuProgram {
public:
  /// Reads the signatures of `entries` (every public function when empty),
  /// lowers `module` for the CPU (without the graph fusions unless `fuse`;
  /// recomputing the mixing stacks for the backward with
  /// `recomputeStacks`; the per-edge chains in chunks of `edgeChunk` edges
  /// where it is not 0) and JIT-compiles it.
  static llvm::Expected<std::unique_ptr<CpuProgram>>
  compile(OwningOpRef<ModuleOp> module, ArrayRef<std::string> entries = {},
          bool fuse = true, bool recomputeStacks = false,
          int64_t edgeChunk = 0);
  ~CpuProgram();

  /// The signature of a compiled entry, or null.
  const sezmrt::EntrySignature *signature(StringRef entry) const;

  /// Calls an entry function on `inputs` (in argument order), after
  /// checking them against its signature and graph contracts.
  llvm::Expected<std::vector<sezmrt::HostTensor>>
  run(StringRef entry, const std::vector<sezmrt::HostTensor> &inputs) const;

private:
  CpuProgram() = default;

  std::vector<sezmrt::EntrySignature> signatures;
  std::unique_ptr<ExecutionEngine> engine;
};

} // namespace mlir::sezm

#endif // SEZM_EXECUTION_CPURUNNER_H
