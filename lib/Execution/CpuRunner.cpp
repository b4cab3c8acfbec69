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
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdlib>
#include <set>

using namespace mlir;
using namespace mlir::sezm;
using ::sezm::EntrySignature;
using ::sezm::HostTensor;
using ::sezm::TensorPort;

CpuProgram::~CpuProgram() = default;

llvm::Expected<std::unique_ptr<CpuProgram>>
CpuProgram::compile(OwningOpRef<ModuleOp> module,
                    ArrayRef<std::string> entries) {
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
    buildCpuPipeline(pm);
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
  context->appendDialectRegistry(registry);

  auto transformer = makeOptimizingTransformer(/*optLevel=*/2,
                                               /*sizeLevel=*/0,
                                               /*targetMachine=*/nullptr);
  ExecutionEngineOptions options;
  options.transformer = transformer;
  auto engine = ExecutionEngine::create(*module, options);
  if (!engine)
    return engine.takeError();
  program->engine = std::move(*engine);
  return program;
}

namespace {
/// The scalars of one ranked memref descriptor.
struct Descriptor {
  void *allocated;
  void *aligned;
  int64_t offset;
  std::vector<int64_t> sizes, strides;
};
} // namespace

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

  // Argument descriptors: the inputs' own buffers, contiguous strides.
  std::vector<Descriptor> arguments;
  for (const HostTensor &input : inputs) {
    Descriptor d;
    d.allocated = d.aligned =
        const_cast<unsigned char *>(input.bytes.data());
    d.offset = 0;
    d.sizes = input.shape;
    d.strides.assign(input.shape.size(), 1);
    for (int i = static_cast<int>(input.shape.size()) - 2; i >= 0; --i)
      d.strides[i] = d.strides[i + 1] * input.shape[i + 1];
    arguments.push_back(std::move(d));
  }
  std::vector<void *> packed;
  for (Descriptor &d : arguments) {
    packed.push_back(&d.allocated);
    packed.push_back(&d.aligned);
    packed.push_back(&d.offset);
    for (int64_t &size : d.sizes)
      packed.push_back(&size);
    for (int64_t &stride : d.strides)
      packed.push_back(&stride);
  }
  // Results: a struct of descriptors, every field 8 bytes wide.
  size_t resultWords = 0;
  for (const TensorPort &port : entrySignature.results)
    resultWords += 3 + 2 * port.shape.size();
  std::vector<int64_t> resultStorage(resultWords, 0);
  if (!entrySignature.results.empty())
    packed.push_back(resultStorage.data());

  if (llvm::Error error =
          engine->invokePacked(entrySignature.function, packed))
    return std::move(error);

  std::set<void *> inputBuffers, freed;
  for (const Descriptor &d : arguments)
    inputBuffers.insert(d.allocated);
  std::vector<HostTensor> outputs;
  const int64_t *word = resultStorage.data();
  for (const TensorPort &port : entrySignature.results) {
    size_t rank = port.shape.size();
    void *allocated = reinterpret_cast<void *>(word[0]);
    auto *aligned = reinterpret_cast<const unsigned char *>(word[1]);
    int64_t offset = word[2];
    std::vector<int64_t> sizes(word + 3, word + 3 + rank);
    std::vector<int64_t> strides(word + 3 + rank, word + 3 + 2 * rank);
    word += 3 + 2 * rank;

    HostTensor out(port.type, sizes);
    size_t width = ::sezm::elementSize(port.type);
    std::vector<int64_t> index(rank, 0);
    for (int64_t linear = 0; linear < out.numElements(); ++linear) {
      int64_t element = offset;
      for (size_t axis = 0; axis < rank; ++axis)
        element += index[axis] * strides[axis];
      std::memcpy(out.bytes.data() + linear * width, aligned + element * width,
                  width);
      for (int axis = static_cast<int>(rank) - 1; axis >= 0; --axis) {
        if (++index[axis] < sizes[axis])
          break;
        index[axis] = 0;
      }
    }
    outputs.push_back(std::move(out));
    // Results are fresh allocations the caller owns, unless one is an input
    // handed back or two results share one buffer.
    if (allocated && !inputBuffers.count(allocated) &&
        freed.insert(allocated).second)
      std::free(allocated);
  }
  return outputs;
}
