//===- OutlineCpuLoops.cpp - one thread-shared loop per function ---------===//

#include "SeZM/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_OUTLINECPULOOPS
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;

/// Constants and globals: cloned into the outlined function rather than
/// passed, so that its loop bounds and steps stay known.
static bool isClonedIn(Operation *op) {
  return op->getNumOperands() == 0 && op->getNumRegions() == 0 &&
         (op->hasTrait<OpTrait::ConstantLike>() ||
          isa<memref::GetGlobalOp>(op));
}

/// Moves `loop` into a new private function named `name`, placed after
/// `previous` (and made the new `previous`), and calls it where the loop
/// stood.
static void outline(scf::ParallelOp loop, StringRef name, Operation *&previous,
                    SymbolTable &symbols) {
  // The bounds first, then what the body uses in the order it uses them.
  SetVector<Value> captured(llvm::from_range, loop->getOperands());
  getUsedValuesDefinedAbove(loop->getRegions(), captured);
  SmallVector<Value> arguments;
  SmallVector<Operation *> clonedIn;
  for (Value value : captured) {
    Operation *def = value.getDefiningOp();
    if (def && isClonedIn(def))
      clonedIn.push_back(def);
    else
      arguments.push_back(value);
  }

  OpBuilder builder(previous);
  builder.setInsertionPointAfter(previous);
  auto type = builder.getFunctionType(ValueRange(arguments).getTypes(), {});
  auto callee = func::FuncOp::create(builder, loop.getLoc(), name, type);
  callee.setPrivate();
  symbols.insert(callee);
  previous = callee;

  Block *entry = callee.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  IRMapping mapping;
  mapping.map(arguments, entry->getArguments());
  for (Operation *op : clonedIn)
    builder.clone(*op, mapping);
  builder.clone(*loop, mapping);
  func::ReturnOp::create(builder, loop.getLoc());

  builder.setInsertionPoint(loop);
  func::CallOp::create(builder, loop.getLoc(), callee, arguments);
  loop.erase();
}

namespace {
struct OutlineCpuLoopsPass
    : sezm::impl::OutlineCpuLoopsBase<OutlineCpuLoopsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal())
        continue;
      SmallVector<scf::ParallelOp> loops;
      func.walk([&](scf::ParallelOp loop) {
        if (!loop->getParentOfType<scf::ParallelOp>())
          loops.push_back(loop);
      });
      Operation *previous = func;
      for (auto [index, loop] : llvm::enumerate(loops))
        outline(loop, (func.getSymName() + "_loop" + llvm::Twine(index)).str(),
                previous, symbols);
    }
  }
};
} // namespace
