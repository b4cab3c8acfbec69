//===- BuffersOnDevice.cpp - host buffers in GPU memory -------------------===//

#include "SeZM/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_BUFFERSONDEVICE
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;

namespace {
struct BuffersOnDevicePass
    : sezm::impl::BuffersOnDeviceBase<BuffersOnDevicePass> {
  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> hostOps;
    getOperation().walk([&](Operation *op) {
      if (!op->getParentOfType<gpu::LaunchOp>() &&
          !op->getParentOfType<gpu::GPUModuleOp>())
        hostOps.push_back(op);
    });
    for (Operation *op : hostOps) {
      rewriter.setInsertionPoint(op);
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        auto device = gpu::AllocOp::create(
            rewriter, alloc.getLoc(), alloc.getType(), /*asyncToken=*/Type(),
            /*asyncDependencies=*/ValueRange(), alloc.getDynamicSizes(),
            alloc.getSymbolOperands(), /*hostShared=*/false);
        rewriter.replaceOp(alloc, device.getMemref());
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        gpu::DeallocOp::create(rewriter, dealloc.getLoc(), /*asyncToken=*/Type(),
                               ValueRange(), dealloc.getMemref());
        rewriter.eraseOp(dealloc);
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        gpu::MemcpyOp::create(rewriter, copy.getLoc(), /*asyncToken=*/Type(),
                              ValueRange(), copy.getTarget(), copy.getSource());
        rewriter.eraseOp(copy);
      } else if (isa<memref::LoadOp, memref::StoreOp>(op)) {
        op->emitOpError()
            << "reads or writes a device buffer from host code; the loop "
               "around it should have been mapped to a kernel";
        return signalPassFailure();
      }
    }
  }
};
} // namespace
