//===- CpuRunner.cpp - JIT-compile and run sezm programs on the CPU -------===//
//
// Arguments and results cross as memref descriptors through the packed
// wrapper the ExecutionEngine makes for every function: one pointer per
// scalar of each argument descriptor (allocated and aligned pointers,
// offset, sizes, strides), then one pointer to the returned struct of
// result descriptors.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Execution/CpuRunner.h"

#include "SeZM/Conversion/Passes.h"
#include "SeZM/Support/HostMemory.h"
#include "SeZM/Support/MemRefABI.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdlib>
#include <set>

using namespace mlir;

using namespace mlir::sezm;
using sezmrt::EntrySignature;
using sezmrt::HostTensor;
using sezmrt::TensorPort;

CpuProgram::~CpuProgram() = default;

llvm::Expected<std::unique_ptr<CpuProgram>>
CpuProgram::compile(OwningOpRef<ModuleOp> module, ArrayRef<std::string> entries,
                    bool fuse, bool recomputeStacks, int64_t edgeChunk) {
  std::unique_ptr<CpuProgram> program(new CpuProgram());
  std::vector<std::string> names(entries.begin(), entries.end());
  if (names.empty())
    for (auto func : module->getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        names.push_back(func.getSymName().str());
  for (const std::string &name : names) {
    auto signature = getEntrySignature(*module, name);
    if (!signature)
      return signature.takeError();
    program->signatures.push_back(std::move(*signature));
  }

  MLIRContext *context = module->getContext();
  std::string diagnostics;
  {
    ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
      llvm::raw_string_ostream os(diagnostics);
      os << diag.getLocation() << ": " << diag << "\n";
      return success();
    });
    PassManager pm(context);
    SeZMPipelineOptions pipeline;
    pipeline.fuse = fuse;
    pipeline.recomputeStacks = recomputeStacks;
    pipeline.edgeChunk = edgeChunk;
    buildSeZMPipeline(pm, pipeline);
    if (failed(pm.run(*module)))
      return llvm::createStringError("lowering for the CPU failed:\n" +
                                     diagnostics);
  }

  static bool targetsReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetsReady;
  DialectRegistry registry;
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  context->appendDialectRegistry(registry);

  auto transformer = makeOptimizingTransformer(/*optLevel=*/2,
                                               /*sizeLevel=*/0,
                                               /*targetMachine=*/nullptr);
  ExecutionEngineOptions options;
  options.transformer = transformer;
  // The threads of the kernels' outer loops.
  llvm::StringRef openmp = SEZM_OPENMP_LIBRARY;
  options.sharedLibPaths = openmp;
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine)
    return engine.takeError();
  (*engine)->registerSymbols([](llvm::orc::MangleAndInterner intern) {
    llvm::orc::SymbolMap symbols;
    auto add = [&](const char *name, auto *function) {
      symbols[intern(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                               llvm::JITSymbolFlags::Exported};
    };
    add("memrefCopy", &memrefCopy);
    add("_mlir_memref_to_llvm_alloc", &_mlir_memref_to_llvm_alloc);
    add("_mlir_memref_to_llvm_aligned_alloc",
        &_mlir_memref_to_llvm_aligned_alloc);
    add("_mlir_memref_to_llvm_free", &_mlir_memref_to_llvm_free);
    return symbols;
  });
  program->engine = std::move(*engine);
  return program;
}

const EntrySignature *CpuProgram::signature(StringRef entry) const {
  for (const EntrySignature &signature : signatures)
    if (signature.function == entry)
      return &signature;
  return nullptr;
}

llvm::Expected<std::vector<HostTensor>>
CpuProgram::run(StringRef entry, const std::vector<HostTensor> &inputs) const {
  const EntrySignature *found = signature(entry);
  if (!found)
    return llvm::createStringError("no compiled entry '" + entry.str() + "'");
  const EntrySignature &entrySignature = *found;
  std::string inputError = entrySignature.checkInputs(inputs);
  if (!inputError.empty())
    return llvm::createStringError(inputError);

  // The inputs' own buffers, read in place.
  std::vector<sezmrt::MemRefDescriptor> arguments;
  for (const HostTensor &input : inputs)
    arguments.push_back(sezmrt::MemRefDescriptor::contiguous(
        const_cast<unsigned char *>(input.bytes.data()), input.shape));
  std::vector<size_t> ranks;
  for (const TensorPort &port : entrySignature.results)
    ranks.push_back(port.shape.size());
  sezmrt::PackedCall call(std::move(arguments), ranks);

  if (llvm::Error error = engine->invokePacked(
          entrySignature.function, {call.pointers(), call.numPointers()}))
    return std::move(error);

  std::set<void *> inputBuffers, freed;
  for (const sezmrt::MemRefDescriptor &d : call.arguments())
    inputBuffers.insert(d.allocated);
  std::vector<HostTensor> outputs;
  std::vector<sezmrt::MemRefDescriptor> results = call.results();
  for (size_t i = 0; i < results.size(); ++i) {
    const sezmrt::MemRefDescriptor &d = results[i];
    HostTensor out(entrySignature.results[i].type, d.sizes);
    sezmrt::copyStrided(d, sezmrt::elementSize(out.type), out.bytes.data());
    outputs.push_back(std::move(out));
    // Results are fresh allocations the caller owns, unless one is an input
    // handed back or two results share one buffer.
    if (d.allocated && !inputBuffers.count(d.allocated) &&
        freed.insert(d.allocated).second)
      sezmrt::freeHostBuffer(d.allocated);
  }
  return outputs;
}
