//===- SelectLoweringStrategy.cpp - how each op becomes a GPU kernel ------===//
//
// The strategy room: one place decides, for every sezm op and linalg op,
// how the GPU lowering treats it, and records the decision in IR as a
// #sezm.kernel_config; the lowering reads only that.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Conversion/Passes.h"

#include "Microkernels.h"

#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_SELECTLOWERINGSTRATEGY
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;

namespace {
/// Whether every result of `op` is fp32 (or a tensor of it): what the
/// split-precision products take.
bool producesF32(Operation *op) {
  return llvm::all_of(op->getResultTypes(), [](Type type) {
    return getElementTypeOrSelf(type).isF32();
  });
}

/// The bytes of the widest float among `op`'s results' elements.
int64_t widestResultBytes(Operation *op) {
  int64_t bytes = 4;
  for (Type type : op->getResultTypes())
    if (auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type)))
      bytes = std::max<int64_t>(bytes, element.getWidth() / 8);
  return bytes;
}

/// The name of `op`'s loop kernel: the op's name without its dialect, and
/// for a linalg.generic (elementwise arith made linalg, fused chains) the
/// name of the op that computes what its payload yields, so that a profile
/// says `mulf` rather than `generic` (`reduce` where it sums over loops).
std::string loopKernelName(Operation *op) {
  if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    // A sum with its terms' arithmetic fused in (sezm-fuse-elementwise).
    if (generic.getNumReductionLoops() > 0)
      return "reduce";
    Operation *yield = generic.getBody()->getTerminator();
    if (yield->getNumOperands() > 0)
      if (Operation *producer = yield->getOperand(0).getDefiningOp();
          producer && producer->getBlock() == generic.getBody())
        return producer->getName().stripDialect().str();
  }
  return op->getName().stripDialect().str();
}

/// The configuration of `op`: the first microkernel that lowers it, else
/// its loop kernel. A GEMM over fp32 takes the tensor-core tiles for each
/// product for which split precision pays where `precision` asks for it.
KernelConfigAttr selectConfig(Operation *op, GemmPrecision precision) {
  MLIRContext *context = op->getContext();
  // A product whose one user finishes it in the GEMM's stores.
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op); matmul && !op->use_empty())
    if (auto user = dyn_cast<linalg::GenericOp>(*op->user_begin());
        user && microkernels::epilogueProducer(user) == matmul)
      return KernelConfigAttr::get(
          context, Strategy::Fused,
          StringAttr::get(context, "tiled_matmul_epilogue"),
          /*blocksPerSm=*/0, /*workgroupTile=*/{}, /*threadTile=*/{},
          /*precision=*/{}, /*warpTile=*/{});
  // An operand that its one user's kernel computes as it loads it.
  if (isa<linalg::GenericOp>(op) && op->hasOneUse())
    if (StringRef kernel =
            microkernels::kernelComputingOperand(*op->use_begin());
        !kernel.empty())
      return KernelConfigAttr::get(
          context, Strategy::Fused, StringAttr::get(context, kernel),
          /*blocksPerSm=*/0, /*workgroupTile=*/{}, /*threadTile=*/{},
          /*precision=*/{}, /*warpTile=*/{});
  if (const Microkernel *microkernel = firstMicrokernelFor(op)) {
    const Microkernel &kernel = *microkernel;
    SmallVector<int64_t> workgroupTile, threadTile, warpTile;
    SmallVector<GemmPrecision> precisions;
    int64_t blocksPerSm = kernel.blocksPerSm;
    // A GEMM records each product shape's tiles, one after another, and
    // one launch bound for them all: the fewest blocks a product asks, so
    // that each gets the registers its tiles were chosen for.
    if (kernel.tiles) {
      // Split precision for each product where it pays (tensorCoresPay):
      // the tensor cores lose where memory or too few rows bound one.
      const bool splitAsked =
          precision == GemmPrecision::TF32x3 && producesF32(op);
      std::optional<int64_t> fewestBlocks;
      const int64_t elementBytes = widestResultBytes(op);
      for (microkernels::GemmTiles tiles : kernel.tiles(op)) {
        tiles = microkernels::fitWorkgroupMemory(tiles, elementBytes);
        const bool split = splitAsked && tiles.tensorCoresPay;
        int64_t asked;
        if (split) {
          microkernels::MmaTiles mma = microkernels::chooseMmaTiles(tiles);
          llvm::append_values(workgroupTile, mma.blockRows, mma.blockColumns,
                              mma.depthStep);
          llvm::append_values(warpTile, mma.warpRows, mma.warpColumns);
          asked = microkernels::kMmaBlocksPerSm;
        } else {
          llvm::append_values(workgroupTile, tiles.blockRows,
                              tiles.blockColumns, tiles.depthStep);
          llvm::append_values(threadTile, tiles.threadRows,
                              tiles.threadColumns);
          asked = tiles.blocksPerSm ? tiles.blocksPerSm : kernel.blocksPerSm;
        }
        precisions.push_back(split ? GemmPrecision::TF32x3
                                   : GemmPrecision::IEEE);
        fewestBlocks = std::min(fewestBlocks.value_or(asked), asked);
      }
      if (fewestBlocks)
        blocksPerSm = *fewestBlocks;
      // One precision for all the products is written once; IEEE not at
      // all.
      if (!precisions.empty() && llvm::all_equal(precisions))
        precisions.resize(precisions.front() == GemmPrecision::IEEE ? 0 : 1);
    }
    return KernelConfigAttr::get(
        context, Strategy::Microkernel, StringAttr::get(context, kernel.name),
        blocksPerSm, workgroupTile, threadTile, precisions, warpTile);
  }
  return KernelConfigAttr::get(context, Strategy::Loops,
                               StringAttr::get(context, loopKernelName(op)),
                               /*blocksPerSm=*/0, /*workgroupTile=*/{},
                               /*threadTile=*/{}, /*precision=*/{},
                               /*warpTile=*/{});
}

struct SelectLoweringStrategyPass
    : sezm::impl::SelectLoweringStrategyBase<SelectLoweringStrategyPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<GemmPrecision> precision =
        symbolizeGemmPrecision(gemmPrecision);
    if (!precision) {
      getOperation().emitError()
          << "sezm-select-lowering-strategy: gemm-precision=" << gemmPrecision
          << ": expected ieee or tf32x3";
      return signalPassFailure();
    }
    getOperation().walk([&](func::FuncOp function) {
      function.getBody().walk([&](Operation *op) {
        if (!isa<SeZMDialect>(op->getDialect()) && !isa<linalg::LinalgOp>(op))
          return;
        if (!op->hasAttr(kKernelConfigAttr))
          op->setAttr(kKernelConfigAttr, selectConfig(op, *precision));
      });
    });
  }
};
} // namespace
