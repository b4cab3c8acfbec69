//===- BuffersOnDevice.cpp - host buffers in GPU memory -------------------===//

#include "SeZM/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_BUFFERSONDEVICE
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;

namespace {
struct BuffersOnDevicePass
    : sezm::impl::BuffersOnDeviceBase<BuffersOnDevicePass> {
  /// Deallocates, before each return, the allocations of the function's
  /// entry block that no returned value is (or views).
  void freeAtExit(IRRewriter &rewriter) {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &body = func.getBody().front();
    auto returnOp = dyn_cast<func::ReturnOp>(body.getTerminator());
    if (!returnOp)
      return;
    // The buffers behind each returned value, through views.
    llvm::SmallPtrSet<Value, 8> returned;
    for (Value value : returnOp.getOperands()) {
      while (value) {
        returned.insert(value);
        auto view = value.getDefiningOp<ViewLikeOpInterface>();
        value = view ? view.getViewSource() : Value();
      }
    }
    rewriter.setInsertionPoint(returnOp);
    for (auto alloc :
         llvm::make_early_inc_range(body.getOps<memref::AllocOp>()))
      if (!returned.contains(alloc.getResult()) &&
          llvm::none_of(alloc->getUsers(), llvm::IsaPred<memref::DeallocOp>))
        memref::DeallocOp::create(rewriter, alloc.getLoc(), alloc.getResult());
  }

  /// Saves the stack pointer at the start of each host loop's body that
  /// launches kernels (a chunk loop of sezm-chunk-edges) and restores it at
  /// its end: each launch takes its argument array on the stack, which
  /// would otherwise grow by one array per launch and iteration until the
  /// function returns. (A memref.alloca_scope would be inlined away: the
  /// arrays appear only when the launches become LLVM IR.)
  void restoreStackPerIteration(IRRewriter &rewriter) {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->getParentOfType<gpu::LaunchOp>())
        return;
      if (loop.getBody()
              ->walk([](gpu::LaunchOp) { return WalkResult::interrupt(); })
              .wasInterrupted())
        loops.push_back(loop);
    });
    auto pointer = LLVM::LLVMPointerType::get(&getContext());
    for (scf::ForOp loop : loops) {
      rewriter.setInsertionPointToStart(loop.getBody());
      Value saved =
          LLVM::StackSaveOp::create(rewriter, loop.getLoc(), pointer);
      rewriter.setInsertionPoint(loop.getBody()->getTerminator());
      LLVM::StackRestoreOp::create(rewriter, loop.getLoc(), saved);
    }
  }

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    freeAtExit(rewriter);
    restoreStackPerIteration(rewriter);
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
        gpu::DeallocOp::create(rewriter, dealloc.getLoc(),
                               /*asyncToken=*/Type(), ValueRange(),
                               dealloc.getMemref());
        rewriter.eraseOp(dealloc);
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        gpu::MemcpyOp::create(rewriter, copy.getLoc(), /*asyncToken=*/Type(),
                              ValueRange(), copy.getTarget(), copy.getSource());
        rewriter.eraseOp(copy);
      } else if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        // A constant (the seed of a gradient, a folded table) lives in host
        // memory: kernels read a device copy of it, made where it was
        // taken and freed before the function returns.
        MemRefType type = global.getType();
        if (!type.hasStaticShape()) {
          global.emitOpError() << "has a dynamic shape; sezm cannot place it "
                                  "in device memory";
          return signalPassFailure();
        }
        bool returned =
            llvm::any_of(global->getUsers(), llvm::IsaPred<func::ReturnOp>);
        rewriter.setInsertionPointAfter(global);
        auto device = gpu::AllocOp::create(
            rewriter, global.getLoc(), type, /*asyncToken=*/Type(),
            ValueRange(), ValueRange(), ValueRange(), /*hostShared=*/false);
        rewriter.replaceAllUsesWith(global.getResult(), device.getMemref());
        gpu::MemcpyOp::create(rewriter, global.getLoc(), /*asyncToken=*/Type(),
                              ValueRange(), device.getMemref(),
                              global.getResult());
        if (!returned) {
          rewriter.setInsertionPoint(
              getOperation().getBody().front().getTerminator());
          gpu::DeallocOp::create(rewriter, global.getLoc(),
                                 /*asyncToken=*/Type(), ValueRange(),
                                 device.getMemref());
        }
      } else if (auto store = dyn_cast<memref::StoreOp>(op);
                 store && store.getMemRefType().getRank() == 0) {
        // A scalar buffer's fill (the init of a sum) has no loop to map: it
        // runs as a one-thread kernel.
        Location loc = store.getLoc();
        Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
        auto launch =
            gpu::LaunchOp::create(rewriter, loc, one, one, one, one, one, one);
        launch.setFunctionAttr(
            FlatSymbolRefAttr::get(rewriter.getContext(), "scalar_fill"));
        rewriter.setInsertionPointToStart(&launch.getBody().front());
        memref::StoreOp::create(rewriter, loc, store.getValue(),
                                store.getMemRef(), ValueRange());
        gpu::TerminatorOp::create(rewriter, loc);
        rewriter.eraseOp(store);
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
