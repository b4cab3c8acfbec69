//===- sezm-run.cpp - run a sezm program ----------------------------------===//
//
// sezm-run MODULE.mlir --entry FUNC --input NAME=FILE.npy ... --output-dir DIR
//
// Compiles the entry function of a sezm module, binds its arguments to .npy
// files by name, runs it and writes each result to DIR/<name>.npy.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Conversion/Passes.h"
#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "SeZM/Execution/CpuRunner.h"
#include "SeZM/Support/Npy.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <map>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("sezm-run options");

static cl::opt<std::string> modulePath(cl::Positional, cl::Required,
                                       cl::desc("<module.mlir>"),
                                       cl::cat(category));
static cl::opt<std::string>
    entry("entry",
          cl::desc("Function to run (default: the module's only public one)"),
          cl::value_desc("name"), cl::cat(category));
static cl::list<std::string>
    inputs("input",
           cl::desc("Bind an argument to a .npy file (float32, float64, "
                    "int32 or int64, C order); repeat for each argument"),
           cl::value_desc("name=file.npy"), cl::cat(category));
static cl::opt<std::string>
    outputDir("output-dir",
              cl::desc("Write each result to <dir>/<name>.npy"),
              cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string>
    device("device", cl::desc("Where to run: cpu (the default)"),
           cl::value_desc("cpu"), cl::init("cpu"), cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "sezm-run") << message << "\n";
  return 1;
}

static int fail(llvm::Error error) {
  std::string message = llvm::toString(std::move(error));
  return fail(message);
}

/// One line per result: name, type and shape, and a few statistics.
static void printSummary(const ::sezm::EntrySignature &signature,
                         const std::vector<::sezm::HostTensor> &outputs) {
  llvm::outs() << "@" << signature.function << " ran on the CPU\n";
  for (size_t i = 0; i < outputs.size(); ++i) {
    const ::sezm::HostTensor &out = outputs[i];
    llvm::outs() << "  " << signature.results[i].name << ": "
                 << out.describe();
    int64_t count = out.numElements();
    if (count > 0) {
      double lo = out.at(0), hi = out.at(0), sum = 0;
      for (int64_t k = 0; k < count; ++k) {
        double v = out.at(k);
        lo = std::min(lo, v);
        hi = std::max(hi, v);
        sum += v;
      }
      llvm::outs() << llvm::format("  min %.6g  max %.6g  mean %.6g", lo, hi,
                                   sum / static_cast<double>(count));
    }
    llvm::outs() << "\n";
  }
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "sezm-run: compile and run a function of a sezm module\n\n"
      "  sezm-run model.mlir --entry energy --input positions=pos.npy ...\n"
      "      --output-dir out/\n\n"
      "Arguments and results are named by their `sezm.name` attribute\n"
      "(arg<i> / result<i> where unnamed). Every argument needs an --input;\n"
      "each result is written to <output-dir>/<name>.npy and summarized on\n"
      "standard output. Inputs are checked against the function's types and\n"
      "against what its sezm ops require (graph sizes that agree, node\n"
      "indices in range, valid CSR arrays) before anything runs.\n");

  if (device != "cpu")
    return fail("--device " + device +
                ": this build of sezm-run runs on the CPU only (--device cpu)");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
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
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return 1;

  auto signature = mlir::sezm::getEntrySignature(*module, entry);
  if (!signature)
    return fail(signature.takeError());

  // Bind inputs by argument name.
  std::map<std::string, std::string> bound;
  for (const std::string &binding : inputs) {
    size_t equals = binding.find('=');
    if (equals == std::string::npos || equals == 0)
      return fail("--input " + binding + ": expected name=file.npy");
    std::string name = binding.substr(0, equals);
    auto known = llvm::find_if(signature->arguments,
                               [&](const auto &port) { return port.name == name; });
    if (known == signature->arguments.end()) {
      std::string names;
      for (const auto &port : signature->arguments)
        names += (names.empty() ? "" : ", ") + port.name;
      return fail("--input " + binding + ": @" + signature->function +
                  " has no argument '" + name + "' (its arguments: " + names +
                  ")");
    }
    if (!bound.emplace(name, binding.substr(equals + 1)).second)
      return fail("--input " + binding + ": argument '" + name +
                  "' is bound twice");
  }
  std::vector<::sezm::HostTensor> tensors;
  for (const auto &port : signature->arguments) {
    auto it = bound.find(port.name);
    if (it == bound.end())
      return fail("missing --input for argument " + port.describe() + " of @" +
                  signature->function);
    ::sezm::HostTensor tensor;
    if (!::sezm::readNpy(it->second, tensor, error))
      return fail("input '" + port.name + "': " + error);
    tensors.push_back(std::move(tensor));
  }
  std::string inputError = signature->checkInputs(tensors);
  if (!inputError.empty())
    return fail(inputError);

  auto program =
      mlir::sezm::CpuProgram::compile(std::move(module), {signature->function});
  if (!program)
    return fail(program.takeError());
  auto outputs = (*program)->run(signature->function, tensors);
  if (!outputs)
    return fail(outputs.takeError());

  if (!outputDir.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return fail(outputDir + ": " + ec.message());
    for (size_t i = 0; i < outputs->size(); ++i) {
      llvm::SmallString<256> path(outputDir);
      llvm::sys::path::append(path, signature->results[i].name + ".npy");
      if (!::sezm::writeNpy(std::string(path), (*outputs)[i], error))
        return fail(error);
    }
  }
  printSummary(*signature, *outputs);
  return 0;
}
