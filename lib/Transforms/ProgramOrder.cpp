//===- ProgramOrder.cpp - uses and ops in program order -------------------===//

#include "SeZM/Transforms/ProgramOrder.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;

SmallVector<OpOperand *>
sezm::usesInProgramOrder(Value value, Block *block,
                         llvm::function_ref<bool(OpOperand &)> counted) {
  SmallVector<OpOperand *> uses;
  for (OpOperand &use : value.getUses()) {
    if (counted && !counted(use))
      continue;
    if (use.getOwner()->getBlock() != block)
      return {};
    uses.push_back(&use);
  }
  // Block order, then operand order within one user: a total order, so the
  // sort is deterministic without being stable.
  llvm::sort(uses, [](OpOperand *a, OpOperand *b) {
    if (a->getOwner() == b->getOwner())
      return a->getOperandNumber() < b->getOperandNumber();
    return a->getOwner()->isBeforeInBlock(b->getOwner());
  });
  return uses;
}

SmallVector<Operation *> sezm::inProgramOrder(ArrayRef<Operation *> ops) {
  SmallVector<Operation *> ordered(ops);
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

bool sezm::runsBetween(Operation *from, Operation *to,
                       llvm::function_ref<bool(Operation *)> matches) {
  for (Operation *op = from->getNextNode(); op && op != to;
       op = op->getNextNode())
    if (matches(op))
      return true;
  return false;
}

bool sezm::sezmOpRunsBetween(Operation *from, Operation *to) {
  return runsBetween(from, to, [](Operation *op) {
    return isa<SeZMDialect>(op->getDialect());
  });
}
