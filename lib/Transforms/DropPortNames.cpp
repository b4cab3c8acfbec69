//===- DropPortNames.cpp - the lowering has no use for port names
//----------===//

#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "SeZM/Transforms/Passes.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_DROPPORTNAMES
#include "SeZM/Transforms/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;

namespace {
struct DropPortNamesPass : sezm::impl::DropPortNamesBase<DropPortNamesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto name = StringAttr::get(&getContext(), sezm::kNameAttr);
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      func.removeArgAttr(i, name);
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      func.removeResultAttr(i, name);
  }
};
} // namespace
