//===- Pipelines.cpp - the named lowering pipelines -----------------------===//

#include "SeZM/Conversion/Passes.h"
#include "SeZM/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Pipelines/Passes.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::sezm;

/// Canonicalization without region simplification: the functions' regions
/// are loop and launch bodies of one block, which the simplification (block
/// merging, dead block arguments) leaves as they are after walking them,
/// the longest part of canonicalizing a model's thousands of kernels.
static std::unique_ptr<Pass> createLoopCanonicalizer() {
  GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
  return createCanonicalizerPass(config);
}

/// Kernels as loop nests, bufferized, with buffers freed after last use:
/// the part the CPU and GPU pipelines share. The GPU first takes the ops it
/// has hand-scheduled kernels for.
static void buildKernelsOnBuffers(OpPassManager &pm, bool forGpu,
                                  ArrayRef<std::string> memoryAt,
                                  StringRef gemmPrecision = "ieee") {
  using namespace sezm;
  // Elementwise arith on tensors (residual adds, scaling) becomes linalg so
  // that it bufferizes.
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  pm.addNestedPass<func::FuncOp>(createFuseElementwise());
  pm.addPass(createCanonicalizerPass());
  if (forGpu) {
    SelectLoweringStrategyOptions strategy;
    strategy.gemmPrecision = gemmPrecision.str();
    pm.addPass(createSelectLoweringStrategy(strategy));
    pm.addPass(createConvertSeZMToGPUKernels());
  }
  ConvertSeZMToLoopsOptions loops;
  loops.target = forGpu ? "gpu" : "cpu";
  pm.addPass(createConvertSeZMToLoops(loops));
  // No canonicalization until bufferization has run: it would fold a
  // kernel's to_buffer of another kernel's to_tensor result into the raw
  // buffer, whose reads One-Shot Bufferize then no longer sees, and an op
  // between the two kernels could be done in place over values still to be
  // read (an envelope overwritten by its square, in SeZM-min's degree norm).
  pm.addNestedPass<func::FuncOp>(createInputsReadOnly());
  pm.addNestedPass<func::FuncOp>(createDropPortNames());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createOrderConstantGlobals());
  // Per function, so that the functions are canonicalized side by side.
  pm.addNestedPass<func::FuncOp>(createLoopCanonicalizer());
  // On the GPU the plan frees each buffer after its last use (the
  // ownership-based deallocation does not see into gpu.launch); on the CPU
  // that deallocation frees them.
  PlanMemoryOptions plan;
  plan.freeBuffers = forGpu;
  plan.at = llvm::to_vector(memoryAt);
  pm.addNestedPass<func::FuncOp>(createPlanMemory(plan));
  if (!forGpu) {
    bufferization::BufferDeallocationPipelineOptions deallocation;
    bufferization::buildBufferDeallocationPipeline(pm, deallocation);
    // A result that is an argument's buffer (an op done in place on it)
    // leaves the function as a copy: bufferization.clone, lowered here.
    pm.addPass(createConvertBufferizationToMemRefPass());
  }
}

void sezm::buildCpuPipeline(OpPassManager &pm, ArrayRef<std::string> memoryAt) {
  buildKernelsOnBuffers(pm, /*forGpu=*/false, memoryAt);
  // Each nest's outermost parallel loop is shared among threads (OpenMP's
  // static schedule; no reduction crosses threads, so any thread count gives
  // the same bits); the loops inside it run in order.
  pm.addNestedPass<func::FuncOp>(sezm::createCpuMatmulOrder());
  pm.addNestedPass<func::FuncOp>(sezm::createLinalgToParallelLoops());
  pm.addNestedPass<func::FuncOp>(sezm::createSequentialInnerLoops());
  pm.addPass(sezm::createOutlineCpuLoops());
  pm.addPass(createConvertSCFToOpenMPPass());
  // Inlines the alloca scopes around loop bodies that allocate nothing on
  // the stack, which the lowering of their loops to blocks needs.
  pm.addPass(createCanonicalizerPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // Buffers come from sezm's allocation functions (SeZM/Support/HostMemory.h),
  // which keep large freed ones for the next call.
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = true;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void sezm::buildGpuPipeline(OpPassManager &pm,
                            const GpuPipelineOptions &options) {
  buildKernelsOnBuffers(pm, /*forGpu=*/true, options.memoryAt,
                        options.gemmPrecision);
  // Every parallel loop (the kernels' edge and node loops, linalg's loops)
  // becomes a launch of one thread per iteration.
  pm.addNestedPass<func::FuncOp>(sezm::createReductionsInnermost());
  pm.addNestedPass<func::FuncOp>(sezm::createLinalgToParallelLoops());
  pm.addNestedPass<func::FuncOp>(sezm::createFlattenParallelLoops());
  sezm::ParallelLoopsToLaunchesOptions launches;
  launches.threadsPerBlock = options.threadsPerBlock;
  pm.addNestedPass<func::FuncOp>(sezm::createParallelLoopsToLaunches(launches));
  pm.addNestedPass<func::FuncOp>(sezm::createBuffersOnDevice());
  pm.addNestedPass<func::FuncOp>(createLoopCanonicalizer());
  pm.addNestedPass<func::FuncOp>(createLowerAffinePass());
  // Constants (row offsets, shuffle distances) go into the kernels instead
  // of being passed as arguments, so that they fold into addresses and
  // instructions.
  pm.addNestedPass<func::FuncOp>(sezm::createSinkIntoLaunches());
  pm.addPass(sezm::createOutlineKernels());
  pm.addNestedPass<func::FuncOp>(createGpuAsyncRegionPass());

  // Upstream's gpu-lower-to-nvvm-pipeline, with its passes that rewrite op
  // by op run on each function and kernel module side by side (nestAny:
  // each op in the module), where upstream runs them on the whole module,
  // and the kernel modules serialized side by side
  // (sezm-serialize-kernel-modules) to PTX.
  OpPassManager &beforeLLVMFuncs = pm.nestAny();
  beforeLLVMFuncs.addPass(createConvertNVGPUToNVVMPass());
  beforeLLVMFuncs.addPass(createConvertVectorToSCFPass());
  beforeLLVMFuncs.addPass(createSCFToControlFlowPass());
  beforeLLVMFuncs.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  OpPassManager &afterLLVMFuncs = pm.nestAny();
  afterLLVMFuncs.addPass(memref::createExpandStridedMetadataPass());
  afterLLVMFuncs.addPass(createLowerAffinePass());
  afterLLVMFuncs.addPass(createArithToLLVMConversionPass());
  ConvertIndexToLLVMPassOptions index;
  index.indexBitwidth = 64;
  afterLLVMFuncs.addPass(createConvertIndexToLLVMPass(index));
  afterLLVMFuncs.addPass(createCanonicalizerPass());
  afterLLVMFuncs.addPass(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addNestedPass<gpu::GPUModuleOp>(createCanonicalizerPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createCSEPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createReconcileUnrealizedCastsPass());
  pm.addPass(createGpuToLLVMConversionPass());
  SerializeKernelModulesOptions serialize;
  serialize.format = "isa";
  pm.addPass(sezm::createSerializeKernelModules(serialize));
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void sezm::buildSeZMPipeline(OpPassManager &pm,
                             const SeZMPipelineOptions &options) {
  // Before the derivatives, which then take the Wigner-D's form.
  pm.addNestedPass<func::FuncOp>(createKeepWignerEntries());
  if (!options.forcesOf.empty()) {
    AutodiffOptions autodiff;
    autodiff.energy = options.forcesOf;
    pm.addPass(createAutodiff(autodiff));
  }
  SelectScheduleOptions schedule;
  if (options.schedule != "auto")
    schedule.forced = options.schedule;
  pm.addNestedPass<func::FuncOp>(createSelectSchedule(schedule));
  // Drops weight gradients nothing uses, which the fusion needs gone.
  pm.addPass(createCanonicalizerPass());
  if (options.fuse) {
    pm.addNestedPass<func::FuncOp>(createFuseRotateMix());
    pm.addNestedPass<func::FuncOp>(createFuseBackwardReduce());
  }
  RematerializeOptions rematerialize;
  rematerialize.stacks = options.recomputeStacks;
  pm.addNestedPass<func::FuncOp>(createRematerialize(rematerialize));
  // After the rematerialization, whose recomputed forward has adds too, and
  // which gives the aggregation's backward its own focus_scale.
  if (options.fuse) {
    pm.addNestedPass<func::FuncOp>(createFuseAccumulate());
    pm.addNestedPass<func::FuncOp>(createFuseFocusScale());
  }
  // A negative count reaches the pass, which refuses it.
  if (options.edgeChunk != 0) {
    ChunkEdgesOptions chunk;
    chunk.rows = options.edgeChunk;
    pm.addNestedPass<func::FuncOp>(createChunkEdges(chunk));
  }
  if (options.target == "gpu") {
    GpuPipelineOptions gpu;
    gpu.chip = options.chip;
    gpu.features = options.features;
    gpu.memoryAt = options.memoryAt;
    gpu.gemmPrecision = options.gemmPrecision;
    buildGpuPipeline(pm, gpu);
  } else {
    buildCpuPipeline(pm, options.memoryAt);
  }
}

void sezm::registerPipelines() {
  PassPipelineRegistration<SeZMPipelineOptions>(
      "sezm-pipeline",
      "The whole compiler: schedule, fusion, then the lowering for the target "
      "(target=cpu|gpu, schedule=auto|inference|training, chip=sm_XX, "
      "forces-of=<energy function>, plan-at=N=...,E=..., "
      "gemm-precision=ieee|tf32x3)",
      buildSeZMPipeline);
  PassPipelineRegistration<>(
      "sezm-cpu-pipeline",
      "Lower sezm programs on tensors to the LLVM dialect for the CPU",
      [](OpPassManager &pm) { buildCpuPipeline(pm); });
  PassPipelineRegistration<GpuPipelineOptions>(
      "sezm-gpu-pipeline",
      "Lower sezm programs on tensors to host LLVM code and PTX kernels",
      buildGpuPipeline);
}
