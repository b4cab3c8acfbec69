//===- ParallelLoopsToLaunches.cpp - each loop kernel a named launch ------===//
//
// A loop kernel (an op's loops, a linalg op's loops) reaches the GPU as one
// parallel loop; here it becomes a launch of one thread per iteration, named
// by the kernel configuration the loop carries. Upstream's tiling, mapping
// and conversion of parallel loops compute the same thread indices, but
// each makes new loops and keeps only their locations, so a name could
// reach the launch only through the location.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Conversion/Passes.h"

#include "SeZM/Dialect/SeZM/SeZMAttrs.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_PARALLELLOOPSTOLAUNCHES
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;

namespace {
struct ParallelLoopsToLaunchesPass
    : sezm::impl::ParallelLoopsToLaunchesBase<ParallelLoopsToLaunchesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (threadsPerBlock < 1) {
      getOperation().emitError()
          << "sezm-parallel-loops-to-launches: threads-per-block must be at "
             "least 1, got "
          << static_cast<int64_t>(threadsPerBlock);
      return signalPassFailure();
    }
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::LaunchOp>(op))
        return WalkResult::skip();
      if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        loops.push_back(loop);
        return WalkResult::skip();
      }
      return WalkResult::advance();
    });
    for (scf::ParallelOp loop : loops)
      if (failed(launch(loop)))
        return signalPassFailure();
  }

  LogicalResult launch(scf::ParallelOp loop) {
    if (loop.getNumLoops() != 1 || loop.getNumReductions() != 0)
      return loop.emitOpError()
             << "sezm-parallel-loops-to-launches: a loop kernel is one "
                "dimension without reductions (sezm-flatten-parallel-loops), "
                "this one has "
             << loop.getNumLoops() << " and " << loop.getNumReductions();
    if (loop.getBody()
            ->walk([](scf::ParallelOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      return loop.emitOpError()
             << "sezm-parallel-loops-to-launches: a parallel loop inside a "
                "loop kernel, whose threads are the outer loop's iterations";

    MLIRContext *context = &getContext();
    OpBuilder b(loop);
    Location loc = loop.getLoc();
    Value lb = loop.getLowerBound()[0], ub = loop.getUpperBound()[0];
    Value step = loop.getStep()[0];
    Value threads = arith::ConstantIndexOp::create(
        b, loc, static_cast<int64_t>(threadsPerBlock));
    // A block covers threads-per-block iterations: (ub - lb) ceildiv that.
    Value blockStep = arith::MulIOp::create(b, loc, step, threads);
    AffineExpr d0 = b.getAffineDimExpr(0), s0 = b.getAffineSymbolExpr(0),
               s1 = b.getAffineSymbolExpr(1);
    Value blocks = affine::AffineApplyOp::create(
        b, loc, AffineMap::get(1, 2, (d0 - s0).ceilDiv(s1)),
        ValueRange{ub, lb, blockStep});
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto launch =
        gpu::LaunchOp::create(b, loc, blocks, one, one, threads, one, one);
    if (auto config =
            loop->getAttrOfType<KernelConfigAttr>(kKernelConfigAttr)) {
      if (config.getKernel())
        launch.setFunctionAttr(
            FlatSymbolRefAttr::get(context, config.getKernel().getValue()));
      // sezm-outline-kernels puts this on the kernel.
      if (config.getBlocksPerSm() > 0)
        launch->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                        b.getI32IntegerAttr(config.getBlocksPerSm()));
    }

    // Thread t of block k runs iteration lb + (k * threads + t) * step.
    b.setInsertionPointToEnd(&launch.getBody().front());
    Value first = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, launch.getBlockIds().x, blockStep), lb);
    Value offset = arith::MulIOp::create(b, loc, launch.getThreadIds().x, step);
    Value iv = arith::AddIOp::create(b, loc, offset, first);
    Value inRange =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, iv, ub);
    auto guard = scf::IfOp::create(b, loc, inRange, /*withElseRegion=*/false);
    gpu::TerminatorOp::create(b, loc);

    Block *body = loop.getBody();
    body->getArgument(0).replaceAllUsesWith(iv);
    body->getTerminator()->erase();
    Block *then = guard.thenBlock();
    then->getOperations().splice(then->begin(), body->getOperations());
    loop.erase();
    return success();
  }
};
} // namespace
