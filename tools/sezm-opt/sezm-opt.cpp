//===- sezm-opt.cpp - the sezm pass driver --------------------------------===//
//
// mlir-opt with the sezm dialect: parses, verifies, transforms and prints
// sezm programs. Every upstream dialect and pass is available too.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Conversion/Passes.h"
#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "SeZM/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::sezm::registerSeZMConversionPasses();
  mlir::sezm::registerSeZMTransformsPasses();
  mlir::sezm::registerPipelines();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::sezm::SeZMDialect>();
  // The GPU pipeline serializes kernels to PTX inside the pass manager.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::NVVM::registerNVVMTargetInterfaceExternalModels(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "sezm-opt: the SeZM compiler's pass driver\n", registry));
}
