//===- Passes.h - sezm conversion passes and pipelines ----------*- C++ -*-===//
#ifndef SEZM_CONVERSION_PASSES_H
#define SEZM_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::sezm {

#define GEN_PASS_DECL
#include "SeZM/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "SeZM/Conversion/Passes.h.inc"

/// Lowers a module of sezm, linalg, arith, math and tensor ops on tensors to
/// the LLVM dialect for the CPU: sezm kernels as loops, one-shot
/// bufferization, the memory plan (reported at `memoryAt`, e.g. "N=4096"),
/// buffer deallocation, loops, LLVM.
void buildCpuPipeline(OpPassManager &pm, ArrayRef<std::string> memoryAt = {});

/// Options of the GPU pipeline.
struct GpuPipelineOptions : public PassPipelineOptions<GpuPipelineOptions> {
  PassOptions::Option<std::string> chip{*this, "chip",
                                        llvm::cl::desc("NVIDIA GPU (sm_XX)"),
                                        llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("PTX ISA version (+ptxXX)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<int64_t> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("Threads per block of the mapped loops"),
      llvm::cl::init(128)};
  PassOptions::Option<std::string> gemmPrecision{
      *this, "gemm-precision",
      llvm::cl::desc("How the GEMM-tiled kernels multiply fp32: ieee or "
                     "tf32x3 (split precision on the tensor cores)"),
      llvm::cl::init("ieee")};
  PassOptions::ListOption<std::string> memoryAt{
      *this, "plan-at",
      llvm::cl::desc("Evaluate the memory plan's peaks at these extents "
                     "(N=4096,E=647642)")};
};

/// Lowers a module on tensors to the LLVM dialect with the kernels as NVVM
/// and serialized to PTX: the sezm kernels' parallel loops become GPU
/// launches, buffers live in GPU memory, host code calls the mgpu* runtime.
void buildGpuPipeline(OpPassManager &pm, const GpuPipelineOptions &options);

/// Options of the whole pipeline.
struct SeZMPipelineOptions : public PassPipelineOptions<SeZMPipelineOptions> {
  PassOptions::Option<std::string> target{
      *this, "target", llvm::cl::desc("Where the program runs: cpu or gpu"),
      llvm::cl::init("cpu")};
  PassOptions::Option<std::string> forcesOf{
      *this, "forces-of",
      llvm::cl::desc("Energy function to add @<name>_forces to (runs "
                     "sezm-autodiff first); none by default")};
  PassOptions::Option<std::string> schedule{
      *this, "schedule",
      llvm::cl::desc("auto (chosen per function), inference or training"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("NVIDIA GPU (sm_XX) for target=gpu"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> features{
      *this, "features", llvm::cl::desc("PTX ISA version (+ptxXX)"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<bool> fuse{
      *this, "fuse",
      llvm::cl::desc("Run the graph fusions (rotate+mix, the backward with "
                     "the source reduction, residual adds); false compares "
                     "against them"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> gemmPrecision{
      *this, "gemm-precision",
      llvm::cl::desc("How the GEMM-tiled kernels multiply fp32: ieee or "
                     "tf32x3 (split precision on the tensor cores)"),
      llvm::cl::init("ieee")};
  PassOptions::ListOption<std::string> memoryAt{
      *this, "plan-at",
      llvm::cl::desc("Evaluate the memory plan's peaks at these extents "
                     "(N=4096,E=647642)")};
  PassOptions::Option<bool> recomputeStacks{
      *this, "recompute-stacks",
      llvm::cl::desc("Recompute each block's mixing stack when its backward "
                     "starts instead of keeping it through the later blocks "
                     "(sezm-rematerialize stacks): less memory per edge, "
                     "more work"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> edgeChunk{
      *this, "edge-chunk",
      llvm::cl::desc("Process each chain of per-edge (row-wise) ops in chunks "
                     "of this many edges (sezm-chunk-edges); 0 (the "
                     "default): whole"),
      llvm::cl::init(0)};
};

/// The whole compiler: the schedule, the graph rewrites it allows (rotate+mix
/// fusion, the backward fused with the source reduction, residual adds folded
/// into their producers), then the lowering for the target.
void buildSeZMPipeline(OpPassManager &pm, const SeZMPipelineOptions &options);

/// Attaches the CPU loop kernel (LoopKernelOpInterface) of every sezm op;
/// convert-sezm-to-loops does so itself.
void registerLoopKernels(DialectRegistry &registry);

/// Registers the named pipelines (`sezm-pipeline`, `sezm-cpu-pipeline`,
/// `sezm-gpu-pipeline`).
void registerPipelines();

} // namespace mlir::sezm

#endif // SEZM_CONVERSION_PASSES_H
