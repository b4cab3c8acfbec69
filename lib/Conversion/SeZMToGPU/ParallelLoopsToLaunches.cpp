//===- ParallelLoopsToLaunches.cpp - each loop kernel a named launch ------===//
//
// A loop kernel (an op's loops, a linalg op's loops) reaches the GPU as one
// parallel loop; here it becomes a launch named by the kernel configuration
// the loop carries, whose threads stride over the iterations: one each
// where the blocks that takes are at most max-blocks, else as many each as
// max-blocks of them need. A block per 128 iterations of a per-edge
// elementwise op (650,000 blocks of a few dozen instructions) was bound by
// how fast the GPU starts blocks, not by memory. Upstream's tiling, mapping
// and conversion of parallel loops compute the one-iteration indices, but
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
    if (threadsPerBlock < 1 || maxBlocks < 1) {
      getOperation().emitError()
          << "sezm-parallel-loops-to-launches: threads-per-block and "
             "max-blocks must be at least 1, got "
          << static_cast<int64_t>(threadsPerBlock) << " and "
          << static_cast<int64_t>(maxBlocks);
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
    // A block per threads-per-block iterations, (ub - lb) ceildiv that, up
    // to max-blocks.
    Value blockStep = arith::MulIOp::create(b, loc, step, threads);
    AffineExpr d0 = b.getAffineDimExpr(0), s0 = b.getAffineSymbolExpr(0),
               s1 = b.getAffineSymbolExpr(1);
    Value blocks = affine::AffineApplyOp::create(
        b, loc, AffineMap::get(1, 2, (d0 - s0).ceilDiv(s1)),
        ValueRange{ub, lb, blockStep});
    blocks =
        arith::MinUIOp::create(b, loc, blocks,
                               arith::ConstantIndexOp::create(
                                   b, loc, static_cast<int64_t>(maxBlocks)));
    Value gridStep = arith::MulIOp::create(b, loc, blocks, blockStep);
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

    // Thread t of block k runs iterations lb + (k * threads + t) * step,
    // then every blocks * threads * step after it below ub.
    b.setInsertionPointToEnd(&launch.getBody().front());
    Value first = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, launch.getBlockIds().x, blockStep), lb);
    Value offset = arith::MulIOp::create(b, loc, launch.getThreadIds().x, step);
    Value start = arith::AddIOp::create(b, loc, offset, first);
    auto strided = scf::ForOp::create(b, loc, start, ub, gridStep);
    gpu::TerminatorOp::create(b, loc);

    Block *body = loop.getBody();
    body->getArgument(0).replaceAllUsesWith(strided.getInductionVar());
    body->getTerminator()->erase();
    Block *iteration = strided.getBody();
    iteration->getOperations().splice(iteration->begin(),
                                      body->getOperations());
    loop.erase();
    return success();
  }
};
} // namespace
