//===- sezm-compile.cpp - compile a sezm module ahead of time -------------===//
//
// sezm-compile MODULE.mlir -o model.sezm [--target cpu|gpu|all]
//              [--chip sm_90] [--weights W]
// sezm-compile model.ckpt.pt -o model.sezm   (a DeePMD-kit DPA4 checkpoint)
//
// The ahead-of-time step: every public function becomes an entry of one
// versioned artifact that libsezm_runtime (and sezm-exec) loads and runs
// without MLIR or LLVM: GPU kernels as PTX for the chip, JIT-compiled once
// per process by the driver, and their host code; the CPU code; a manifest
// of each entry's named inputs and outputs, the memory plan and the
// weights.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Execution/ArtifactCompiler.h"
#include "SeZM/Execution/LoweringFlags.h"
#include "SeZM/Execution/ModuleFile.h"
#include "SeZM/Support/Safetensors.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
namespace cl = llvm::cl;
using mlir::sezm::CompileOptions;
using Emit = CompileOptions::Emit;

static cl::OptionCategory category("sezm-compile options");
static cl::opt<std::string>
    modulePath(cl::Positional, cl::Required,
               cl::desc("<module.mlir | model.ckpt.pt>"), cl::cat(category));
static cl::opt<std::string> outputPath("o", cl::Required,
                                       cl::desc("Output file (or folder)"),
                                       cl::value_desc("path"),
                                       cl::cat(category));
static cl::opt<std::string> targetName(
    "target",
    cl::desc("The devices the artifact carries code for: cpu, gpu or all "
             "(the default: all where the CUDA toolkit is found, else cpu; "
             "gpu for --emit=lib, obj, llvm and ptx)"),
    cl::value_desc("cpu|gpu|all"), cl::cat(category));
/// What sezm-compile writes: what the GPU compiler emits, or (from a
/// checkpoint) the imported module and its weights.
enum class Output { Artifact, Library, Object, LLVMIR, PTX, Import };
static cl::opt<Output>
    emit("emit", cl::desc("What to write"), cl::init(Output::Artifact),
         cl::values(clEnumValN(Output::Artifact, "artifact",
                               "the versioned artifact for libsezm_runtime: "
                               "manifest, host library, PTX, memory plan, "
                               "weights (default)"),
                    clEnumValN(Output::Library, "lib",
                               "--target's shared library alone"),
                    clEnumValN(Output::Object, "obj", "--target's object file"),
                    clEnumValN(Output::LLVMIR, "llvm",
                               "--target's LLVM IR (the GPU's host code)"),
                    clEnumValN(Output::PTX, "ptx",
                               "each kernel module's PTX, as <name>.ptx in the "
                               "folder given by -o"),
                    clEnumValN(Output::Import, "import",
                               "for a DeePMD-kit checkpoint: the imported "
                               "module as readable sezm IR (model.mlir) and "
                               "its weights (weights.safetensors) in the "
                               "folder given by -o")),
         cl::cat(category));

static cl::opt<std::string> precisionName(
    "precision",
    cl::desc("For a DeePMD-kit checkpoint: build the model in its own "
             "precision (model, the default), float32 or float64"),
    cl::value_desc("model|float32|float64"), cl::init("model"),
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

static cl::opt<bool> perAtom(
    "per-atom",
    cl::desc("The forces' entry also returns each atom's energy and virial "
             "(atom_energy, atom_virial: each edge's virial half to each "
             "end, as DeePMD-kit's atomic outputs)"),
    cl::cat(category));

static cl::opt<bool> stages(
    "stages",
    cl::desc("Also compile the energy in stages, one per block, for a "
             "domain decomposition: @energy_stage<k> and its backward "
             "(sezm-split-stages), run one after the other with the ghost "
             "atoms' features exchanged between them"),
    cl::cat(category));

static mlir::sezm::LoweringFlags lowering(category);

static cl::opt<bool>
    timePhases("time-phases",
               cl::desc("Report on stderr where compiling spends its time: "
                        "each pass, code generation, linking and ptxas"),
               cl::cat(category));

static cl::opt<bool> verifyEach(
    "verify-each",
    cl::desc("Verify the IR after every pass of the lowering, to find the "
             "pass that breaks it (slower); by default the IR is verified "
             "once, after the lowering"),
    cl::cat(category));

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "sezm-compile") << message << "\n";
  return 1;
}

/// --emit=import: the imported module and its weights, in the folder -o.
static int writeImport(const sezmrt::ImportedModel &imported) {
  if (std::error_code ec = llvm::sys::fs::create_directories(outputPath))
    return fail(outputPath + ": " + ec.message());
  std::string error;
  for (auto [name, bytes] :
       {std::pair<std::string, std::string>{"model.mlir", imported.moduleText},
        {"weights.safetensors", sezmrt::writeSafetensors(imported.weights)}}) {
    llvm::SmallString<256> path(outputPath.getValue());
    llvm::sys::path::append(path, name);
    auto out = openOutputFile(path, &error);
    if (!out)
      return fail(error);
    out->os() << bytes;
    out->keep();
  }
  llvm::outs() << modulePath << ": " << imported.summary << ", written to "
               << outputPath << "/model.mlir and weights.safetensors\n";
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "sezm-compile: compile a sezm module ahead of time for NVIDIA GPUs\n"
      "and CPUs\n\n"
      "Every public function becomes an entry of one versioned artifact\n"
      "(docs/artifact.md) that libsezm_runtime (and sezm-exec) loads and\n"
      "runs without MLIR or LLVM: for the GPU, kernels as PTX for --chip,\n"
      "JIT-compiled once per process by the driver, and their host code;\n"
      "for the CPU, multi-threaded (OpenMP) vectorized code; a manifest of\n"
      "each entry's named inputs and outputs, the memory plan and\n"
      "--weights. The runtime runs the GPU code where a GPU is found and\n"
      "the CPU code otherwise (or when asked).\n"
      "A DeePMD-kit DPA4 checkpoint (model.ckpt.pt, from dp --pt train) is\n"
      "imported with no PyTorch: @energy and @energy_forces, its weights\n"
      "carried, its type_map and rcut in the manifest (docs/import.md);\n"
      "with --stages also its blocks one by one, for LAMMPS on several MPI\n"
      "ranks (examples/lammps/README.md).\n"
      "Linking uses the C++ compiler on PATH (or $CXX).\n");
  CompileOptions::Target target = CompileOptions::Target::All;
  bool artifactOut = emit == Output::Artifact || emit == Output::Import;
  if (targetName.empty()) {
    std::string why;
    if (!artifactOut)
      target = CompileOptions::Target::Gpu;
    else if (!mlir::sezm::gpuToolchainAvailable(why))
      target = CompileOptions::Target::Cpu;
  } else if (targetName == "cpu") {
    target = CompileOptions::Target::Cpu;
  } else if (targetName == "gpu") {
    target = CompileOptions::Target::Gpu;
  } else if (targetName != "all") {
    return fail("--target=" + targetName + ": expected cpu, gpu or all");
  }
  auto lowered = lowering.options(target);
  if (!lowered)
    return fail(llvm::toString(lowered.takeError()));
  CompileOptions options = *lowered;
  if (options.target != CompileOptions::Target::Cpu)
    if (llvm::Error error = mlir::sezm::checkChip(options.chip))
      return fail(llvm::toString(std::move(error)));

  DialectRegistry registry;
  mlir::sezm::registerToolDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  sezmrt::ImportPrecision precision;
  if (!sezmrt::parseImportPrecision(precisionName, precision))
    return fail("--precision=" + precisionName +
                ": expected model, float32 or float64");
  mlir::sezm::ModuleFile file(modulePath, context, precision);
  if (!file.openError().empty())
    return fail(file.openError());
  OwningOpRef<ModuleOp> &module = file.module();
  if (!module)
    return 1;
  auto &imported = file.importedModel();
  if (!imported && (precisionName != "model" || emit == Output::Import))
    return fail(
        std::string(emit == Output::Import ? "--emit=import" : "--precision") +
        " goes with a DeePMD-kit checkpoint");
  if (emit == Output::Import)
    return writeImport(*imported);
  // An MD engine needs a checkpoint's forces: they are compiled unless
  // --forces-of names another function.
  if (imported && forcesOf.empty())
    forcesOf = "energy";

  if (perAtom && forcesOf.empty())
    return fail("--per-atom goes with --forces-of (or a checkpoint)");
  if (stages && forcesOf.empty())
    return fail("--stages goes with --forces-of (or a checkpoint)");
  if (!forcesOf.empty() &&
      failed(mlir::sezm::addForces(*module, forcesOf, perAtom, stages)))
    return 1;

  options.emit = static_cast<Emit>(emit.getValue());
  options.timing = timePhases;
  options.verifyEach = verifyEach;
  if (!weights.empty() && emit != Output::Artifact)
    return fail("--weights goes with --emit=artifact");
  if (!weights.empty() && imported)
    return fail("--weights: a checkpoint carries its own weights");
  options.weightsPath = weights;
  if (imported && emit == Output::Artifact)
    options.weights = sezmrt::writeSafetensors(imported->weights);
  if (llvm::Error compileError =
          mlir::sezm::compileArtifact(*module, options, outputPath))
    return fail(modulePath + ": " + llvm::toString(std::move(compileError)));
  return 0;
}
