//===- Rematerialize.cpp - recompute per-edge values for the backward -----===//

#include "SeZM/Transforms/Passes.h"
#include "SeZM/Transforms/ProgramOrder.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_REMATERIALIZE
#include "SeZM/Transforms/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;

namespace {
/// Whether a block's backward ends strictly between `from` and `to`: the
/// message gradient reduced onto the source nodes (rotate_mix_grad, fused
/// or not) is the last of a block's backward.
bool blockBackwardBetween(Operation *from, Operation *to) {
  return runsBetween(from, to, [](Operation *op) {
    return isa<RotateMixGradOp, RotateMixGradReduceOp>(op);
  });
}

/// An op of a mixing stack, which `stacks` recomputes for the backward: the
/// SO(2) linear layers, the gates, the focus scaling and the residual adds
/// between them.
bool isStackOp(Operation *op) {
  if (isa<SO2LinearOp, GateOp, FocusScaleOp>(op))
    return true;
  auto add = dyn_cast<arith::AddFOp>(op);
  if (!add || !isa<RankedTensorType>(add.getType()))
    return false;
  return llvm::all_of(add->getOperands(), [](Value operand) {
    Operation *def = operand.getDefiningOp();
    return def && (isStackOp(def) || isa<RotateMixOp>(def));
  });
}

struct RematerializePass : sezm::impl::RematerializeBase<RematerializePass> {
  using Base::Base;

  /// `value` at `user`: its latest copy before `user`, else a copy made
  /// there, its stack and message operands made there too.
  Value materialize(Value value, Operation *user, OpBuilder &builder) {
    Operation *def = value.getDefiningOp();
    if (!def || !(isStackOp(def) || isa<RotateMixOp>(def)))
      return value;
    SmallVector<Value> &made = copies[value];
    for (Value copy : llvm::reverse(made))
      if (copy.getDefiningOp()->isBeforeInBlock(user))
        return copy;
    IRMapping mapping;
    for (Value operand : def->getOperands())
      mapping.map(operand, materialize(operand, user, builder));
    builder.setInsertionPoint(user);
    Operation *clone = builder.clone(*def, mapping);
    made.push_back(clone->getResult(0));
    ++stackRecomputed;
    return clone->getResult(0);
  }

  /// The mixing stacks' values for the backward: from the first use that
  /// another block's backward separates from the one before, each use takes
  /// a copy made at the earliest such use, so that a block's stack is
  /// computed again once, when its backward starts, and not kept through
  /// the later blocks' backward.
  void recomputeStacks(func::FuncOp func) {
    copies.clear();
    stackRecomputed = 0;
    SmallVector<std::pair<Operation *, OpOperand *>> late;
    func.walk([&](Operation *op) {
      if (!isStackOp(op) || op->getNumResults() != 1)
        return;
      SmallVector<OpOperand *> uses =
          usesInProgramOrder(op->getResult(0), op->getBlock());
      Operation *previous = op;
      bool far = false;
      for (OpOperand *use : uses) {
        Operation *user = use->getOwner();
        far |= previous != user && blockBackwardBetween(previous, user);
        previous = user;
        if (far)
          late.push_back({user, use});
      }
    });
    // The earliest uses first: the copies they make serve the later ones.
    llvm::sort(late, [](const auto &a, const auto &b) {
      if (a.first == b.first)
        return a.second->getOperandNumber() < b.second->getOperandNumber();
      return a.first->isBeforeInBlock(b.first);
    });
    OpBuilder builder(&getContext());
    Operation *remarked = nullptr;
    for (auto [user, use] : late) {
      unsigned before = stackRecomputed;
      use->set(materialize(use->get(), user, builder));
      if (stackRecomputed != before && remarked != user) {
        user->emitRemark()
            << "mixing stack recomputed here (" << stackRecomputed - before
            << " ops, inference schedule, stacks): its values need not "
               "live through the later blocks";
        remarked = user;
      }
    }
  }

  /// The copies of each stack value (and message) made so far in the
  /// function, in program order.
  DenseMap<Value, SmallVector<Value>> copies;
  unsigned stackRecomputed = 0;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto schedule = func->getAttrOfType<StringAttr>(kScheduleAttr);
    if (!schedule || schedule.getValue() != kInference)
      return;
    // Per-edge values that are cheap to recompute from what stays live
    // anyway: rotate_mix messages (from the node features, the Wigner-D and
    // the kernel), edge vectors (from the positions) and focus-scaled
    // messages (from the input and scales that focus_scale_grad keeps).
    SmallVector<Operation *> recomputable;
    func.walk([&](Operation *op) {
      if (isa<RotateMixOp, EdgeVectorsOp, FocusScaleOp>(op))
        recomputable.push_back(op);
    });
    for (Operation *op : recomputable) {
      // The users in program order: the first ones keep the value; where
      // other sezm ops (and their per-edge buffers) run before the next
      // user, the value is computed again there, and later users nearby
      // share that copy.
      SmallVector<OpOperand *> uses =
          usesInProgramOrder(op->getResult(0), op->getBlock());
      if (uses.size() < 2)
        continue;
      OpBuilder builder(&getContext());
      Operation *previous = uses.front()->getOwner();
      Value current = op->getResult(0);
      for (OpOperand *use : llvm::drop_begin(uses)) {
        Operation *user = use->getOwner();
        // Users come in block order; one user may hold several uses.
        bool busy = previous != user && sezmOpRunsBetween(previous, user);
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
    if (stacks)
      recomputeStacks(func);
  }
};
} // namespace
