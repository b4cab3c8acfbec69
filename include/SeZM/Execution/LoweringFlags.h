//===- LoweringFlags.h - the lowering flags the tools share -----*- C++ -*-===//
//
// sezm-compile and sezm-run compile a module the same way: the flags that
// say how (--chip, --no-fusion, --recompute-stacks, --edge-chunk,
// --gemm-precision) are declared once, here.
//
//===----------------------------------------------------------------------===//

#ifndef SEZM_EXECUTION_LOWERINGFLAGS_H
#define SEZM_EXECUTION_LOWERINGFLAGS_H

#include "SeZM/Execution/ArtifactCompiler.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"

namespace mlir::sezm {

/// The lowering flags, registered in `category` when constructed: make one
/// (a static of the tool) before parsing the command line.
class LoweringFlags {
public:
  explicit LoweringFlags(llvm::cl::OptionCategory &category);

  /// The compile options the flags give for `target`; an error where
  /// --gemm-precision names no precision.
  llvm::Expected<CompileOptions> options(CompileOptions::Target target) const;

  llvm::cl::opt<std::string> chip;
  llvm::cl::opt<bool> noFusion;
  llvm::cl::opt<bool> recomputeStacks;
  llvm::cl::opt<int64_t> edgeChunk;
  llvm::cl::opt<std::string> gemmPrecision;
};

} // namespace mlir::sezm

#endif // SEZM_EXECUTION_LOWERINGFLAGS_H
