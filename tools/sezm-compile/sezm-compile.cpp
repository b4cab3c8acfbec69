//===- sezm-compile.cpp - compile a sezm module for the GPU ---------------===//
//
// sezm-compile MODULE.mlir -o model.sezm [--chip sm_90] [--weights W]
//
// The ahead-of-time step: every public function becomes an entry of one
// versioned artifact that libsezm_runtime (and sezm-exec) loads and runs
// without MLIR or LLVM: kernels as PTX for the chip, JIT-compiled once per
// process by the driver, host code, a manifest of each entry's named inputs
// and outputs, the memory plan and the weights.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Execution/GpuCompiler.h"
#include "SeZM/Execution/ModuleFile.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
namespace cl = llvm::cl;
using Emit = mlir::sezm::GpuCompileOptions::Emit;

static cl::OptionCategory category("sezm-compile options");
static cl::opt<std::string> modulePath(cl::Positional, cl::Required,
                                       cl::desc("<module.mlir>"),
                                       cl::cat(category));
static cl::opt<std::string> outputPath("o", cl::Required,
                                       cl::desc("Output file (or folder)"),
                                       cl::value_desc("path"),
                                       cl::cat(category));
static cl::opt<std::string>
    chip("chip",
         cl::desc("NVIDIA GPU to compile for (sm_80, sm_86, sm_89, "
                  "sm_90)"),
         cl::value_desc("sm_XX"), cl::init("sm_90"), cl::cat(category));
static cl::opt<Emit>
    emit("emit", cl::desc("What to write"), cl::init(Emit::Artifact),
         cl::values(clEnumValN(Emit::Artifact, "artifact",
                               "the versioned artifact for libsezm_runtime: "
                               "manifest, host library, PTX, memory plan, "
                               "weights (default)"),
                    clEnumValN(Emit::Library, "lib",
                               "the host shared library alone"),
                    clEnumValN(Emit::Object, "obj", "the host object file"),
                    clEnumValN(Emit::LLVMIR, "llvm", "the host LLVM IR"),
                    clEnumValN(Emit::PTX, "ptx",
                               "each kernel module's PTX, as <name>.ptx in the "
                               "folder given by -o")),
         cl::cat(category));

static cl::opt<std::string>
    weights("weights",
            cl::desc("Carry these weights in the artifact (each tensor "
                     "names an input of an entry)"),
            cl::value_desc("file.safetensors"), cl::cat(category));

static cl::opt<std::string> forcesOf(
    "forces-of",
    cl::desc("Add @<name>_forces (energy, forces, virial) to the module with "
             "sezm-autodiff before compiling"),
    cl::value_desc("energy function"), cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "sezm-compile") << message << "\n";
  return 1;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "sezm-compile: compile a sezm module ahead of time for NVIDIA GPUs\n\n"
      "Every public function becomes an entry of one versioned artifact\n"
      "(docs/artifact.md) that libsezm_runtime (and sezm-exec) loads and\n"
      "runs without MLIR or LLVM: kernels as PTX for --chip, JIT-compiled\n"
      "once per process by the driver, host code, a manifest of each\n"
      "entry's named inputs and outputs, the memory plan and --weights.\n"
      "Linking uses the C++ compiler on PATH (or $CXX).\n");
  if (llvm::Error error = mlir::sezm::checkChip(chip))
    return fail(llvm::toString(std::move(error)));

  DialectRegistry registry;
  mlir::sezm::registerToolDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  mlir::sezm::ModuleFile file(modulePath, context);
  if (!file.openError().empty())
    return fail(file.openError());
  OwningOpRef<ModuleOp> &module = file.module();
  if (!module)
    return 1;

  if (!forcesOf.empty() && failed(mlir::sezm::addForces(*module, forcesOf)))
    return 1;

  mlir::sezm::GpuCompileOptions options;
  options.chip = chip;
  options.emit = emit;
  if (!weights.empty() && emit != Emit::Artifact)
    return fail("--weights goes with --emit=artifact");
  options.weightsPath = weights;
  if (llvm::Error compileError =
          mlir::sezm::compileForGpu(*module, options, outputPath))
    return fail(modulePath + ": " + llvm::toString(std::move(compileError)));
  return 0;
}
