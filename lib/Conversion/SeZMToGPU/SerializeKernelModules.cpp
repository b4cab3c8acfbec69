//===- SerializeKernelModules.cpp - gpu.modules to binaries, in parallel --===//
//
// Upstream's gpu-module-to-binary serializes one module after another; the
// targets' serialization (translation to LLVM IR, optimization, NVPTX code
// generation) reads only its own module and makes its own LLVM context, so
// the modules are serialized on the context's threads and the binaries put
// in their places afterwards, one thread at a time.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Conversion/Passes.h"

#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/Threading.h"
#include "llvm/ADT/StringSwitch.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_SERIALIZEKERNELMODULES
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;

namespace {
struct SerializeKernelModules
    : sezm::impl::SerializeKernelModulesBase<SerializeKernelModules> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::optional<gpu::CompilationTarget> target =
        llvm::StringSwitch<std::optional<gpu::CompilationTarget>>(format)
            .Cases({"offloading", "llvm"}, gpu::CompilationTarget::Offload)
            .Cases({"assembly", "isa"}, gpu::CompilationTarget::Assembly)
            .Cases({"binary", "bin"}, gpu::CompilationTarget::Binary)
            .Cases({"fatbinary", "fatbin"}, gpu::CompilationTarget::Fatbin)
            .Default(std::nullopt);
    if (!target) {
      module.emitError() << "sezm-serialize-kernel-modules: unknown format '"
                         << format << "'";
      return signalPassFailure();
    }
    SmallVector<gpu::GPUModuleOp> kernels(module.getOps<gpu::GPUModuleOp>());
    // Built before the threads start: a target may ask for it.
    SymbolTable symbols(module);
    gpu::TargetOptions options({}, {}, {}, {}, *target,
                               [&]() -> SymbolTable * { return &symbols; });
    std::vector<SmallVector<Attribute>> objects(kernels.size());
    LogicalResult serialized = failableParallelForEachN(
        &getContext(), 0, kernels.size(), [&](size_t i) -> LogicalResult {
          gpu::GPUModuleOp kernel = kernels[i];
          ArrayAttr targets = kernel.getTargetsAttr();
          if (!targets || targets.empty())
            return kernel.emitError("the module has no target attributes");
          for (Attribute attr : targets) {
            auto targetAttr = dyn_cast<gpu::TargetAttrInterface>(attr);
            if (!targetAttr)
              return kernel.emitError() << attr << " is not a GPU target";
            std::optional<SmallVector<char, 0>> object =
                targetAttr.serializeToObject(kernel, options);
            if (!object)
              return kernel.emitError("serializing the module for ")
                     << attr << " failed";
            Attribute objectAttr =
                targetAttr.createObject(kernel, *object, options);
            if (!objectAttr)
              return kernel.emitError("the object of the module for ")
                     << attr << " could not be made";
            objects[i].push_back(objectAttr);
          }
          return success();
        });
    if (failed(serialized))
      return signalPassFailure();
    OpBuilder builder(&getContext());
    for (auto [kernel, kernelObjects] : llvm::zip_equal(kernels, objects)) {
      builder.setInsertionPointAfter(kernel);
      gpu::BinaryOp::create(builder, kernel.getLoc(), kernel.getName(),
                            kernel.getOffloadingHandlerAttr(),
                            builder.getArrayAttr(kernelObjects));
      kernel->erase();
    }
  }
};
} // namespace
