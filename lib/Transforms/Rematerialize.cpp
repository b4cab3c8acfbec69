//===- Rematerialize.cpp - recompute messages for the backward ------------===//

#include "SeZM/Transforms/Passes.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_REMATERIALIZE
#include "SeZM/Transforms/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;

namespace {
struct RematerializePass : sezm::impl::RematerializeBase<RematerializePass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto schedule = func->getAttrOfType<StringAttr>(kScheduleAttr);
    if (!schedule || schedule.getValue() != kInference)
      return;
    // Per-edge values that are cheap to recompute from what stays live
    // anyway: rotate_mix messages (from the node features, the Wigner-D and
    // the kernel) and edge vectors (from the positions).
    SmallVector<Operation *> recomputable;
    func.walk([&](Operation *op) {
      if (isa<RotateMixOp, EdgeVectorsOp>(op))
        recomputable.push_back(op);
    });
    for (Operation *op : recomputable) {
      // The users in program order: the first ones keep the value; where
      // other sezm ops (and their per-edge buffers) run before the next
      // user, the value is computed again there, and later users nearby
      // share that copy.
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : op->getResult(0).getUses())
        uses.push_back(&use);
      Block *block = op->getBlock();
      if (uses.size() < 2 || llvm::any_of(uses, [&](OpOperand *use) {
            return use->getOwner()->getBlock() != block;
          }))
        continue;
      // Block order, then operand order within one user: a total order, so
      // the sort is deterministic without being stable.
      llvm::sort(uses, [](OpOperand *a, OpOperand *b) {
        if (a->getOwner() == b->getOwner())
          return a->getOperandNumber() < b->getOperandNumber();
        return a->getOwner()->isBeforeInBlock(b->getOwner());
      });
      OpBuilder builder(&getContext());
      Operation *previous = uses.front()->getOwner();
      Value current = op->getResult(0);
      for (OpOperand *use : llvm::drop_begin(uses)) {
        Operation *user = use->getOwner();
        // Users come in block order; one user may hold several uses.
        bool busy = false;
        if (previous != user)
          for (Operation *between = previous->getNextNode(); between != user;
               between = between->getNextNode())
            busy |= isa<SeZMDialect>(between->getDialect());
        previous = user;
        if (busy) {
          builder.setInsertionPoint(user);
          current = builder.clone(*op)->getResult(0);
          user->emitRemark()
              << op->getName().stripDialect()
              << " recomputed here (inference schedule): its result need not "
                 "live from its earlier uses to this one";
        }
        use->set(current);
      }
    }
  }
};
} // namespace
