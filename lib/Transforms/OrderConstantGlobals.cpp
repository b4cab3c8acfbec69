//===- OrderConstantGlobals.cpp - constant globals in use order -----------===//

#include "SeZM/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AttrTypeSubElements.h"
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
    // Every reference renamed in one walk of the module (a rename per global
    // would walk it once each).
    MLIRContext *context = &getContext();
    llvm::DenseMap<StringAttr, StringAttr> renamed;
    for (auto [index, item] : llvm::enumerate(uses)) {
      memref::GlobalOp global = item;
      MemRefType type = global.getType();
      std::string name = "__constant_" + std::to_string(index) + "_";
      llvm::raw_string_ostream os(name);
      for (int64_t extent : type.getShape())
        os << extent << "x";
      os << type.getElementType();
      renamed[global.getSymNameAttr()] = StringAttr::get(context, name);
    }
    for (const auto &entry : renamed) {
      StringAttr name = entry.second;
      Operation *holder = symbols.lookup(name);
      if (holder && !renamed.count(SymbolTable::getSymbolName(holder))) {
        holder->emitError()
            << "sezm-order-constant-globals: the name " << name << " is taken";
        return signalPassFailure();
      }
    }
    AttrTypeReplacer replacer;
    replacer.addReplacement([&](SymbolRefAttr ref) -> std::optional<Attribute> {
      auto it = renamed.find(ref.getRootReference());
      if (it == renamed.end())
        return std::nullopt;
      return SymbolRefAttr::get(it->second, ref.getNestedReferences());
    });
    module->walk([&](Operation *op) {
      if (!isa<memref::GlobalOp>(op))
        replacer.replaceElementsIn(op);
    });
    for (memref::GlobalOp global : uses)
      global.setSymNameAttr(renamed.lookup(global.getSymNameAttr()));
    Operation *after = nullptr;
    for (memref::GlobalOp global : uses) {
      if (after)
        global->moveAfter(after);
      else
        global->moveBefore(&module.getBody()->front());
      after = global;
    }
  }
};
} // namespace
