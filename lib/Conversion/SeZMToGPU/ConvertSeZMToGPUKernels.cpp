//===- ConvertSeZMToGPUKernels.cpp - the microkernel strategy -------------===//

#include "SeZM/Conversion/Passes.h"

#include "Microkernels.h"

#include "KernelBuilder/KernelIO.h"
#include "SeZM/Dialect/SeZM/SeZMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_CONVERTSEZMTOGPUKERNELS
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;
using namespace mlir::sezm::microkernels;

namespace {
/// A microkernel entry for `OpTy`, whose emitter may contract multiplies and
/// adds into FMAs where `contract` says so.
template <typename OpTy, bool (*Applies)(OpTy),
          void (*Emit)(OpTy, KernelIO &, KernelConfigAttr), bool Contract>
Microkernel microkernel(StringLiteral name, int64_t blocksPerSm) {
  return Microkernel{name, blocksPerSm,
                     [](Operation *op) {
                       auto typed = dyn_cast<OpTy>(op);
                       return typed && Applies(typed);
                     },
                     /*tiles=*/nullptr,
                     [](Operation *op, KernelIO &io, KernelConfigAttr config) {
                       io.emitter().contract = Contract;
                       Emit(cast<OpTy>(op), io, config);
                     }};
}

/// A GEMM microkernel for `OpTy`, whose tiles `Tiles` chooses; its
/// multiplies and adds contract into FMAs.
template <typename OpTy, bool (*Applies)(OpTy), ProductTiles (*Tiles)(OpTy),
          void (*Emit)(OpTy, KernelIO &, KernelConfigAttr)>
Microkernel gemmMicrokernel(StringLiteral name, int64_t blocksPerSm) {
  Microkernel kernel =
      microkernel<OpTy, Applies, Emit, /*Contract=*/true>(name, blocksPerSm);
  kernel.tiles = [](Operation *op) { return Tiles(cast<OpTy>(op)); };
  return kernel;
}
} // namespace

/// Blocks per multiprocessor asked of the register allocator. rotate_mix
/// takes 56 registers at 8 blocks (12 fit it in 40 without spilling and
/// measured the same: it is bound by DRAM and L2 now). The fused backward
/// keeps its node sums in registers and takes 246 (241 with a whole
/// Wigner-D) at 2 blocks with nothing spilled; at 3 blocks (168) it spilled
/// and measured slower, 0.886 against 0.830 ms at N = 4096 (kept Wigner-D,
/// sums in workgroup memory); at 4 (128) it spilled more. The GEMMs keep
/// up to 8 x 8 sums per thread: two blocks of 256 threads (128 registers).
ArrayRef<Microkernel> sezm::getMicrokernels() {
  static const Microkernel kernels[] = {
      microkernel<RotateMixOp, rotateMixApplies, emitRotateMix, true>(
          "rotate_mix", 8),
      microkernel<SegmentReduceOp, segmentReduceApplies, emitSegmentReduce,
                  true>("segment_reduce", 0),
      microkernel<SegmentReduceGradOp, segmentReduceGradApplies,
                  emitSegmentReduceGrad, false>("segment_reduce_grad", 0),
      microkernel<RotateMixGradOp, rotateMixGradApplies, emitRotateMixGrad,
                  true>("rotate_mix_grad", 0),
      microkernel<RotateMixGradReduceOp, rotateMixGradReduceApplies,
                  emitRotateMixGradReduce, true>("rotate_mix_grad_reduce", 2),
      microkernel<linalg::ReduceOp, isFullSum, emitFullSum, false>("full_sum",
                                                                   0),
      microkernel<linalg::MatmulOp, isLongMatmul, emitLongMatmul, false>(
          "long_matmul", 0),
      microkernel<EnvelopeAggregateGradOp, envelopeAggregateGradApplies,
                  emitEnvelopeAggregateGrad, true>("envelope_aggregate_grad",
                                                   0),
      microkernel<AttentionAggregateGradOp, attentionAggregateGradApplies,
                  emitAttentionAggregateGrad, true>("attention_aggregate_grad",
                                                    0),
      microkernel<FocusScaleOp, focusScaleApplies, emitFocusScale, true>(
          "focus_scale", 0),
      microkernel<FocusCompeteGradOp, focusCompeteGradApplies,
                  emitFocusCompeteGrad, true>("focus_compete_grad", 0),
      microkernel<FocusScaleGradOp, focusScaleGradApplies, emitFocusScaleGrad,
                  true>("focus_scale_grad", 0),
      microkernel<GridProductOp, gridProductApplies, emitGridProduct, true>(
          "grid_product", 0),
      microkernel<GridProductGradOp, gridProductGradApplies,
                  emitGridProductGrad, true>("grid_product_grad", 0),
      microkernel<RmsNormOp, rmsNormApplies, emitRmsNorm, true>("rms_norm", 0),
      microkernel<RmsNormGradOp, rmsNormGradApplies, emitRmsNormGrad, true>(
          "rms_norm_grad", 0),
      microkernel<EquivariantRmsNormOp, equivariantRmsNormApplies,
                  emitEquivariantRmsNorm, true>("equivariant_rms_norm", 0),
      microkernel<EquivariantRmsNormGradOp, equivariantRmsNormGradApplies,
                  emitEquivariantRmsNormGrad, true>("equivariant_rms_norm_grad",
                                                    0),
      microkernel<GateOp, gateApplies, emitGate, true>("gate",
                                                       kGateWarpBlocksPerSm),
      microkernel<GateOp, residentGateApplies, emitResidentGate, true>(
          "gate_resident", kGateResidentBlocksPerSm),
      microkernel<linalg::MatmulOp, isNarrowMatmul, emitNarrowMatmul, true>(
          "narrow_matmul", 0),
      microkernel<linalg::MatmulOp, isSmallMatmul, emitSmallMatmul, true>(
          "small_matmul", 0),
      microkernel<linalg::GenericOp, isMiddleAxisProduct, emitMiddleAxisProduct,
                  true>("middle_axis_product", 0),
      microkernel<linalg::GenericOp, isLaneSum, emitLaneSum, true>("lane_sum",
                                                                   0),
      gemmMicrokernel<linalg::MatmulOp, isRowsMatmul, rowsMatmulTiles,
                      emitRowsMatmul>("tiled_matmul", 2),
      gemmMicrokernel<linalg::GenericOp, isMatmulEpilogue, matmulEpilogueTiles,
                      emitMatmulEpilogue>("tiled_matmul_epilogue", 2),
      gemmMicrokernel<DegreeLinearOp, degreeLinearApplies, degreeLinearTiles,
                      emitDegreeLinear>("degree_linear", 2),
      gemmMicrokernel<SO2LinearOp, so2LinearApplies, so2LinearTiles,
                      emitSO2Linear>("so2_linear", 2),
      gemmMicrokernel<SO2LinearGradOp, so2LinearGradApplies, so2LinearGradTiles,
                      emitSO2LinearGrad>("so2_linear_grad", 2),
      gemmMicrokernel<GateGradOp, gateGradApplies, gateGradTiles, emitGateGrad>(
          "gate_grad", 2),
  };
  return kernels;
}

const Microkernel *sezm::firstMicrokernelFor(Operation *op) {
  for (const Microkernel &kernel : getMicrokernels())
    if (kernel.applies(op))
      return &kernel;
  return nullptr;
}

const Microkernel *sezm::lookupMicrokernel(StringRef name) {
  for (const Microkernel &kernel : getMicrokernels())
    if (kernel.name == name)
      return &kernel;
  return nullptr;
}

namespace {
/// Lowers each op whose kernel configuration names a microkernel to it.
struct LowerToMicrokernel : RewritePattern {
  LowerToMicrokernel(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto config = op->getAttrOfType<KernelConfigAttr>(kKernelConfigAttr);
    if (!config || config.getStrategy() != Strategy::Microkernel)
      return failure();
    const Microkernel *kernel =
        config.getKernel() ? lookupMicrokernel(config.getKernel()) : nullptr;
    if (!kernel || !kernel->applies(op))
      return op->emitOpError() << "has kernel configuration " << config
                               << ", but no microkernel of that name lowers it";
    if (kernel->tiles) {
      size_t products = kernel->tiles(op).size();
      size_t precisions = config.getPrecision().size(), split = 0;
      for (unsigned product = 0; product < products; ++product)
        if (config.getProductPrecision(product) == GemmPrecision::TF32x3)
          ++split;
      if (precisions > 1 && precisions != products)
        return op->emitOpError()
               << "has kernel configuration " << config << ", but microkernel '"
               << kernel->name << "' launches " << products
               << " product shape(s): give one precision for all or one for "
                  "each";
      if (config.getWorkgroupTile().size() != 3 * products ||
          config.getThreadTile().size() != 2 * (products - split) ||
          config.getWarpTile().size() != 2 * split)
        return op->emitOpError()
               << "has kernel configuration " << config << ", but microkernel '"
               << kernel->name << "' launches " << products
               << " product shape(s), " << split
               << " of them tf32x3, and needs workgroup_tile = [rows, "
                  "columns, depth step] for each, thread_tile = [rows, "
                  "columns] for each IEEE one and warp_tile = [rows, "
                  "columns] for each tf32x3 one, one after another";
    }
    if (config.usesTensorCores() && !kernel->tiles)
      return op->emitOpError()
             << "has kernel configuration " << config << ", but microkernel '"
             << kernel->name << "' is not a GEMM: only IEEE precision";
    return lowerWithKernel(op, rewriter, LoopTarget::Gpu,
                           [&](KernelIO &io) { kernel->emit(op, io, config); });
  }
};

struct ConvertSeZMToGPUKernelsPass
    : sezm::impl::ConvertSeZMToGPUKernelsBase<ConvertSeZMToGPUKernelsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerToMicrokernel>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    // What fed only an operand that a kernel does not read (a matmul's
    // constant init, a product an epilogue computed) goes, rather than
    // becoming a kernel of its own, in loop bodies too (a chunk of edges).
    // Users come after their operands: erasing from the end frees chains,
    // and inner blocks go first.
    getOperation().walk([](func::FuncOp function) {
      SmallVector<Block *> blocks;
      function.getBody().walk([&](Block *block) { blocks.push_back(block); });
      for (Block *block : blocks)
        for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*block)))
          if (isOpTriviallyDead(&op))
            op.erase();
    });
    // A fused op's user computed it: nothing may read it any more.
    WalkResult unfused = getOperation().walk([](Operation *op) {
      if (!isFusedIntoUser(op))
        return WalkResult::advance();
      op->emitOpError() << "has kernel configuration "
                        << op->getAttr(kKernelConfigAttr)
                        << ", but no kernel of its users computes it";
      return WalkResult::interrupt();
    });
    if (unfused.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
