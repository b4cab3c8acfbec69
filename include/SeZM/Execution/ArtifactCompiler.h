//===- ArtifactCompiler.h - compile a module into an artifact ---*- C++ -*-===//
//
// The ahead-of-time path behind sezm-compile and `sezm-run --device gpu`:
// for the GPU, the GPU pipeline (PTX kernels, host code calling the mgpu*
// ABI); for the CPU, the CPU pipeline (loop kernels whose outer loops run on
// OpenMP threads). Each becomes a shared library with a packed entry point
// `_sezm_packed_<name>(void **)` per public function and the text manifest
// of their signatures (`sezm_manifest`), which libsezm_runtime loads.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_EXECUTION_ARTIFACTCOMPILER_H
#define SEZM_EXECUTION_ARTIFACTCOMPILER_H

#include "SeZM/Dialect/SeZM/SeZMAttrs.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::sezm {

struct CompileOptions {
  /// The devices the artifact carries code for.
  enum class Target { Cpu, Gpu, All };
  Target target = Target::All;
  /// The NVIDIA GPU: sm_80, sm_86, sm_89 or sm_90.
  std::string chip = "sm_90";
  enum class Emit { Artifact, Library, Object, LLVMIR, PTX };
  /// What to write: the versioned artifact (SeZM/Support/Artifact.h), or for
  /// one target its shared library, object file or LLVM IR, or (into a
  /// folder) each GPU kernel module's PTX.
  Emit emit = Emit::Artifact;
  /// With Emit::Artifact: a safetensors file of weights to carry along (each
  /// tensor must name an input of an entry, with its type and shape).
  std::string weightsPath;
  /// With Emit::Artifact and no weightsPath: safetensors bytes of weights
  /// to carry (those imported from a checkpoint), checked the same way.
  std::string weights;
  /// Whether the graph fusions run (false: to compare against them).
  bool fuse = true;
  /// Whether each block's mixing stack is recomputed when its backward
  /// starts (sezm-rematerialize stacks): less memory per edge, more work.
  bool recomputeStacks = false;
  /// Edges per chunk of each chain of per-edge ops (sezm-chunk-edges); 0:
  /// whole.
  int64_t edgeChunk = 0;
  /// How the GPU code's GEMM-tiled kernels multiply fp32: IEEE (CUDA-core
  /// fused multiply-adds) or TF32x3 (split precision on the tensor cores,
  /// sm_80 and later), recorded in the manifest.
  GemmPrecision gemmPrecision = GemmPrecision::IEEE;
  /// Whether to report on stderr where compiling spends its time: each
  /// pass (MLIR's timing report) and the phases after the passes (host
  /// code generation and linking, ptxas).
  bool timing = false;
  /// Whether the IR is verified after every pass of the lowering (for
  /// debugging a pass); otherwise once, after the lowering: verifying the
  /// default DPA4's IR after each of its ~90 passes took 5.7 of its 15.7 s.
  bool verifyEach = false;
  /// Where each fusion the passes refused is reported, one line per op with
  /// the reason (`sezm-fuse-backward-reduce`'s "not fused" remarks); null:
  /// nowhere. A refused fusion still gives the right numbers, only slower
  /// and with more memory, so nothing else would show it.
  llvm::raw_ostream *refusedFusions = nullptr;
};

/// The chips sezm compiles for, and the PTX ISA each gets.
llvm::Error checkChip(llvm::StringRef chip);

/// Whether the GPU toolchain is here: CUDA's libdevice, which the kernels'
/// math functions link against. Without it only CPU code can be compiled;
/// `why` says what is missing.
bool gpuToolchainAvailable(std::string &why);

/// Compiles every public function of `module` (which it lowers in place, or
/// a copy of it per target).
llvm::Error compileArtifact(ModuleOp module, const CompileOptions &options,
                            llvm::StringRef outputPath);

/// Registers what compileArtifact needs in a context's registry: the LLVM IR
/// translations (OpenMP's among them) and the NVVM target.
void registerArtifactCompilerInterfaces(DialectRegistry &registry);

} // namespace mlir::sezm

#endif // SEZM_EXECUTION_ARTIFACTCOMPILER_H
