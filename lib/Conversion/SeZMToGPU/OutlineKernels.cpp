//===- OutlineKernels.cpp - gpu.launch to kernels, with their NVVM asks ---===//
//
// Upstream's gpu-kernel-outlining drops a launch's attributes, so what a
// kernel's schedule asks of the NVVM backend (blocks per multiprocessor)
// would have to ride elsewhere; this outlining keeps it on the kernel.
// A kernel module equal to one outlined before (the same op on the same
// shapes in another layer or block) is not kept: its launches use the
// first, so that each distinct kernel is compiled once.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Conversion/Passes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_OUTLINEKERNELS
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;

namespace {
/// A module holding `kernel` and a copy of every symbol it refers to
/// (transitively) from `parent`.
gpu::GPUModuleOp createKernelModule(gpu::GPUFuncOp kernel, StringRef name,
                                    SymbolTable &parent) {
  OpBuilder builder(kernel.getContext());
  auto module = gpu::GPUModuleOp::create(builder, kernel.getLoc(), name);
  SymbolTable symbols(module);
  symbols.insert(kernel);
  SmallVector<Operation *> worklist = {kernel};
  while (!worklist.empty()) {
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(worklist.pop_back_val());
    if (!uses)
      continue;
    for (SymbolTable::SymbolUse use : *uses) {
      StringRef used = use.getSymbolRef().getRootReference();
      if (symbols.lookup(used))
        continue;
      Operation *definition = parent.lookup(used);
      if (!definition)
        continue;
      Operation *copy = definition->clone();
      worklist.push_back(copy);
      symbols.insert(copy);
    }
  }
  return module;
}

/// A hash of a kernel module's contents (not its name) from its top-level
/// ops alone (names, attributes, types): equal kernels hash alike, and the
/// few unequal ones that do are told apart by kernelsEqual.
llvm::hash_code kernelHash(gpu::GPUModuleOp module) {
  llvm::hash_code hash(0);
  for (Operation &op : module.getBody()->getOperations())
    hash =
        llvm::hash_combine(hash, OperationEquivalence::computeHash(
                                     &op, OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::ignoreHashValue,
                                     OperationEquivalence::IgnoreLocations));
  return hash;
}

/// Whether two kernel modules hold the same ops (locations aside), in the
/// same order: the same kernel, compiled once. Structural, where printing
/// both took a second on the default DPA4.
bool kernelsEqual(gpu::GPUModuleOp a, gpu::GPUModuleOp b) {
  Block &left = *a.getBody(), &right = *b.getBody();
  if (left.getOperations().size() != right.getOperations().size())
    return false;
  for (auto [x, y] : llvm::zip_equal(left, right))
    if (!OperationEquivalence::isEquivalentTo(
            &x, &y, OperationEquivalence::IgnoreLocations))
      return false;
  return true;
}

/// Whether `name` is one of the NVVM dialect's (nvvm.minctasm, ...).
bool isNvvmAttribute(StringAttr name) {
  auto [dialect, rest] = name.getValue().split('.');
  return !rest.empty() && dialect == NVVM::NVVMDialect::getDialectNamespace();
}

/// Replaces `launch` with a gpu.launch_func of `kernel` on `operands`.
void replaceWithLaunchFunc(gpu::LaunchOp launch, gpu::GPUFuncOp kernel,
                           ValueRange operands) {
  OpBuilder builder(launch);
  Value token = launch.getAsyncToken();
  auto launchFunc = gpu::LaunchFuncOp::create(
      builder, launch.getLoc(), kernel, launch.getGridSizeOperandValues(),
      launch.getBlockSizeOperandValues(), launch.getDynamicSharedMemorySize(),
      operands, token ? token.getType() : Type(),
      launch.getAsyncDependencies());
  launch.replaceAllUsesWith(launchFunc);
  launch.erase();
}

struct OutlineKernelsPass : sezm::impl::OutlineKernelsBase<OutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    bool outlined = false;
    // The kept kernels by kernelHash, each with its module.
    llvm::DenseMap<llvm::hash_code,
                   SmallVector<std::pair<gpu::GPUModuleOp, gpu::GPUFuncOp>>>
        outlinedKernels;
    for (auto function :
         llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      // Each function's kernels follow it, in launch order.
      Block::iterator insertPoint(function->getNextNode());
      SmallVector<gpu::LaunchOp> launches;
      function.walk([&](gpu::LaunchOp launch) { launches.push_back(launch); });
      for (gpu::LaunchOp launch : launches) {
        if (launch.hasClusterSize()) {
          launch.emitOpError("has a cluster size, which sezm does not outline");
          return signalPassFailure();
        }
        std::string name = launch.getFunctionAttr()
                               ? launch.getFunctionAttr().getValue().str()
                               : (function.getName() + "_kernel").str();
        SmallVector<Value> operands;
        gpu::GPUFuncOp kernel = outlineKernelFunc(launch, name, operands);
        for (NamedAttribute attribute : launch->getDiscardableAttrs())
          if (isNvvmAttribute(attribute.getName()))
            kernel->setAttr(attribute.getName(), attribute.getValue());
        StringRef moduleName = launch.getModuleAttr()
                                   ? launch.getModuleAttr().getValue()
                                   : StringRef(name);
        gpu::GPUModuleOp kernelModule =
            createKernelModule(kernel, moduleName, symbols);
        auto &candidates = outlinedKernels[kernelHash(kernelModule)];
        auto known = llvm::find_if(candidates, [&](const auto &candidate) {
          return kernelsEqual(candidate.first, kernelModule);
        });
        if (known == candidates.end()) {
          candidates.emplace_back(kernelModule, kernel);
          symbols.insert(kernelModule, insertPoint);
        } else {
          kernelModule.erase();
          kernel = known->second;
        }
        replaceWithLaunchFunc(launch, kernel, operands);
        outlined = true;
      }
    }
    if (outlined)
      module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                      UnitAttr::get(&getContext()));
  }
};
} // namespace
