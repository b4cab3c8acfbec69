//===- KernelNames.cpp - name generic kernels after their source ops ------===//

#include "SeZM/Conversion/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_MARKKERNELORIGINS
#define GEN_PASS_DEF_NAMEKERNELS
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;

namespace {
/// The first name location in `loc` (a fused location is searched in
/// order), or null.
NameLoc findName(Location loc) {
  NameLoc found;
  loc->walk([&](Location inner) {
    if (auto name = dyn_cast<NameLoc>(inner)) {
      found = name;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
}

struct MarkKernelOriginsPass
    : sezm::impl::MarkKernelOriginsBase<MarkKernelOriginsPass> {
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    getOperation().walk([&](func::FuncOp function) {
      function.getBody().walk([&](Operation *op) {
        if (findName(op->getLoc()))
          return;
        StringRef name = op->getName().stripDialect();
        op->setLoc(NameLoc::get(StringAttr::get(context, name), op->getLoc()));
      });
    });
  }
};

struct NameKernelsPass : sezm::impl::NameKernelsBase<NameKernelsPass> {
  void runOnOperation() override {
    getOperation().walk([&](gpu::LaunchOp launch) {
      if (launch.getFunctionAttr())
        return;
      if (NameLoc name = findName(launch.getLoc()))
        launch.setFunctionAttr(
            FlatSymbolRefAttr::get(&getContext(), name.getName()));
    });
  }
};

} // namespace
