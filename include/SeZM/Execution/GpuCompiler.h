//===- GpuCompiler.h - compile a module into a GPU library ------*- C++ -*-===//
//
// The ahead-of-time path behind sezm-compile and `sezm-run --device gpu`:
// the GPU pipeline (PTX kernels, host code calling the mgpu* ABI), a packed
// entry point `_sezm_packed_<name>(void **)` per public function, the text
// manifest of their signatures (`sezm_manifest`), and a shared library that
// libsezm_runtime loads.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_EXECUTION_GPUCOMPILER_H
#define SEZM_EXECUTION_GPUCOMPILER_H

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir::sezm {

struct GpuCompileOptions {
  /// The NVIDIA GPU: sm_80, sm_86, sm_89 or sm_90.
  std::string chip = "sm_90";
  enum class Emit { Artifact, Library, Object, LLVMIR, PTX };
  /// What to write: the versioned artifact (SeZM/Support/Artifact.h), a
  /// shared library, the host object, the host LLVM IR, or (into a folder)
  /// each kernel module's PTX.
  Emit emit = Emit::Artifact;
  /// With Emit::Artifact: a safetensors file of weights to carry along (each
  /// tensor must name an input of an entry, with its type and shape).
  std::string weightsPath;
  /// With Emit::Artifact and no weightsPath: safetensors bytes of weights
  /// to carry (those imported from a checkpoint), checked the same way.
  std::string weights;
  /// Whether the graph fusions run (false: to compare against them).
  bool fuse = true;
};

/// The chips sezm compiles for, and the PTX ISA each gets.
llvm::Error checkChip(llvm::StringRef chip);

/// Compiles every public function of `module` (which it lowers in place).
llvm::Error compileForGpu(ModuleOp module, const GpuCompileOptions &options,
                          llvm::StringRef outputPath);

/// Registers what compileForGpu needs in a context's registry: the LLVM IR
/// translations and the NVVM target.
void registerGpuCompilerInterfaces(DialectRegistry &registry);

} // namespace mlir::sezm

#endif // SEZM_EXECUTION_GPUCOMPILER_H
