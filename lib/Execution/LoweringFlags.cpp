//===- LoweringFlags.cpp - the lowering flags the tools share -------------===//

#include "SeZM/Execution/LoweringFlags.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::sezm;
namespace cl = llvm::cl;

LoweringFlags::LoweringFlags(cl::OptionCategory &category)
    : chip("chip",
           cl::desc("NVIDIA GPU to compile for (sm_80, sm_86, sm_89, sm_90)"),
           cl::value_desc("sm_XX"), cl::init("sm_90"), cl::cat(category)),
      noFusion("no-fusion",
               cl::desc("Compile without the graph fusions (rotate+mix, the "
                        "backward with the source reduction, residual adds "
                        "folded into their producers), to measure or check "
                        "against them"),
               cl::cat(category)),
      recomputeStacks(
          "recompute-stacks",
          cl::desc("Recompute each block's mixing stack (so2_linear, gates, "
                   "focus scaling) when its backward starts instead of "
                   "keeping it through the later blocks: less device memory "
                   "per edge (SeZM-min E+F 19,920 -> 13,016 bytes), one more "
                   "stack forward per block but the last; the same numbers"),
          cl::cat(category)),
      edgeChunk("edge-chunk",
                cl::desc("Process each chain of per-edge ops (rotate_mix, the "
                         "mixing stack, the sums into atoms and their "
                         "gradients) in chunks of this many edges, "
                         "recomputing the stack per chunk in the backward: "
                         "less memory per edge (SeZM-min E+F 19,920 -> 1,756 "
                         "bytes), more work; the same numbers to fp32 "
                         "rounding (an atom whose edges span two chunks "
                         "sums two parts); 0 (the default): all edges at "
                         "once"),
                cl::init(0), cl::cat(category)),
      gemmPrecision(
          "gemm-precision",
          cl::desc(
              "How the GPU's GEMM-shaped kernels (SO(2) linears, gates' "
              "backward, matmuls, degree linears) multiply fp32: ieee (the "
              "default, IEEE fp32 on the CUDA cores) or tf32x3 (opt-in "
              "split precision on the tensor cores where it is faster, "
              "the wide products over edges, the rest staying IEEE: each "
              "operand split into two TF32 parts, three products; "
              "recorded in the manifest)"),
          cl::value_desc("ieee|tf32x3"), cl::init("ieee"), cl::cat(category)) {}

llvm::Expected<CompileOptions>
LoweringFlags::options(CompileOptions::Target target) const {
  CompileOptions options;
  options.target = target;
  options.chip = chip;
  options.fuse = !noFusion;
  options.recomputeStacks = recomputeStacks;
  options.edgeChunk = edgeChunk;
  // The tools say when a fusion they were not asked to skip did not happen.
  if (!noFusion)
    options.refusedFusions = &llvm::errs();
  std::optional<GemmPrecision> precision =
      symbolizeGemmPrecision(gemmPrecision);
  if (!precision)
    return llvm::createStringError("--gemm-precision=" + gemmPrecision +
                                   ": expected ieee or tf32x3");
  options.gemmPrecision = *precision;
  return options;
}
