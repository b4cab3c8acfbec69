//===- KeepWignerEntries.cpp - a Wigner-D as the entries rotations read ---===//

#include "SeZM/Transforms/Passes.h"

#include "SeZM/Dialect/SeZM/SO2Layout.h"
#include "SeZM/Dialect/SeZM/SeZMOps.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_KEEPWIGNERENTRIES
#include "SeZM/Transforms/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;

namespace {
/// Whether `use` is the Wigner-D operand of a forward rotation, which reads
/// the kept entries alone and takes them in either form.
bool readsKeptEntriesOnly(OpOperand &use) {
  return llvm::TypeSwitch<Operation *, bool>(use.getOwner())
      .Case<RotateOp, RotateMixOp, RotateBackOp, EnvelopeAggregateOp,
            AttentionAggregateOp>(
          [&](auto op) { return use.get() == op.getWigner(); })
      .Default(false);
}

struct KeepWignerEntriesPass
    : sezm::impl::KeepWignerEntriesBase<KeepWignerEntriesPass> {
  void runOnOperation() override {
    getOperation().walk([&](WignerOp op) {
      auto type = cast<RankedTensorType>(op.getResult().getType());
      if (type.getRank() != 3 || op.getResult().use_empty() ||
          !llvm::all_of(op.getResult().getUses(), readsKeptEntriesOnly))
        return;
      SO2Layout layout{static_cast<int64_t>(op.getLmax())};
      // The users' verifiers take either form, and their results do not
      // depend on it: changing the type in place keeps the IR valid.
      op.getResult().setType(RankedTensorType::get(
          {type.getDimSize(0), layout.keptWignerEntries()},
          type.getElementType()));
    });
  }
};
} // namespace
