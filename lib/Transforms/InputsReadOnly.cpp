//===- InputsReadOnly.cpp - a function's inputs are not scratch space -----===//

#include "SeZM/Transforms/Passes.h"

#include "mlir/IR/BuiltinTypes.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_INPUTSREADONLY
#include "SeZM/Transforms/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;

namespace {
struct InputsReadOnlyPass : sezm::impl::InputsReadOnlyBase<InputsReadOnlyPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.isPublic())
      return;
    BoolAttr no = BoolAttr::get(&getContext(), false);
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      if (isa<TensorType>(func.getArgumentTypes()[i]))
        func.setArgAttr(i, "bufferization.writable", no);
  }
};
} // namespace
