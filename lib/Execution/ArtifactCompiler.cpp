//===- ArtifactCompiler.cpp - compile a module into an artifact -----------===//

#include "SeZM/Execution/ArtifactCompiler.h"

#include "SeZM/Conversion/Passes.h"
#include "SeZM/Execution/EntrySignature.h"
#include "SeZM/Support/Artifact.h"
#include "SeZM/Support/MemoryPlan.h"
#include "SeZM/Support/Safetensors.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <chrono>
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

void sezm::registerArtifactCompilerInterfaces(DialectRegistry &registry) {
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
  // One ptxas per kernel module, as many at once as there are cores.
  struct Job {
    std::string module;
    llvm::SmallString<128> ptxPath, cubinPath;
    llvm::sys::ProcessInfo process;
    bool started = false;
  };
  std::vector<std::unique_ptr<Job>> jobs;
  std::string arch = ("-arch=" + chip).str();
  auto removeFiles = [&] {
    for (const std::unique_ptr<Job> &job : jobs) {
      llvm::sys::fs::remove(job->ptxPath);
      llvm::sys::fs::remove(job->cubinPath);
    }
  };
  for (const auto &[name, text] : contents.sections) {
    if (!llvm::StringRef(name).starts_with("ptx/"))
      continue;
    auto job = std::make_unique<Job>();
    job->module = name.substr(4);
    jobs.push_back(std::move(job));
    Job &last = *jobs.back();
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("sezm", "ptx", last.ptxPath)) {
      removeFiles();
      return llvm::createStringError("cannot create a temporary file: " +
                                     ec.message());
    }
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "sezm", "cubin", last.cubinPath)) {
      removeFiles();
      return llvm::createStringError("cannot create a temporary file: " +
                                     ec.message());
    }
    std::error_code ec;
    llvm::raw_fd_ostream os(last.ptxPath, ec, llvm::sys::fs::OF_None);
    if (ec) {
      removeFiles();
      return llvm::createStringError(last.ptxPath.str() + ": " + ec.message());
    }
    os << text;
  }
  const size_t parallel =
      std::max(1u, llvm::hardware_concurrency().compute_thread_count());
  std::string failure;
  // Waits for a job's ptxas and reads its cubin.
  std::map<std::string, std::string> cubins;
  auto finish = [&](Job &job) {
    if (!job.started)
      return;
    std::string message;
    llvm::sys::ProcessInfo done =
        llvm::sys::Wait(job.process, /*SecondsToWait=*/std::nullopt, &message);
    if (!failure.empty())
      return;
    if (done.ReturnCode != 0) {
      failure = "ptxas rejected the PTX of kernel module '" + job.module + "'" +
                (message.empty() ? "" : ": " + message);
      return;
    }
    std::string cubin, error;
    if (!sezmrt::readFileBytes(std::string(job.cubinPath), cubin, error)) {
      failure = error;
      return;
    }
    cubins["cubin/" + job.module] = std::move(cubin);
  };
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (i >= parallel)
      finish(*jobs[i - parallel]);
    Job &job = *jobs[i];
    llvm::SmallVector<llvm::StringRef> args = {
        ptxas, arch, "-O3", job.ptxPath, "-o", job.cubinPath};
    std::string message;
    bool failed = false;
    job.process = llvm::sys::ExecuteNoWait(ptxas, args, std::nullopt, {}, 0,
                                           &message, &failed);
    job.started = !failed;
    if (failed && failure.empty())
      failure = "cannot run " + ptxas + ": " + message;
  }
  for (size_t i = jobs.size() > parallel ? jobs.size() - parallel : 0;
       i < jobs.size(); ++i)
    finish(*jobs[i]);
  removeFiles();
  if (!failure.empty())
    return llvm::createStringError(failure);
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

/// CUDA's root folder: $CUDA_HOME, or /usr/local/cuda where it exists.
static std::string cudaHome() {
  if (const char *home = std::getenv("CUDA_HOME"))
    return home;
  return llvm::sys::fs::exists("/usr/local/cuda") ? "/usr/local/cuda" : "";
}

bool sezm::gpuToolchainAvailable(std::string &why) {
  std::string home = cudaHome();
  if (home.empty()) {
    why = "no CUDA toolkit (set CUDA_HOME, or install it in /usr/local/cuda)";
    return false;
  }
  llvm::SmallString<256> libdevice(home);
  llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
  if (!llvm::sys::fs::exists(libdevice)) {
    why = "no " + std::string(libdevice) + " in the CUDA toolkit";
    return false;
  }
  return true;
}

/// The x86-64 level the CPU code is compiled for: x86-64-v3 (AVX2, FMA)
/// where the compiling machine has it, which the runtime checks before it
/// loads the code; the portable baseline otherwise.
static std::string cpuLevel() {
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
  for (const char *feature : {"avx2", "fma", "bmi2", "f16c", "movbe"})
    if (!features.lookup(feature))
      return "x86-64";
  return "x86-64-v3";
}

namespace {
/// Reports a phase's wall time on stderr when it ends, if asked to.
class PhaseTimer {
public:
  PhaseTimer(const CompileOptions &options, llvm::StringRef phase)
      : enabled(options.timing), phase(phase),
        start(std::chrono::steady_clock::now()) {}
  ~PhaseTimer() {
    if (!enabled)
      return;
    std::chrono::duration<double> elapsed =
        std::chrono::steady_clock::now() - start;
    llvm::errs() << llvm::format("sezm-compile: %-36s %8.2f s\n",
                                 phase.str().c_str(), elapsed.count());
  }

private:
  bool enabled;
  llvm::StringRef phase;
  std::chrono::steady_clock::time_point start;
};

/// One device's program, lowered to the LLVM dialect.
struct LoweredProgram {
  bool forGpu;
  OwningOpRef<ModuleOp> module;
  /// The memory plan's remarks, one line per function.
  std::string plan;
};
} // namespace

/// `file:line:col` where the location has one, as compilers print it.
static void printLocation(llvm::raw_ostream &os, Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    os << file.getFilename().getValue() << ":" << file.getLine() << ":"
       << file.getColumn();
  else
    os << loc;
}

/// Runs the pipeline of one device on `module`.
static llvm::Error lower(ModuleOp module, bool forGpu,
                         const CompileOptions &options, std::string &plan) {
  std::string diagnostics;
  ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &diag) {
    llvm::raw_string_ostream os(diagnostics);
    printLocation(os, diag.getLocation());
    os << ": " << diag << "\n";
    return success();
  });
  PassManager pm(module.getContext());
  pm.enableVerifier(options.verifyEach);
  SeZMPipelineOptions pipeline;
  pipeline.target = forGpu ? "gpu" : "cpu";
  pipeline.chip = options.chip;
  if (forGpu)
    pipeline.features = ptxFeatures(options.chip);
  pipeline.fuse = options.fuse;
  pipeline.recomputeStacks = options.recomputeStacks;
  pipeline.edgeChunk = options.edgeChunk;
  pipeline.gemmPrecision = stringifyGemmPrecision(options.gemmPrecision).str();
  buildSeZMPipeline(pm, pipeline);
  if (options.timing)
    pm.enableTiming();
  if (failed(pm.run(module)) || (!options.verifyEach && failed(verify(module))))
    return llvm::createStringError(std::string("lowering for the ") +
                                   (forGpu ? "GPU" : "CPU") + " failed:\n" +
                                   diagnostics);
  for (llvm::StringRef line : llvm::split(diagnostics, '\n')) {
    if (line.contains("planned peak"))
      plan += line.str() + "\n";
    if (options.refusedFusions && line.contains("not fused"))
      *options.refusedFusions << "warning: " << (forGpu ? "GPU" : "CPU")
                              << " lowering: " << line << "\n";
  }
  return llvm::Error::success();
}

/// Each entry argument whose axes the ops' shape contracts make graph sizes
/// (N, E, N+1) gets them as `sezm.extents` where it has none, so that the
/// memory plan is stated in N and E (sezm-run --plan evaluates it).
static void nameGraphExtents(ModuleOp module,
                             ArrayRef<sezmrt::EntrySignature> entries) {
  for (const sezmrt::EntrySignature &entry : entries) {
    auto func = module.lookupSymbol<func::FuncOp>(entry.function);
    if (!func)
      continue;
    std::map<int, SmallVector<std::string>> named;
    for (const sezmrt::OpContract &contract : entry.contracts)
      for (const auto &[symbol, extents] : contract.extents)
        for (const sezmrt::GraphExtent &extent : extents) {
          auto type =
              dyn_cast<ShapedType>(func.getArgument(extent.argument).getType());
          if (!type || func.getArgAttr(extent.argument, kExtentsAttr) ||
              extent.axis >= type.getRank())
            continue;
          SmallVector<std::string> &names = named[extent.argument];
          names.resize(type.getRank());
          if (names[extent.axis].empty())
            names[extent.axis] =
                symbol + (extent.offset > 0
                              ? "+" + std::to_string(extent.offset)
                          : extent.offset < 0 ? std::to_string(extent.offset)
                                              : "");
        }
    Builder builder(func.getContext());
    for (const auto &[argument, names] : named) {
      SmallVector<Attribute> attributes;
      for (const std::string &name : names)
        attributes.push_back(builder.getStringAttr(name));
      func.setArgAttr(argument, kExtentsAttr, builder.getArrayAttr(attributes));
    }
  }
}

/// A file in the temporary folder, for what an output is made of.
static llvm::Error temporaryFile(llvm::StringRef suffix, std::string &path) {
  llvm::SmallString<128> temporary;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("sezm", suffix, temporary))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  path = std::string(temporary);
  return llvm::Error::success();
}

/// Writes `module`'s object code for `machine` to `path`.
static llvm::Error emitObject(llvm::Module &module,
                              llvm::TargetMachine &machine,
                              const std::string &path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError(path + ": " + ec.message());
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError("the host target cannot emit objects");
  codegen.run(module);
  return llvm::Error::success();
}

/// The parts the CPU library's code is optimized and generated in, side by
/// side: a count of its own, so that the library does not depend on the
/// cores of the machine that compiles it.
constexpr unsigned kCodeParts = 8;

/// The CPU's code of `module` (not yet optimized) as kCodeParts objects:
/// split by function (the entries call the outlined loop bodies through the
/// OpenMP runtime, so little inlining crosses parts), each part in a context
/// of its own, optimized (O3) and compiled for `level` on its own thread.
static llvm::Error
compileInParts(llvm::Module &module, const llvm::Target *target,
               const llvm::Triple &triple, const std::string &level,
               llvm::function_ref<llvm::Error(std::string &)> temporaryObject,
               std::vector<std::string> &objectPaths) {
  std::vector<llvm::SmallString<0>> parts;
  llvm::SplitModule(module, kCodeParts,
                    [&](std::unique_ptr<llvm::Module> part) {
                      llvm::raw_svector_ostream os(parts.emplace_back());
                      llvm::WriteBitcodeToFile(*part, os);
                    });
  objectPaths.assign(parts.size(), std::string());
  for (std::string &path : objectPaths)
    if (llvm::Error error = temporaryObject(path))
      return error;
  std::vector<std::string> failures(parts.size());
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(kCodeParts));
  for (size_t i = 0; i < parts.size(); ++i)
    pool.async([&, i] {
      llvm::LLVMContext context;
      llvm::Expected<std::unique_ptr<llvm::Module>> part =
          llvm::parseBitcodeFile(
              llvm::MemoryBufferRef(
                  llvm::StringRef(parts[i].data(), parts[i].size()), "part"),
              context);
      if (!part) {
        failures[i] = llvm::toString(part.takeError());
        return;
      }
      std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
          triple, level, "", llvm::TargetOptions(), llvm::Reloc::PIC_,
          std::nullopt, llvm::CodeGenOptLevel::Aggressive));
      (*part)->setDataLayout(machine->createDataLayout());
      if (llvm::Error error = makeOptimizingTransformer(
              /*optLevel=*/3, /*sizeLevel=*/0, machine.get())(part->get())) {
        failures[i] = llvm::toString(std::move(error));
        return;
      }
      if (llvm::Error error = emitObject(**part, *machine, objectPaths[i]))
        failures[i] = llvm::toString(std::move(error));
    });
  pool.wait();
  for (const std::string &failure : failures)
    if (!failure.empty())
      return llvm::createStringError("compiling the CPU code: " + failure);
  return llvm::Error::success();
}

/// Writes a lowered program's host code as `emit` (LLVM IR, an object or a
/// shared library) to `outputPath`. The GPU's host code is a launch sequence
/// and is compiled for the portable x86-64 baseline as it stands, without
/// optimizing code generation (its time goes to the driver calls); the CPU's
/// is the whole computation, optimized (O3, vectorized) for `cpuLevel()`
/// and linked against the OpenMP runtime.
static llvm::Error
writeHostCode(ModuleOp lowered, bool forGpu,
              const std::vector<sezmrt::EntrySignature> &entries,
              CompileOptions::Emit emit, const std::string &outputPath) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(lowered, llvmContext);
  if (!llvmModule)
    return llvm::createStringError("translation to LLVM IR failed");
  for (const sezmrt::EntrySignature &entry : entries)
    addPackedEntry(*llvmModule, *llvmModule->getFunction(entry.function));
  addManifest(*llvmModule, sezmrt::writeManifest(entries));

  std::string error;
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return llvm::createStringError(error);
  std::string level = forGpu ? "x86-64" : cpuLevel();
  llvm::TargetOptions targetOptions;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, level, "", targetOptions, llvm::Reloc::PIC_, std::nullopt,
      forGpu ? llvm::CodeGenOptLevel::None
             : llvm::CodeGenOptLevel::Aggressive));
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);
  // The CPU library's code is optimized in its parts (compileInParts).
  bool inParts = !forGpu && emit == CompileOptions::Emit::Library;
  if (!forGpu && !inParts)
    if (llvm::Error error = makeOptimizingTransformer(
            /*optLevel=*/3, /*sizeLevel=*/0, machine.get())(llvmModule.get()))
      return error;

  if (emit == CompileOptions::Emit::LLVMIR) {
    auto out = openOutputFile(outputPath, &error);
    if (!out)
      return llvm::createStringError(error);
    llvmModule->print(out->os(), nullptr);
    out->keep();
    return llvm::Error::success();
  }

  bool library = emit != CompileOptions::Emit::Object;
  // A library's objects are temporary files, removed however this returns.
  std::vector<std::unique_ptr<llvm::FileRemover>> removeObjects;
  auto temporaryObject = [&](std::string &path) -> llvm::Error {
    if (llvm::Error error = temporaryFile("o", path))
      return error;
    removeObjects.push_back(std::make_unique<llvm::FileRemover>(path));
    return llvm::Error::success();
  };
  std::vector<std::string> objectPaths;
  if (inParts) {
    if (llvm::Error error = compileInParts(*llvmModule, target, triple, level,
                                           temporaryObject, objectPaths))
      return error;
  } else {
    objectPaths.push_back(outputPath);
    if (library)
      if (llvm::Error error = temporaryObject(objectPaths.back()))
        return error;
    if (llvm::Error error =
            emitObject(*llvmModule, *machine, objectPaths.back()))
      return error;
  }
  if (!library)
    return llvm::Error::success();

  std::string linker = findLinker();
  if (linker.empty())
    return llvm::createStringError(
        "no C++ compiler on PATH to link the library (set CXX, or emit an "
        "object and link it yourself)");
  llvm::SmallVector<llvm::StringRef> linkArgs = {linker, "-shared", "-o",
                                                 outputPath};
  for (const std::string &path : objectPaths)
    linkArgs.push_back(path);
  // The CPU code's threads: the OpenMP runtime sezm was built with.
  if (!forGpu)
    linkArgs.push_back(SEZM_OPENMP_LIBRARY);
  std::string linkError;
  int status = llvm::sys::ExecuteAndWait(linker, linkArgs, std::nullopt, {}, 0,
                                         0, &linkError);
  if (status != 0)
    return llvm::createStringError("linking " + outputPath + " with " + linker +
                                   " failed" +
                                   (linkError.empty() ? "" : ": " + linkError));
  return llvm::Error::success();
}

/// A lowered program's shared library, as bytes for an artifact section.
static llvm::Expected<std::string>
hostLibrary(ModuleOp lowered, bool forGpu,
            const std::vector<sezmrt::EntrySignature> &entries) {
  std::string path, bytes, error;
  if (llvm::Error error = temporaryFile("so", path))
    return std::move(error);
  llvm::FileRemover remove(path);
  if (llvm::Error error = writeHostCode(lowered, forGpu, entries,
                                        CompileOptions::Emit::Library, path))
    return std::move(error);
  if (!sezmrt::readFileBytes(path, bytes, error))
    return llvm::createStringError(error);
  return bytes;
}

llvm::Error sezm::compileArtifact(ModuleOp module,
                                  const CompileOptions &options,
                                  llvm::StringRef outputPath) {
  using Target = CompileOptions::Target;
  using Emit = CompileOptions::Emit;
  bool gpu = options.target != Target::Cpu;
  bool cpu = options.target != Target::Gpu;
  bool artifact = options.emit == Emit::Artifact;
  if (!artifact && gpu && cpu)
    return llvm::createStringError(
        "--emit of a library, an object or LLVM IR is for one target: give "
        "--target cpu or --target gpu");
  if (options.emit == Emit::PTX && !gpu)
    return llvm::createStringError("--emit=ptx is the GPU's: give "
                                   "--target gpu");
  if (options.gemmPrecision == GemmPrecision::TF32x3 && !gpu)
    return llvm::createStringError(
        "--gemm-precision=tf32x3 is for the GPU's tensor cores: give "
        "--target gpu or all (the CPU code stays IEEE fp32)");
  if (gpu) {
    if (llvm::Error error = checkChip(options.chip))
      return error;
    std::string why;
    if (!gpuToolchainAvailable(why))
      return llvm::createStringError(
          "cannot compile for the GPU: " + why +
          (cpu ? " (--target cpu compiles the CPU code alone)" : ""));
    // libdevice (math functions in kernels) comes from the CUDA toolkit.
    setenv("CUDA_HOME", cudaHome().c_str(), 0);
  }

  std::vector<sezmrt::EntrySignature> entries;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    auto signature = getEntrySignature(module, func.getSymName());
    if (!signature)
      return signature.takeError();
    if (gpu && options.gemmPrecision != GemmPrecision::IEEE)
      signature->gemmPrecision =
          stringifyGemmPrecision(options.gemmPrecision).str();
    entries.push_back(std::move(*signature));
  }
  if (entries.empty())
    return llvm::createStringError("the module has no public function");
  nameGraphExtents(module, entries);

  // Each target lowers a copy when both are built (the last the module).
  sezmrt::Artifact contents;
  std::string plan;
  if (cpu) {
    OwningOpRef<ModuleOp> copy;
    ModuleOp target = module;
    if (gpu) {
      copy = module.clone();
      target = *copy;
    }
    std::string cpuPlan;
    {
      PhaseTimer timer(options, "CPU: passes");
      if (llvm::Error error = lower(target, /*forGpu=*/false, options, cpuPlan))
        return error;
    }
    if (!artifact)
      return writeHostCode(target, /*forGpu=*/false, entries, options.emit,
                           outputPath.str());
    PhaseTimer timer(options, "CPU: code generation (O3) and link");
    auto library = hostLibrary(target, /*forGpu=*/false, entries);
    if (!library)
      return library.takeError();
    contents.sections[sezmrt::kCpuSection] = std::move(*library);
    contents.sections[sezmrt::kCpuLevelSection] = cpuLevel();
    plan = cpuPlan;
  }
  if (gpu) {
    plan.clear();
    {
      PhaseTimer timer(options, "GPU: passes (kernels to PTX)");
      if (llvm::Error error = lower(module, /*forGpu=*/true, options, plan))
        return error;
    }
    if (options.emit == Emit::PTX) {
      std::string error;
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
    if (!artifact)
      return writeHostCode(module, /*forGpu=*/true, entries, options.emit,
                           outputPath.str());
    for (auto binary : module.getOps<gpu::BinaryOp>())
      for (Attribute object : binary.getObjects())
        contents.sections["ptx/" + binary.getName().str()] =
            cast<gpu::ObjectAttr>(object).getObject().getValue().str();
    {
      PhaseTimer timer(options, "GPU: host code generation and link");
      auto library = hostLibrary(module, /*forGpu=*/true, entries);
      if (!library)
        return library.takeError();
      contents.sections[sezmrt::kHostSection] = std::move(*library);
    }
    PhaseTimer timer(options, "GPU: ptxas");
    if (llvm::Error cubinError = addCubins(contents, options.chip))
      return cubinError;
  }

  contents.sections[sezmrt::kManifestSection] = sezmrt::writeManifest(entries);
  contents.sections[sezmrt::kMemoryPlanSection] = plan;
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
  std::string error;
  auto out = openOutputFile(outputPath, &error);
  if (!out)
    return llvm::createStringError(error);
  out->os() << sezmrt::writeArtifact(contents);
  out->keep();
  return llvm::Error::success();
}
