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

namespace mlir::sezm {
#define GEN_PASS_DEF_SELECTLOWERINGSTRATEGY
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;

namespace {
/// The configuration of `op`: the first microkernel that lowers it, else
/// its loop kernel.
KernelConfigAttr selectConfig(Operation *op) {
  MLIRContext *context = op->getContext();
  for (const Microkernel &kernel : getMicrokernels()) {
    if (!kernel.applies(op))
      continue;
    SmallVector<int64_t> workgroupTile, threadTile;
    if (kernel.tiles) {
      microkernels::GemmTiles tiles = kernel.tiles(op);
      workgroupTile = {tiles.blockRows, tiles.blockColumns, tiles.depthStep};
      threadTile = {tiles.threadRows, tiles.threadColumns};
    }
    return KernelConfigAttr::get(context, Strategy::Microkernel,
                                 StringAttr::get(context, kernel.name),
                                 kernel.blocksPerSm, workgroupTile, threadTile);
  }
  return KernelConfigAttr::get(context, Strategy::Loops, StringAttr(),
                               /*blocksPerSm=*/0, /*workgroupTile=*/{},
                               /*threadTile=*/{});
}

struct SelectLoweringStrategyPass
    : sezm::impl::SelectLoweringStrategyBase<SelectLoweringStrategyPass> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp function) {
      function.getBody().walk([](Operation *op) {
        if (!isa<SeZMDialect>(op->getDialect()) && !isa<linalg::LinalgOp>(op))
          return;
        if (!op->hasAttr(kKernelConfigAttr))
          op->setAttr(kKernelConfigAttr, selectConfig(op));
      });
    });
  }
};
} // namespace
