//===- OrderConstantGlobals.cpp - constant globals in use order -----------===//

#include "SeZM/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_ORDERCONSTANTGLOBALS
#include "SeZM/Transforms/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;

namespace {
struct OrderConstantGlobalsPass
    : sezm::impl::OrderConstantGlobalsBase<OrderConstantGlobalsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // The constant globals, in the order the functions first read them.
    llvm::SetVector<memref::GlobalOp> uses;
    module.walk([&](memref::GetGlobalOp get) {
      auto global = symbols.lookup<memref::GlobalOp>(get.getName());
      if (global && global.getConstant() && global.isPrivate())
        uses.insert(global);
    });
    // The final names may be taken by globals still to be renamed: each
    // takes a passing name first.
    MLIRContext *context = &getContext();
    for (auto [index, global] : llvm::enumerate(uses))
      if (failed(symbols.rename(
              global, StringAttr::get(context, "__sezm_renaming_" +
                                                   std::to_string(index)))))
        return signalPassFailure();
    Operation *after = nullptr;
    for (auto [index, item] : llvm::enumerate(uses)) {
      memref::GlobalOp global = item;
      MemRefType type = global.getType();
      std::string name = "__constant_" + std::to_string(index) + "_";
      llvm::raw_string_ostream os(name);
      for (int64_t extent : type.getShape())
        os << extent << "x";
      os << type.getElementType();
      if (failed(symbols.rename(global, StringAttr::get(context, name))))
        return signalPassFailure();
      if (after)
        global->moveAfter(after);
      else
        global->moveBefore(&module.getBody()->front());
      after = global;
    }
  }
};
} // namespace
