//===- ProgramOrder.h - uses and ops in program order ----------*- C++ -*-===//
//
// The inference schedule's recomputations (sezm-rematerialize, and
// sezm-fuse-elementwise's cheap values and small contractions) walk a
// value's uses in program order and give a use a copy of the value where
// other work runs since the use before it: these are the walk's two
// questions.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_TRANSFORMS_PROGRAMORDER_H
#define SEZM_TRANSFORMS_PROGRAMORDER_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::sezm {

/// The uses of `value` that `counted` accepts (every use where it is null),
/// in program order, several uses in one user by operand number; none if
/// one of them lies outside `block`.
SmallVector<OpOperand *>
usesInProgramOrder(Value value, Block *block,
                   llvm::function_ref<bool(OpOperand &)> counted = nullptr);

/// `ops`, which lie in one block, in program order.
SmallVector<Operation *> inProgramOrder(ArrayRef<Operation *> ops);

/// Whether an op that `matches` accepts runs after `from` and before `to`,
/// which lie in one block, `from` first.
bool runsBetween(Operation *from, Operation *to,
                 llvm::function_ref<bool(Operation *)> matches);

/// Whether a sezm op (and so its per-edge buffers) runs after `from` and
/// before `to`: where one does, a value read at both is worth computing
/// again at `to`.
bool sezmOpRunsBetween(Operation *from, Operation *to);

} // namespace mlir::sezm

#endif // SEZM_TRANSFORMS_PROGRAMORDER_H
