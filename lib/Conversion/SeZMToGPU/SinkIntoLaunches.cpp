//===- SinkIntoLaunches.cpp - constants into gpu.launch bodies ------------===//
//
// The values worth recomputing in a kernel rather than passing it, cloned
// into each launch that uses them, with the uses rewritten by one walk of
// the launch's body.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_SINKINTOLAUNCHES
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;

/// Whether `op` is cheaper to recompute in a kernel than to pass to it.
static bool worthSinking(Operation *op) {
  return isa<arith::ConstantOp, func::ConstantOp, memref::DimOp,
             arith::SelectOp, arith::CmpIOp>(op);
}

/// Adds `op` and what it needs to `sunk` (operands first) when it is worth
/// sinking and each of its operands is sunk too or already passed to the
/// launch (`passed`); whether it was.
static bool collectSunk(Operation *op, const llvm::SetVector<Value> &passed,
                        llvm::SetVector<Operation *> &sunk,
                        llvm::SmallPtrSetImpl<Value> &available) {
  if (sunk.contains(op))
    return true;
  if (!worthSinking(op))
    return false;
  for (Value operand : op->getOperands()) {
    if (available.contains(operand))
      continue;
    Operation *definer = operand.getDefiningOp();
    if ((!definer || !collectSunk(definer, passed, sunk, available)) &&
        !passed.contains(operand))
      return false;
  }
  sunk.insert(op);
  available.insert(op->result_begin(), op->result_end());
  return true;
}

static void sinkIntoLaunch(gpu::LaunchOp launch) {
  Region &body = launch.getBody();
  llvm::SetVector<Value> usedFromAbove;
  getUsedValuesDefinedAbove(body, usedFromAbove);
  llvm::SetVector<Operation *> sunk;
  llvm::SmallPtrSet<Value, 16> available;
  for (Value value : usedFromAbove)
    if (Operation *definer = value.getDefiningOp())
      collectSunk(definer, usedFromAbove, sunk, available);
  if (sunk.empty())
    return;
  IRMapping clones;
  OpBuilder builder(body);
  for (Operation *op : sunk)
    builder.clone(*op, clones);
  body.walk([&](Operation *op) {
    for (OpOperand &operand : op->getOpOperands())
      if (Value clone = clones.lookupOrNull(operand.get()))
        operand.set(clone);
  });
}

namespace {
struct SinkIntoLaunchesPass
    : sezm::impl::SinkIntoLaunchesBase<SinkIntoLaunchesPass> {
  void runOnOperation() override {
    getOperation().walk([](gpu::LaunchOp launch) { sinkIntoLaunch(launch); });
  }
};
} // namespace
