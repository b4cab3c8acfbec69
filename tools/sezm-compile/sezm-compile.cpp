//===- sezm-compile.cpp - compile a sezm module for the GPU ---------------===//
//
// sezm-compile MODULE.mlir -o model.so [--chip sm_90]
//
// The ahead-of-time step: lowers every public function with the GPU
// pipeline (kernels as PTX for the chip, host code calling the mgpu*
// runtime ABI), adds a packed entry point `_sezm_packed_<name>(void **)` per
// function and the text manifest of their signatures (`sezm_manifest`), and
// links a shared library that libsezm_runtime loads. No MLIR or LLVM is
// needed where the library runs.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Conversion/Passes.h"
#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "SeZM/Execution/EntrySignature.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("sezm-compile options");
static cl::opt<std::string> modulePath(cl::Positional, cl::Required,
                                       cl::desc("<module.mlir>"),
                                       cl::cat(category));
static cl::opt<std::string> outputPath("o", cl::Required,
                                       cl::desc("Output file (or folder)"),
                                       cl::value_desc("path"),
                                       cl::cat(category));
static cl::opt<std::string> chip("chip",
                                 cl::desc("NVIDIA GPU to compile for"),
                                 cl::value_desc("sm_XX"), cl::init("sm_90"),
                                 cl::cat(category));
enum class Emit { Library, Object, LLVMIR, PTX };
static cl::opt<Emit> emit(
    "emit", cl::desc("What to write"), cl::init(Emit::Library),
    cl::values(clEnumValN(Emit::Library, "lib",
                          "a shared library for libsezm_runtime (default)"),
               clEnumValN(Emit::Object, "obj", "the host object file"),
               clEnumValN(Emit::LLVMIR, "llvm", "the host LLVM IR"),
               clEnumValN(Emit::PTX, "ptx",
                          "each kernel module's PTX, as <name>.ptx in the "
                          "folder given by -o")),
    cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "sezm-compile") << message << "\n";
  return 1;
}

/// void _sezm_packed_<name>(void **args): args[i] points at the i-th
/// parameter of `name`, args[n] at storage for its result.
static void addPackedEntry(llvm::Module &module, llvm::Function &function) {
  llvm::LLVMContext &context = module.getContext();
  auto *pointer = llvm::PointerType::getUnqual(context);
  auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(context),
                                       {pointer}, false);
  auto *wrapper = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage,
      "_sezm_packed_" + function.getName(), module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(context, "entry", wrapper));
  llvm::Value *slots = wrapper->getArg(0);
  llvm::SmallVector<llvm::Value *> args;
  for (llvm::Argument &param : function.args()) {
    llvm::Value *slot = builder.CreateGEP(pointer, slots,
                                          builder.getInt64(param.getArgNo()));
    llvm::Value *address = builder.CreateLoad(pointer, slot);
    args.push_back(builder.CreateLoad(param.getType(), address));
  }
  llvm::CallInst *call = builder.CreateCall(&function, args);
  if (!function.getReturnType()->isVoidTy()) {
    llvm::Value *slot =
        builder.CreateGEP(pointer, slots, builder.getInt64(args.size()));
    builder.CreateStore(call, builder.CreateLoad(pointer, slot));
  }
  builder.CreateRetVoid();
}

static void addManifest(llvm::Module &module, const std::string &text) {
  llvm::LLVMContext &context = module.getContext();
  auto *data = llvm::ConstantDataArray::getString(context, text, true);
  new llvm::GlobalVariable(module, data->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, data,
                           "sezm_manifest");
}

/// The first C++ compiler on PATH, to link the shared library.
static std::string findLinker() {
  if (const char *cxx = std::getenv("CXX"))
    if (auto path = llvm::sys::findProgramByName(cxx))
      return *path;
  for (const char *name : {"clang++-22", "c++", "g++", "clang++"})
    if (auto path = llvm::sys::findProgramByName(name))
      return *path;
  return std::string();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "sezm-compile: compile a sezm module ahead of time for NVIDIA GPUs\n\n"
      "Every public function becomes an entry of a shared library that\n"
      "libsezm_runtime (and sezm-exec) loads and runs: kernels as PTX for\n"
      "--chip, JIT-compiled once per process by the driver, and a manifest\n"
      "of each entry's named inputs and outputs.\n");

  // libdevice (math functions in kernels) comes from the CUDA toolkit.
  if (!std::getenv("CUDA_HOME") && llvm::sys::fs::exists("/usr/local/cuda"))
    setenv("CUDA_HOME", "/usr/local/cuda", 0);

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registry.insert<mlir::sezm::SeZMDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string error;
  auto file = openInputFile(modulePath, &error);
  if (!file)
    return fail(error);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  std::vector<::sezm::EntrySignature> entries;
  for (auto func : module->getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    auto signature = mlir::sezm::getEntrySignature(*module, func.getSymName());
    if (!signature)
      return fail(llvm::toString(signature.takeError()));
    entries.push_back(std::move(*signature));
  }
  if (entries.empty())
    return fail(modulePath + ": no public function to compile");

  PassManager pm(&context);
  mlir::sezm::GpuPipelineOptions options;
  options.chip = chip;
  mlir::sezm::buildGpuPipeline(pm, options);
  if (failed(pm.run(*module)))
    return 1;

  if (emit == Emit::PTX) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outputPath))
      return fail(outputPath + ": " + ec.message());
    int count = 0;
    for (auto binary : module->getOps<gpu::BinaryOp>()) {
      for (Attribute object : binary.getObjects()) {
        auto ptx = cast<gpu::ObjectAttr>(object).getObject().getValue();
        llvm::SmallString<256> path(outputPath);
        llvm::sys::path::append(path, binary.getName() + ".ptx");
        auto out = openOutputFile(path, &error);
        if (!out)
          return fail(error);
        out->os() << ptx;
        out->keep();
        ++count;
      }
    }
    llvm::outs() << count << " kernel modules written to " << outputPath
                 << "\n";
    return 0;
  }

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext);
  if (!llvmModule)
    return fail("translation to LLVM IR failed");
  for (const ::sezm::EntrySignature &entry : entries)
    addPackedEntry(*llvmModule, *llvmModule->getFunction(entry.function));
  addManifest(*llvmModule, ::sezm::writeManifest(entries));

  if (emit == Emit::LLVMIR) {
    auto out = openOutputFile(outputPath, &error);
    if (!out)
      return fail(error);
    llvmModule->print(out->os(), nullptr);
    out->keep();
    return 0;
  }

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return fail(error);
  // A portable x86-64 baseline: the library may run on another machine.
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, "x86-64", "", llvm::TargetOptions(), llvm::Reloc::PIC_));
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);

  std::string objectPath = outputPath;
  llvm::SmallString<128> temporary;
  if (emit == Emit::Library) {
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("sezm", "o", temporary))
      return fail("cannot create a temporary file: " + ec.message());
    objectPath = std::string(temporary);
  }
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(objectPath, ec, llvm::sys::fs::OF_None);
    if (ec)
      return fail(objectPath + ": " + ec.message());
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return fail("the host target cannot emit object files");
    codegen.run(*llvmModule);
  }
  if (emit == Emit::Object)
    return 0;

  std::string linker = findLinker();
  if (linker.empty()) {
    llvm::sys::fs::remove(objectPath);
    return fail("no C++ compiler on PATH to link the library (set CXX, or "
                "use --emit=obj and link it yourself)");
  }
  llvm::SmallVector<llvm::StringRef> linkArgs = {
      linker, "-shared", "-o", outputPath, objectPath};
  std::string linkError;
  int status = llvm::sys::ExecuteAndWait(linker, linkArgs, std::nullopt, {}, 0,
                                         0, &linkError);
  llvm::sys::fs::remove(objectPath);
  if (status != 0)
    return fail("linking " + outputPath + " with " + linker + " failed" +
                (linkError.empty() ? "" : ": " + linkError));
  return 0;
}
