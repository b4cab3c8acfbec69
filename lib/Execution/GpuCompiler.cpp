//===- GpuCompiler.cpp - compile a module into a GPU library --------------===//

#include "SeZM/Execution/GpuCompiler.h"

#include "SeZM/Conversion/Passes.h"
#include "SeZM/Execution/EntrySignature.h"
#include "SeZM/Support/Artifact.h"
#include "SeZM/Support/Safetensors.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
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
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>

using namespace mlir;
using namespace mlir::sezm;

/// void _sezm_packed_<name>(void **args): args[i] points at the i-th
/// parameter of `name`, args[n] at storage for its result.
static void addPackedEntry(llvm::Module &module, llvm::Function &function) {
  llvm::LLVMContext &context = module.getContext();
  auto *pointer = llvm::PointerType::getUnqual(context);
  auto *type =
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), {pointer}, false);
  auto *wrapper =
      llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                             "_sezm_packed_" + function.getName(), module);
  llvm::IRBuilder<> builder(
      llvm::BasicBlock::Create(context, "entry", wrapper));
  llvm::Value *slots = wrapper->getArg(0);
  llvm::SmallVector<llvm::Value *> args;
  for (llvm::Argument &param : function.args()) {
    llvm::Value *slot =
        builder.CreateGEP(pointer, slots, builder.getInt64(param.getArgNo()));
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

namespace {
/// The chips sezm compiles for and the PTX ISA version each needs.
const std::pair<const char *, const char *> kChips[] = {{"sm_80", "+ptx70"},
                                                        {"sm_86", "+ptx71"},
                                                        {"sm_89", "+ptx78"},
                                                        {"sm_90", "+ptx80"}};

const char *ptxFeatures(llvm::StringRef chip) {
  for (auto [name, features] : kChips)
    if (chip == name)
      return features;
  return nullptr;
}
} // namespace

llvm::Error sezm::checkChip(llvm::StringRef chip) {
  if (ptxFeatures(chip))
    return llvm::Error::success();
  std::string known;
  for (auto [name, features] : kChips)
    known += (known.empty() ? "" : ", ") + std::string(name);
  return llvm::createStringError("unsupported chip '" + chip.str() +
                                 "' (supported: " + known + ")");
}

void sezm::registerGpuCompilerInterfaces(DialectRegistry &registry) {
  registerAllToLLVMIRTranslations(registry);
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
}

/// ptxas from $CUDA_HOME/bin, /usr/local/cuda/bin or PATH; empty if none.
static std::string findPtxas() {
  llvm::SmallVector<llvm::StringRef> folders;
  std::string cudaHome;
  if (const char *home = std::getenv("CUDA_HOME"))
    cudaHome = std::string(home) + "/bin";
  if (!cudaHome.empty())
    folders.push_back(cudaHome);
  folders.push_back("/usr/local/cuda/bin");
  if (auto path = llvm::sys::findProgramByName("ptxas", folders))
    return *path;
  if (auto path = llvm::sys::findProgramByName("ptxas"))
    return *path;
  return std::string();
}

/// Adds `cubin/<module>` beside each `ptx/<module>` section, assembled by
/// ptxas for `chip`, so that the runtime loads machine code instead of
/// JIT-compiling the PTX on a GPU of that chip. Without ptxas the artifact
/// carries PTX alone.
static llvm::Error addCubins(sezmrt::Artifact &contents, llvm::StringRef chip) {
  std::string ptxas = findPtxas();
  if (ptxas.empty())
    return llvm::Error::success();
  llvm::SmallString<128> ptxPath, cubinPath;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("sezm", "ptx", ptxPath))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  llvm::FileRemover removePtx(ptxPath);
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("sezm", "cubin", cubinPath))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  llvm::FileRemover removeCubin(cubinPath);
  std::string arch = ("-arch=" + chip).str();
  std::map<std::string, std::string> cubins;
  for (const auto &[name, text] : contents.sections) {
    if (!llvm::StringRef(name).starts_with("ptx/"))
      continue;
    {
      std::error_code ec;
      llvm::raw_fd_ostream os(ptxPath, ec, llvm::sys::fs::OF_None);
      if (ec)
        return llvm::createStringError(ptxPath.str() + ": " + ec.message());
      os << text;
    }
    llvm::SmallVector<llvm::StringRef> args = {ptxas,   arch, "-O3",
                                               ptxPath, "-o", cubinPath};
    std::string message;
    if (llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, {}, 0, 0,
                                  &message) != 0)
      return llvm::createStringError(
          "ptxas rejected the PTX of kernel module '" + name.substr(4) + "'" +
          (message.empty() ? "" : ": " + message));
    std::string cubin, error;
    if (!sezmrt::readFileBytes(std::string(cubinPath), cubin, error))
      return llvm::createStringError(error);
    cubins["cubin/" + name.substr(4)] = std::move(cubin);
  }
  contents.sections.insert(cubins.begin(), cubins.end());
  return llvm::Error::success();
}

/// Checks that every weight names an input of some entry, with its type
/// and shape (dynamic extents match any).
static llvm::Error
checkWeights(const std::string &bytes,
             const std::vector<sezmrt::EntrySignature> &entries) {
  std::map<std::string, sezmrt::HostTensor> weights;
  std::string error;
  if (!sezmrt::parseSafetensors(bytes, weights, error))
    return llvm::createStringError(error);
  for (const auto &[name, tensor] : weights) {
    bool named = false;
    for (const sezmrt::EntrySignature &entry : entries)
      for (const sezmrt::TensorPort &port : entry.arguments) {
        if (port.name != name)
          continue;
        named = true;
        if (!port.accepts(tensor))
          return llvm::createStringError(
              "weight '" + name + "' is " + tensor.describe() + ", but @" +
              entry.function + " takes " + port.describe());
      }
    if (!named)
      return llvm::createStringError("weight '" + name +
                                     "' is no input of any entry");
  }
  return llvm::Error::success();
}

llvm::Error sezm::compileForGpu(ModuleOp module,
                                const GpuCompileOptions &options,
                                llvm::StringRef outputPath) {
  if (llvm::Error error = checkChip(options.chip))
    return error;
  // libdevice (math functions in kernels) comes from the CUDA toolkit.
  if (!std::getenv("CUDA_HOME") && llvm::sys::fs::exists("/usr/local/cuda"))
    setenv("CUDA_HOME", "/usr/local/cuda", 0);

  std::vector<sezmrt::EntrySignature> entries;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    auto signature = getEntrySignature(module, func.getSymName());
    if (!signature)
      return signature.takeError();
    entries.push_back(std::move(*signature));
  }
  if (entries.empty())
    return llvm::createStringError("the module has no public function");

  // Names are for the manifest; LLVM has no use for them.
  for (auto func : module.getOps<func::FuncOp>()) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      func.removeArgAttr(i, kNameAttr);
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      func.removeResultAttr(i, StringAttr::get(func.getContext(), kNameAttr));
  }
  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
      llvm::raw_string_ostream os(diagnostics);
      os << diag.getLocation() << ": " << diag << "\n";
      return success();
    });
    PassManager pm(module.getContext());
    SeZMPipelineOptions pipeline;
    pipeline.target = "gpu";
    pipeline.chip = options.chip;
    pipeline.features = ptxFeatures(options.chip);
    pipeline.fuse = options.fuse;
    buildSeZMPipeline(pm, pipeline);
    if (failed(pm.run(module)))
      return llvm::createStringError("lowering for the GPU failed:\n" +
                                     diagnostics);
  }

  bool artifact = options.emit == GpuCompileOptions::Emit::Artifact;
  sezmrt::Artifact contents;
  if (artifact) {
    contents.sections[sezmrt::kManifestSection] =
        sezmrt::writeManifest(entries);
    for (auto binary : module.getOps<gpu::BinaryOp>())
      for (Attribute object : binary.getObjects())
        contents.sections["ptx/" + binary.getName().str()] =
            cast<gpu::ObjectAttr>(object).getObject().getValue().str();
    // The memory plan's remarks, one line per function.
    std::string plan;
    for (llvm::StringRef line : llvm::split(diagnostics, '\n'))
      if (line.contains("planned peak"))
        plan += line.str() + "\n";
    contents.sections["memory-plan"] = plan;
    if (!options.weightsPath.empty() || !options.weights.empty()) {
      std::string weights = options.weights, error;
      if (!options.weightsPath.empty() &&
          !sezmrt::readFileBytes(options.weightsPath, weights, error))
        return llvm::createStringError(error);
      if (llvm::Error weightsError = checkWeights(weights, entries))
        return llvm::createStringError(
            (options.weightsPath.empty() ? "the imported weights"
                                         : options.weightsPath) +
            ": " + llvm::toString(std::move(weightsError)));
      contents.sections["weights"] = std::move(weights);
    }
  }

  std::string error;
  if (options.emit == GpuCompileOptions::Emit::PTX) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outputPath))
      return llvm::createStringError(outputPath.str() + ": " + ec.message());
    for (auto binary : module.getOps<gpu::BinaryOp>()) {
      for (Attribute object : binary.getObjects()) {
        llvm::SmallString<256> path(outputPath);
        llvm::sys::path::append(path, binary.getName() + ".ptx");
        auto out = openOutputFile(path, &error);
        if (!out)
          return llvm::createStringError(error);
        out->os() << cast<gpu::ObjectAttr>(object).getObject().getValue();
        out->keep();
      }
    }
    return llvm::Error::success();
  }

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return llvm::createStringError("translation to LLVM IR failed");
  for (const sezmrt::EntrySignature &entry : entries)
    addPackedEntry(*llvmModule, *llvmModule->getFunction(entry.function));
  addManifest(*llvmModule, sezmrt::writeManifest(entries));

  if (options.emit == GpuCompileOptions::Emit::LLVMIR) {
    auto out = openOutputFile(outputPath, &error);
    if (!out)
      return llvm::createStringError(error);
    llvmModule->print(out->os(), nullptr);
    out->keep();
    return llvm::Error::success();
  }

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError(error);
  // A portable x86-64 baseline: the library may run on another machine.
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, "x86-64", "", llvm::TargetOptions(), llvm::Reloc::PIC_));
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);

  // A file in the temporary folder, for what the output is made of.
  auto temporaryFile = [](llvm::StringRef suffix,
                          std::string &path) -> llvm::Error {
    llvm::SmallString<128> temporary;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("sezm", suffix, temporary))
      return llvm::createStringError("cannot create a temporary file: " +
                                     ec.message());
    path = std::string(temporary);
    return llvm::Error::success();
  };
  std::string objectPath = outputPath.str();
  bool library = options.emit == GpuCompileOptions::Emit::Library || artifact;
  if (library)
    if (llvm::Error error = temporaryFile("o", objectPath))
      return error;
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(objectPath, ec, llvm::sys::fs::OF_None);
    if (ec)
      return llvm::createStringError(objectPath + ": " + ec.message());
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return llvm::createStringError("the host target cannot emit objects");
    codegen.run(*llvmModule);
  }
  if (!library)
    return llvm::Error::success();

  std::string linker = findLinker();
  if (linker.empty()) {
    llvm::sys::fs::remove(objectPath);
    return llvm::createStringError(
        "no C++ compiler on PATH to link the library (set CXX, or emit an "
        "object and link it yourself)");
  }
  std::string output = outputPath.str();
  if (artifact)
    if (llvm::Error error = temporaryFile("so", output)) {
      llvm::sys::fs::remove(objectPath);
      return error;
    }
  llvm::SmallVector<llvm::StringRef> linkArgs = {linker, "-shared", "-o",
                                                 output, objectPath};
  std::string linkError;
  int status = llvm::sys::ExecuteAndWait(linker, linkArgs, std::nullopt, {}, 0,
                                         0, &linkError);
  llvm::sys::fs::remove(objectPath);
  if (status != 0)
    return llvm::createStringError("linking " + output + " with " + linker +
                                   " failed" +
                                   (linkError.empty() ? "" : ": " + linkError));
  if (!artifact)
    return llvm::Error::success();
  std::string host;
  bool read = sezmrt::readFileBytes(output, host, error);
  llvm::sys::fs::remove(output);
  if (!read)
    return llvm::createStringError(error);
  contents.sections[sezmrt::kHostSection] = std::move(host);
  if (llvm::Error cubinError = addCubins(contents, options.chip))
    return cubinError;
  auto out = openOutputFile(outputPath, &error);
  if (!out)
    return llvm::createStringError(error);
  out->os() << sezmrt::writeArtifact(contents);
  out->keep();
  return llvm::Error::success();
}
