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
    SmallVector<RotateMixOp> messages;
    func.walk([&](RotateMixOp op) { messages.push_back(op); });
    for (RotateMixOp op : messages) {
      // The users in program order: the first keeps the message, each later
      // one (in the same block, after it) gets its own recomputation.
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : op.getResult().getUses())
        uses.push_back(&use);
      Block *block = op->getBlock();
      if (uses.size() < 2 || llvm::any_of(uses, [&](OpOperand *use) {
            return use->getOwner()->getBlock() != block;
          }))
        continue;
      llvm::sort(uses, [](OpOperand *a, OpOperand *b) {
        return a->getOwner()->isBeforeInBlock(b->getOwner());
      });
      OpBuilder builder(&getContext());
      Operation *previous = uses.front()->getOwner();
      for (OpOperand *use : llvm::drop_begin(uses)) {
        Operation *user = use->getOwner();
        // Worth it only where other sezm ops (and their per-edge buffers)
        // run while the message would wait.
        bool busy = false;
        for (Operation *between = previous->getNextNode(); between != user;
             between = between->getNextNode())
          busy |= isa<SeZMDialect>(between->getDialect());
        previous = user;
        if (!busy)
          continue;
        builder.setInsertionPoint(user);
        Operation *copy = builder.clone(*op);
        use->set(copy->getResult(0));
        user->emitRemark() << "rotate_mix recomputed here (inference "
                              "schedule): its message need not live from "
                              "its first use to this one";
      }
    }
  }
};
} // namespace
