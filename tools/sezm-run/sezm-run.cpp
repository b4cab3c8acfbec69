//===- sezm-run.cpp - run a sezm program ----------------------------------===//
//
// sezm-run MODULE.mlir --entry FUNC --input NAME=FILE.npy ... --output-dir DIR
//
// Compiles the entry function of a sezm module, binds its arguments to .npy
// files by name, runs it and writes each result to DIR/<name>.npy.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Conversion/Passes.h"
#include "SeZM/Execution/ArtifactCompiler.h"
#include "SeZM/Execution/CpuRunner.h"
#include "SeZM/Execution/LoweringFlags.h"
#include "SeZM/Execution/ModuleFile.h"
#include "SeZM/Support/Artifact.h"
#include "SeZM/Support/MemoryPlan.h"
#include "SeZM/Support/Npy.h"
#include "SeZM/Support/RuntimeTensors.h"
#include "SeZM/Support/Safetensors.h"
#include "SeZM/Support/Structure.h"
#include "SeZM/Support/Tooling.h"
#include "SeZM/Support/TorchCheckpoint.h"
#include "SeZM/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#ifdef SEZM_HAVE_GPU_RUNTIME
#include "sezm_runtime.h"
#endif
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FileUtilities.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>

using namespace mlir;
namespace cl = llvm::cl;

static cl::OptionCategory category("sezm-run options");

static cl::opt<std::string> modulePath(cl::Positional, cl::Optional,
                                       cl::desc("<module.mlir | model.sezm>"),
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
    weightsPath("weights",
                cl::desc("Bind each tensor of a safetensors file to the "
                         "argument of the same name; every tensor must name "
                         "an argument"),
                cl::value_desc("file.safetensors"), cl::cat(category));
static cl::opt<std::string> precisionName(
    "precision",
    cl::desc("For a DeePMD-kit checkpoint: build the model in its own "
             "precision (model, the default), float32 or float64 (the "
             "reference build)"),
    cl::value_desc("model|float32|float64"), cl::init("model"),
    cl::cat(category));
static cl::opt<std::string>
    outputDir("output-dir", cl::desc("Write each result to <dir>/<name>.npy"),
              cl::value_desc("dir"), cl::cat(category));
static cl::opt<std::string>
    device("device",
           cl::desc("Where to run: cpu (the default for a module) or gpu "
                    "(compiles the module with the GPU pipeline and runs it "
                    "through libsezm_runtime); an artifact runs on the GPU "
                    "where it has GPU code and a GPU is found, else on the "
                    "CPU, unless this says which"),
           cl::value_desc("cpu|gpu"), cl::init("cpu"), cl::cat(category));
static cl::opt<bool> perAtom(
    "per-atom",
    cl::desc("With --forces-of (or a checkpoint): return each atom's energy "
             "and virial too (atom_energy, atom_virial)"),
    cl::cat(category));
static cl::opt<bool>
    verifyOnBoth("verify",
                 cl::desc("Run on the CPU and on the GPU, print the largest "
                          "difference of each output and fail beyond "
                          "--rtol/--atol (max |gpu - cpu| <= atol + rtol * max "
                          "|cpu|)"),
                 cl::cat(category));
static cl::opt<double>
    relativeTolerance("rtol", cl::desc("Relative tolerance of --verify"),
                      cl::init(sezmrt::Tolerance().rtol), cl::cat(category));
static cl::opt<double>
    absoluteTolerance("atol", cl::desc("Absolute tolerance of --verify"),
                      cl::init(sezmrt::Tolerance().atol), cl::cat(category));
static cl::list<int64_t> planAtoms(
    "plan",
    cl::desc("Print the entry's planned peak memory at these atom counts "
             "and run nothing: the memory plan of the artifact (or of the "
             "module compiled for --device) evaluated at N atoms and E = N "
             "times the edges per atom of the first --structure (or "
             "--edges-per-atom)"),
    cl::CommaSeparated, cl::value_desc("N,..."), cl::cat(category));
static cl::opt<double> planMemory(
    "plan-memory",
    cl::desc("With --plan: also print the most atoms whose planned peak "
             "fits in this much device memory (GB, 10^9 bytes)"),
    cl::value_desc("GB"), cl::init(0), cl::cat(category));
static cl::opt<double> edgesPerAtom(
    "edges-per-atom",
    cl::desc("With --plan: the edges per atom of the structures planned for "
             "(else those of the first --structure)"),
    cl::value_desc("K"), cl::init(0), cl::cat(category));
static cl::opt<bool> checkForces(
    "check-forces",
    cl::desc("Check the CPU run's forces against central differences of its "
             "energy (step 1e-5 A; every component of the first atom and "
             "the middle one): prints the largest difference and fails "
             "beyond 1e-6 of max |forces|. Needs a float64 build "
             "(--precision float64 for a checkpoint): in float32 the "
             "differences measure rounding"),
    cl::cat(category));
static cl::opt<int>
    bench("bench",
          cl::desc("Run N more times and print the median time (per kernel "
                   "on the GPU; of the GPU neighbour search too, with "
                   "--structure)"),
          cl::value_desc("N"), cl::init(0), cl::cat(category));
static cl::opt<std::string> forcesOf(
    "forces-of",
    cl::desc("Add @<name>_forces (energy, forces, virial) to the module with "
             "sezm-autodiff and run it (unless --entry names another)"),
    cl::value_desc("energy function"), cl::cat(category));
static cl::list<std::string> structurePaths(
    "structure",
    cl::desc("Read atoms from an extended XYZ file and bind the arguments "
             "named positions, shift, src, dst, src_order, src_rowptr, "
             "dst_order, dst_rowptr (the neighbour graph within --cutoff) and "
             "types (with --species) that no --input binds; several files "
             "(comma-separated or repeated) run one after the other on one "
             "compilation, each writing to <dir>/<file stem>/ with "
             "--output-dir"),
    cl::value_desc("file.xyz"), cl::CommaSeparated, cl::cat(category));
/// The structure being run (one of structurePaths).
static std::string structurePath;
static cl::opt<double> cutoff("cutoff",
                              cl::desc("Neighbour cutoff of --structure (A); "
                                       "the model's rcut where it states one"),
                              cl::value_desc("R"), cl::init(0.0),
                              cl::cat(category));
static cl::list<std::string>
    species("species",
            cl::desc("With --structure: the species in type order, so that "
                     "the argument 'types' gets each atom's index; the "
                     "model's type_map where it states one"),
            cl::value_desc("H,O,..."), cl::CommaSeparated, cl::cat(category));

static mlir::sezm::LoweringFlags lowering(category);

static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "sezm-run") << message << "\n";
  return 1;
}

static int fail(llvm::Error error) {
  std::string message = llvm::toString(std::move(error));
  return fail(message);
}

static bool isFloat(sezmrt::ElementType type) {
  return type == sezmrt::ElementType::F32 || type == sezmrt::ElementType::F64;
}

/// Takes the cutoff and the species order from the model where its module
/// states them (sezm.rcut, sezm.type_map): --cutoff and --species may then
/// be left out, and one that contradicts the model is an error.
static std::string takeModelMetadata(const sezmrt::EntrySignature &signature) {
  if (signature.rcut > 0) {
    if (cutoff > 0 &&
        std::abs(cutoff - signature.rcut) > 1e-12 * signature.rcut) {
      std::string message;
      llvm::raw_string_ostream os(message);
      os << llvm::format("--cutoff %g differs from the model's rcut %g A",
                         static_cast<double>(cutoff), signature.rcut)
         << " (sezm.rcut); the model is only right within its own cutoff, so "
            "leave --cutoff out";
      return message;
    }
    cutoff = signature.rcut;
  }
  if (!signature.typeMap.empty()) {
    std::vector<std::string> given(species.begin(), species.end());
    if (!given.empty() && given != signature.typeMap)
      return "--species " + llvm::join(given, ",") +
             " differs from the model's type_map (" +
             llvm::join(signature.typeMap, ", ") +
             "); species are mapped by name through it, so leave --species "
             "out";
    species.clear();
    for (const std::string &name : signature.typeMap)
      species.push_back(name);
  }
  return std::string();
}

/// The arguments a structure gives, by name, each as the element type the
/// entry declares for it; an error names what cannot be given.
/// The structure of --structure (structurePath) and its graph within the
/// cutoff.
static llvm::Error readStructureGraph(sezmrt::Structure &structure,
                                      sezmrt::NeighbourGraph &graph) {
  std::string error;
  if (!sezmrt::readExtendedXyz(structurePath, structure, error))
    return llvm::createStringError(error);
  if (cutoff <= 0)
    return llvm::createStringError("--structure needs --cutoff (a positive "
                                   "distance in A), since the model states "
                                   "no rcut");
  if (!sezmrt::buildNeighbourGraph(structure, cutoff, graph, error))
    return llvm::createStringError(structurePath + ": " + error);
  return llvm::Error::success();
}

static llvm::Expected<std::map<std::string, sezmrt::HostTensor>>
structureInputs(const sezmrt::EntrySignature &signature,
                sezmrt::Structure &structure) {
  sezmrt::NeighbourGraph graph;
  if (llvm::Error error = readStructureGraph(structure, graph))
    return std::move(error);
  int64_t atoms = structure.positions.size(), edges = graph.src.size();
  llvm::outs() << llvm::format(
      "%s: %lld atoms, %lld edges within %g A, %s\n", structurePath.c_str(),
      static_cast<long long>(atoms), static_cast<long long>(edges),
      static_cast<double>(cutoff),
      sezmrt::describePeriodicity(structure).c_str());
  std::map<std::string, sezmrt::GraphInput> given;
  for (sezmrt::GraphInput &input : sezmrt::graphInputs(structure, graph))
    given.emplace(input.name, std::move(input));
  if (!species.empty()) {
    std::vector<int64_t> types;
    for (int64_t a = 0; a < atoms; ++a) {
      auto it = llvm::find(species, structure.species[a]);
      if (it == species.end())
        return llvm::createStringError(
            structurePath + ": atom " + std::to_string(a + 1) + " is '" +
            structure.species[a] + "', which " +
            (!signature.typeMap.empty() ? "the model's type_map does not have ("
                                        : "--species does not list (") +
            llvm::join(species, ", ") + ")");
      types.push_back(it - species.begin());
    }
    given.emplace(
        sezmrt::port::kTypes,
        sezmrt::GraphInput{sezmrt::port::kTypes, false, {atoms}, {}, types});
  }
  std::map<std::string, sezmrt::HostTensor> tensors;
  for (const auto &port : signature.arguments) {
    auto it = given.find(port.name);
    if (it == given.end())
      continue;
    bool floating = it->second.isFloat;
    if (floating != isFloat(port.type))
      return llvm::createStringError(
          "--structure gives '" + port.name + "' as " +
          (floating ? "floats" : "indices") + ", but @" + signature.function +
          " takes " + port.describe());
    tensors.emplace(port.name, it->second.as(port.type));
  }
  if (tensors.empty())
    return llvm::createStringError(
        "--structure: @" + signature.function +
        " takes none of positions, shift, src, dst, src_order, src_rowptr, "
        "dst_order, dst_rowptr, types");
  return tensors;
}

/// One line per result: name, type and shape, and a few statistics.
static void printSummary(const sezmrt::EntrySignature &signature,
                         const std::vector<sezmrt::HostTensor> &outputs,
                         llvm::StringRef where) {
  llvm::outs() << "@" << signature.function << " ran on the " << where << "\n";
  for (size_t i = 0; i < outputs.size(); ++i) {
    const sezmrt::HostTensor &out = outputs[i];
    llvm::outs() << "  " << signature.results[i].name << ": " << out.describe();
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

/// What the lowering flags ask of a compile for `target` (--gemm-precision is
/// checked when the flags are read).
static mlir::sezm::CompileOptions
compileOptionsFromFlags(mlir::sezm::CompileOptions::Target target) {
  return llvm::cantFail(lowering.options(target));
}

#ifdef SEZM_HAVE_GPU_RUNTIME
/// A structure whose graph inputs the GPU run builds itself (neighbour list,
/// shifts, CSRs: sezm_graph_from_positions_gpu_f64) in place of the host's.
struct GpuStructure {
  const sezmrt::Structure *structure = nullptr;
  /// The arguments --structure binds.
  std::set<std::string> names;
  /// Whether the entry takes its positions and shifts in float64.
  bool doubles = false;
};

/// sezm_tensor views of host tensors.
static std::vector<sezm_tensor>
hostViews(const std::vector<sezmrt::HostTensor> &inputs) {
  std::vector<sezm_tensor> in;
  for (const sezmrt::HostTensor &t : inputs)
    in.push_back(sezmrt::describeHost(t));
  return in;
}

/// Runs an entry of a compiled artifact through libsezm_runtime; with
/// `gpuStructure`, on the graph the GPU builds from the structure.
static llvm::Expected<std::vector<sezmrt::HostTensor>>
runArtifact(llvm::StringRef artifact, const sezmrt::EntrySignature &signature,
            const std::vector<sezmrt::HostTensor> &inputs,
            const GpuStructure *gpuStructure, sezm_device device,
            std::string &ranOn) {
  sezm_model *model = sezm_model_open_on(artifact.str().c_str(), device);
  if (!model)
    return llvm::createStringError(sezm_last_error());
  llvm::scope_exit close([&] { sezm_model_close(model); });
  bool onGpu = sezm_model_device(model) == SEZM_DEVICE_GPU;
  ranOn = onGpu ? "GPU" : "CPU";
  if (!onGpu)
    gpuStructure = nullptr;

  std::vector<sezm_tensor> in = hostViews(inputs);
  // The structure's positions and types go to the device; the graph is
  // found there.
  std::vector<sezm_tensor> uploaded;
  sezm_graph *graph = nullptr;
  llvm::scope_exit freeGraph([&] {
    sezm_graph_free(graph);
    for (sezm_tensor &t : uploaded)
      sezm_tensor_free(&t);
  });
  if (gpuStructure) {
    const sezmrt::Structure &structure = *gpuStructure->structure;
    // The search gets the structure's doubles, as the host list does.
    std::vector<double> coord;
    for (const auto &p : structure.positions)
      coord.insert(coord.end(), p.begin(), p.end());
    std::vector<int32_t> atype;
    for (const std::string &name : structure.species)
      atype.push_back(
          static_cast<int32_t>(llvm::find(species, name) - species.begin()));
    auto upload = [&](sezm_dtype dtype, std::vector<int64_t> shape,
                      const void *data) -> void * {
      sezm_tensor host = sezm_tensor_describe(
          dtype, static_cast<int>(shape.size()), shape.data(), data, 0);
      sezm_tensor device{};
      if (sezm_tensor_to_device(&host, &device))
        return nullptr;
      uploaded.push_back(device);
      return device.data;
    };
    int64_t atoms = coord.size() / 3;
    void *coordDev = upload(SEZM_F64, {atoms, 3}, coord.data());
    void *atypeDev = species.empty() || !coordDev
                         ? nullptr
                         : upload(SEZM_I32, {atoms}, atype.data());
    if (!coordDev || (!species.empty() && !atypeDev))
      return llvm::createStringError(sezm_last_error());
    double cell[9];
    int pbc[3];
    for (int k = 0; k < 3; ++k) {
      pbc[k] = structure.pbc[k];
      for (int d = 0; d < 3; ++d)
        cell[3 * k + d] = structure.cell[k][d];
    }
    auto search = [&] {
      return sezm_graph_from_positions_gpu_f64(
          atoms, static_cast<const double *>(coordDev),
          static_cast<const int32_t *>(atypeDev),
          static_cast<int>(species.size()), structure.hasCell ? cell : nullptr,
          pbc, cutoff, gpuStructure->doubles);
    };
    graph = search();
    if (!graph)
      return llvm::createStringError(sezm_last_error());
    llvm::outs() << llvm::format(
        "neighbour list on the GPU: %lld edges",
        static_cast<long long>(sezm_graph_edge_count(graph)));
    // With --bench, the search timed again (the first call also loads its
    // kernels): the median of as many builds as timed runs.
    if (bench > 0) {
      std::vector<double> times;
      for (int run = 0; run < bench; ++run) {
        auto start = std::chrono::steady_clock::now();
        sezm_graph *again = search();
        auto stop = std::chrono::steady_clock::now();
        if (!again)
          return llvm::createStringError(sezm_last_error());
        sezm_graph_free(again);
        times.push_back(
            std::chrono::duration<double, std::milli>(stop - start).count());
      }
      std::sort(times.begin(), times.end());
      llvm::outs() << llvm::format(", built in %.3f ms (median of %d)",
                                   times[times.size() / 2], bench.getValue());
    }
    llvm::outs() << "\n";
    for (size_t i = 0; i < signature.arguments.size(); ++i) {
      const std::string &name = signature.arguments[i].name;
      if (gpuStructure->names.count(name) &&
          sezm_graph_array(graph, name.c_str(), &in[i]))
        return llvm::createStringError(sezm_last_error());
    }
  }
  std::vector<sezm_tensor> out(signature.results.size());
  const char *entryName = signature.function.c_str();
  auto run = [&] {
    return sezm_model_run(model, entryName, in.data(), in.size(), out.data(),
                          out.size(), 0);
  };
  if (run())
    return llvm::createStringError(sezm_last_error());
  std::vector<sezmrt::HostTensor> outputs;
  for (const sezm_tensor &t : out)
    outputs.push_back(sezmrt::copyToHostTensor(t));
  if (bench > 0) {
    sezm_set_profiling(1);
    std::map<std::string, std::vector<double>> perKernel;
    std::vector<double> total;
    for (int r = 0; r < bench; ++r) {
      if (run())
        return llvm::createStringError(sezm_last_error());
      total.push_back(sezm_model_last_run_ms(model));
      std::map<std::string, double> sums;
      for (int k = 0; k < sezm_kernel_time_count(); ++k)
        sums[sezm_kernel_time_name(k)] += sezm_kernel_time_ms(k);
      for (auto &[name, ms] : sums)
        perKernel[name].push_back(ms);
    }
    sezm_set_profiling(0);
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    if (!onGpu) {
      llvm::outs() << llvm::format("%d CPU runs: median %.3f ms\n",
                                   static_cast<int>(bench), median(total));
      return outputs;
    }
    llvm::outs() << llvm::format("%d GPU runs: median %.3f ms, peak %zu "
                                 "bytes of device memory\n",
                                 static_cast<int>(bench), median(total),
                                 sezm_device_bytes_peak());
    for (auto &[name, times] : perKernel) {
      int registers = 0, local = 0, shared = 0;
      llvm::outs() << llvm::format("  kernel %s: median %.3f ms", name.c_str(),
                                   median(times));
      if (!sezm_kernel_resources(name.c_str(), &registers, &local, &shared))
        llvm::outs() << llvm::format(", %d registers, %d B local, %d B shared",
                                     registers, local, shared);
      llvm::outs() << "\n";
    }
    int fromCubin = 0, fromPtx = 0;
    sezm_module_loads(&fromCubin, &fromPtx);
    llvm::outs() << llvm::format("kernel modules: %d loaded from cubin, %d "
                                 "JIT-compiled from PTX\n",
                                 fromCubin, fromPtx);
  }
  return outputs;
}

/// Compiles the module into a temporary artifact and runs it.
static llvm::Expected<std::vector<sezmrt::HostTensor>>
runOnGpu(ModuleOp module, const sezmrt::EntrySignature &signature,
         const std::vector<sezmrt::HostTensor> &inputs,
         const GpuStructure *gpuStructure) {
  llvm::SmallString<128> artifact;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("sezm-run", "sezm", artifact))
    return llvm::createStringError("cannot create a temporary file: " +
                                   ec.message());
  llvm::FileRemover remover(artifact);
  OwningOpRef<ModuleOp> copy(module.clone());
  mlir::sezm::CompileOptions options =
      compileOptionsFromFlags(mlir::sezm::CompileOptions::Target::Gpu);
  if (llvm::Error error = mlir::sezm::compileArtifact(*copy, options, artifact))
    return std::move(error);
  std::string ranOn;
  return runArtifact(artifact, signature, inputs, gpuStructure, SEZM_DEVICE_GPU,
                     ranOn);
}
#endif

/// A compiled artifact given in place of a module: its entries and the
/// weights it carries, read without loading its code.
struct ArtifactFile {
  std::vector<sezmrt::EntrySignature> entries;
  std::map<std::string, sezmrt::HostTensor> carried;
  std::string memoryPlan;
};

static llvm::Expected<std::optional<ArtifactFile>>
readArtifactFile(const std::string &path) {
  // A file that cannot be read is the module reader's to report.
  std::string bytes, error;
  if (!sezmrt::readFileBytes(path, bytes, error))
    return std::optional<ArtifactFile>();
  // A module is text: a file named .sezm, or with bytes no MLIR text has, is
  // reported as the artifact it is not, rather than parsed as MLIR and
  // echoed to the terminal. A PyTorch checkpoint is the module reader's to
  // describe.
  bool text = !StringRef(path).ends_with(".sezm") &&
              bytes.find('\0') == std::string::npos &&
              llvm::json::isUTF8(StringRef(bytes).take_front(1 << 16));
  if (!sezmrt::looksLikeArtifact(bytes) &&
      (text || sezmrt::looksLikeZip(bytes)))
    return std::optional<ArtifactFile>();
  sezmrt::Artifact artifact;
  if (!sezmrt::parseArtifact(bytes, artifact, error))
    return llvm::createStringError(path + ": " + error);
  ArtifactFile file;
  error = sezmrt::parseManifest(artifact.sections[sezmrt::kManifestSection],
                                file.entries);
  file.memoryPlan = artifact.sections[sezmrt::kMemoryPlanSection];
  auto weights = artifact.sections.find("weights");
  if (error.empty() && weights != artifact.sections.end())
    sezmrt::parseSafetensors(weights->second, file.carried, error);
  if (!error.empty())
    return llvm::createStringError(path + ": " + error);
  return std::optional<ArtifactFile>(std::move(file));
}

/// A polynomial of the memory plan as text: "25172*E + 14340*N + 262148".
static std::string planText(const sezmrt::PlanPolynomial &polynomial) {
  std::string text;
  for (const sezmrt::PlanTerm &term : polynomial) {
    int64_t magnitude = std::abs(term.coefficient);
    text += text.empty() ? (term.coefficient < 0 ? "-" : "")
                         : (term.coefficient < 0 ? " - " : " + ");
    std::string product =
        term.extents.empty() || magnitude != 1 ? std::to_string(magnitude) : "";
    for (const std::string &extent : term.extents)
      product += (product.empty() ? "" : "*") + extent;
    text += product;
  }
  return text.empty() ? "0" : text;
}

/// --plan: the entry's planned peak at each atom count, E = N * perAtom.
static int printPlan(const std::string &section, const std::string &function,
                     const std::string &planOf, double perAtom) {
  std::vector<sezmrt::FunctionPlan> plans;
  std::string error = sezmrt::parseMemoryPlan(section, plans);
  if (!error.empty())
    return fail(planOf + ": " + error);
  auto plan = llvm::find_if(plans, [&](const sezmrt::FunctionPlan &p) {
    return p.function == function;
  });
  if (plan == plans.end())
    return fail(planOf + " has no memory plan for @" + function +
                " (an artifact of an older sezm-compile, or a function with "
                "no buffers of its own)");
  llvm::outs() << "@" << function << ": memory plan of " << planOf << ", "
               << llvm::format("%.1f", perAtom) << " edges per atom\n";
  // The planned peak at N atoms, and the candidate that gives it.
  std::string missing;
  auto peakAt =
      [&](int64_t atoms,
          const sezmrt::PlanPolynomial **winner) -> std::optional<int64_t> {
    std::map<std::string, int64_t> extents = {
        {"N", atoms}, {"E", std::llround(atoms * perAtom)}};
    std::optional<int64_t> peak;
    for (const sezmrt::PlanPolynomial &candidate : plan->peak) {
      std::optional<int64_t> value =
          sezmrt::evaluatePlan(candidate, extents, missing);
      if (!value)
        return std::nullopt;
      if (!peak || *value > *peak) {
        peak = value;
        if (winner)
          *winner = &candidate;
      }
    }
    return peak;
  };
  auto unknownExtent = [&] {
    return fail("--plan: @" + function + "'s peak depends on " + missing +
                ", which is neither N nor E (name each graph argument's "
                "extents with sezm.extents, e.g. [\"E\"] on src)");
  };
  for (int64_t atoms : planAtoms) {
    int64_t edges = std::llround(atoms * perAtom);
    std::map<std::string, int64_t> extents = {{"N", atoms}, {"E", edges}};
    const sezmrt::PlanPolynomial *winner = nullptr;
    std::optional<int64_t> peak = peakAt(atoms, &winner);
    if (!peak)
      return unknownExtent();
    std::optional<int64_t> unplanned =
        sezmrt::evaluatePlan(plan->unplanned, extents, missing);
    llvm::outs() << llvm::format(
        "  N = %lld, E = %lld: planned peak %.2f GB (%s; %lld bytes per "
        "edge), unplanned %.2f GB\n",
        static_cast<long long>(atoms), static_cast<long long>(edges),
        *peak / 1e9, planText(*winner).c_str(),
        static_cast<long long>(sezmrt::linearCoefficient(*winner, "E")),
        unplanned ? *unplanned / 1e9 : 0.0);
  }
  if (planMemory > 0) {
    // The peak grows with N: the largest N at or below the budget, by
    // bisection.
    double budget = planMemory * 1e9;
    std::optional<int64_t> one = peakAt(1, nullptr);
    if (!one)
      return unknownExtent();
    int64_t low = 0, high = 1;
    while (high < (int64_t(1) << 40)) {
      std::optional<int64_t> peak = peakAt(high, nullptr);
      if (!peak || static_cast<double>(*peak) > budget)
        break;
      low = high;
      high *= 2;
    }
    while (high - low > 1) {
      int64_t middle = low + (high - low) / 2;
      std::optional<int64_t> peak = peakAt(middle, nullptr);
      (peak && static_cast<double>(*peak) <= budget ? low : high) = middle;
    }
    if (low == 0)
      llvm::outs() << llvm::format(
          "  not even one atom fits in %.2f GB (the plan needs %.2f GB)\n",
          planMemory.getValue(), *one / 1e9);
    else
      llvm::outs() << llvm::format(
          "  fits in %.2f GB: up to N = %lld atoms (%lld edges)\n",
          planMemory.getValue(), static_cast<long long>(low),
          static_cast<long long>(std::llround(low * perAtom)));
  }
  return 0;
}

/// The step of --check-forces (A): central differences err by about
/// step^2 times the energy's third derivative and by rounding of
/// eps |E| / step, both far below 1e-6 of the forces in float64.
constexpr double kForceCheckStep = 1e-5;
/// Atoms whose force components --check-forces differentiates.
constexpr int64_t kForceCheckAtoms = 2;
/// Largest |finite difference - force| / max |forces| --check-forces passes.
constexpr double kForceCheckTolerance = 1e-6;

/// --check-forces: moves each component of a few atoms by +-step, reruns
/// the entry and compares -(E+ - E-) / (2 step) with the forces it returned
/// at rest. The neighbour graph is kept: the energy is smooth across the
/// cutoff, so an edge the step moves across it changes nothing visible.
static int
checkForcesByDifferences(const mlir::sezm::CpuProgram &program,
                         const sezmrt::EntrySignature &signature,
                         std::vector<sezmrt::HostTensor> inputs,
                         const std::vector<sezmrt::HostTensor> &outputs) {
  auto indexOf = [](const std::vector<sezmrt::TensorPort> &ports,
                    StringRef name) -> int64_t {
    auto it = llvm::find_if(
        ports, [&](const auto &port) { return port.name == name; });
    return it == ports.end() ? -1 : it - ports.begin();
  };
  int64_t positionsAt = indexOf(signature.arguments, "positions");
  int64_t energyAt = indexOf(signature.results, "energy");
  int64_t forcesAt = indexOf(signature.results, "forces");
  if (positionsAt < 0 || energyAt < 0 || forcesAt < 0)
    return fail("--check-forces: @" + signature.function +
                " needs an argument 'positions' and results 'energy' and "
                "'forces'");
  bool float64 =
      llvm::all_of(signature.arguments, [](const sezmrt::TensorPort &port) {
        return !isFloat(port.type) || port.type == sezmrt::ElementType::F64;
      });
  if (!float64)
    return fail("--check-forces needs a float64 build (--precision float64 "
                "for a checkpoint): in float32 the differences measure "
                "rounding, not the forces");
  sezmrt::HostTensor &positions = inputs[positionsAt];
  const sezmrt::HostTensor &forces = outputs[forcesAt];
  int64_t atoms = positions.numElements() / 3;
  if (atoms == 0 || forces.numElements() != positions.numElements())
    return fail("--check-forces: forces " + forces.describe() +
                " do not match positions " + positions.describe());
  double largestForce = 0, largestError = 0;
  for (int64_t i = 0; i < forces.numElements(); ++i)
    largestForce = std::max(largestForce, std::abs(forces.at(i)));
  int64_t checked = std::min(atoms, kForceCheckAtoms);
  for (int64_t k = 0; k < checked; ++k) {
    int64_t atom = k * atoms / checked;
    for (int64_t axis = 0; axis < 3; ++axis) {
      double &coordinate = positions.data<double>()[atom * 3 + axis];
      double rest = coordinate, energies[2];
      for (int side = 0; side < 2; ++side) {
        coordinate = rest + (side ? -kForceCheckStep : kForceCheckStep);
        auto moved = program.run(signature.function, inputs);
        if (!moved)
          return fail(moved.takeError());
        energies[side] = 0;
        for (int64_t i = 0; i < (*moved)[energyAt].numElements(); ++i)
          energies[side] += (*moved)[energyAt].at(i);
      }
      coordinate = rest;
      double difference = -(energies[0] - energies[1]) / (2 * kForceCheckStep);
      largestError = std::max(
          largestError, std::abs(difference - forces.at(atom * 3 + axis)));
    }
  }
  double relative = largestForce > 0 ? largestError / largestForce : 0;
  bool ok = relative <= kForceCheckTolerance;
  llvm::outs() << llvm::format(
      "forces against central differences (%d atoms, step %g A): max abs "
      "error %.3g, relative %.3g  %s\n",
      static_cast<int>(checked), kForceCheckStep, largestError, relative,
      ok ? "ok" : "FAIL");
  return ok ? 0 : 1;
}

/// With no arguments: SeZM-min's energy, forces and virial on the bundled
/// water box, on the GPU when one can be used, else on the CPU.
static llvm::Error useBundledDemo() {
  std::string model = SEZM_DEMO_DIR "/sezm-min/model.mlir";
  std::string structure = SEZM_DEMO_DIR "/water/water-box.xyz";
  std::string weights = SEZM_DEMO_WEIGHTS;
  for (const std::string &path : {model, structure, weights})
    if (!llvm::sys::fs::exists(path))
      return llvm::createStringError(
          "the bundled demo needs " + path +
          " (the weights are made by the build: cmake --build <build dir>)");
  modulePath = model;
  structurePaths.push_back(structure);
  weightsPath = weights;
  cutoff = 6.0;
  species.push_back("H");
  species.push_back("O");
  forcesOf = "energy";
  device = "cpu";
  std::string why = "this build of sezm-run has no GPU runtime";
#ifdef SEZM_HAVE_GPU_RUNTIME
  if (sezm_gpu_available())
    device = "gpu";
  else
    why = sezm_last_error();
#endif
  llvm::outs() << "sezm-run: the bundled demo, SeZM-min (" << model << ") on "
               << structure << ", on the "
               << (device == "gpu" ? "GPU" : "CPU (no GPU: " + why + ")")
               << "\n";
  return llvm::Error::success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "sezm-run: compile and run a function of a sezm module\n\n"
      "  sezm-run model.mlir --entry energy --input positions=pos.npy ...\n"
      "      --output-dir out/\n"
      "  sezm-run model.sezm ...   (an artifact of sezm-compile: on the GPU\n"
      "      or the CPU, its carried weights bound to their arguments)\n"
      "  sezm-run model.ckpt.pt --structure s.xyz   (a DeePMD-kit DPA4\n"
      "      checkpoint, imported with no PyTorch: energy, forces and virial\n"
      "      with its type_map and rcut; docs/import.md)\n\n"
      "Arguments and results are named by their `sezm.name` attribute\n"
      "(arg<i> / result<i> where unnamed). Every argument needs an --input;\n"
      "each result is written to <output-dir>/<name>.npy and summarized on\n"
      "standard output. Inputs are checked against the function's types and\n"
      "against what its sezm ops require (graph sizes that agree, node\n"
      "indices in range, valid CSR arrays) before anything runs.\n");

  if (modulePath.empty()) {
    if (argc > 1)
      return fail("no module given (sezm-run with no arguments at all runs "
                  "the bundled demo)");
    if (llvm::Error error = useBundledDemo())
      return fail(std::move(error));
  }
  // A compiled artifact runs through libsezm_runtime, on the device it
  // has code for (the GPU where one is found, unless --device says).
  auto artifactFile = readArtifactFile(modulePath);
  if (!artifactFile)
    return fail(artifactFile.takeError());
  bool isArtifact = artifactFile->has_value();
  if (device != "cpu" && device != "gpu")
    return fail("--device " + device + ": expected cpu or gpu");
  if (isArtifact) {
    if (verifyOnBoth)
      return fail(modulePath + " is a compiled artifact: --verify compares "
                               "a module's CPU and GPU code (give the "
                               "module)");
    if (!forcesOf.empty())
      return fail(modulePath + " is a compiled artifact: its functions are "
                               "fixed (name one with --entry)");
  }
  bool useGpu = !isArtifact && (device == "gpu" || verifyOnBoth);
  bool useCpu = !isArtifact && (device == "cpu" || verifyOnBoth);
  if (checkForces && !useCpu)
    return fail("--check-forces differentiates the CPU code: give a module "
                "or a checkpoint, on --device cpu");
  auto lowered = lowering.options(mlir::sezm::CompileOptions::Target::Gpu);
  if (!lowered)
    return fail(lowered.takeError());
  if (lowered->gemmPrecision != mlir::sezm::GemmPrecision::IEEE && !useGpu)
    return fail("--gemm-precision=" + lowering.gemmPrecision +
                " is how the GPU code is compiled: give a module or a "
                "checkpoint with --device gpu or --verify");
#ifndef SEZM_HAVE_GPU_RUNTIME
  if (useGpu || isArtifact)
    return fail(std::string("this build of sezm-run has no runtime (cuda.h "
                            "was not found when it was built); ") +
                (isArtifact ? "it cannot run artifacts" : "use --device cpu"));
#endif
  if (useGpu)
    if (llvm::Error error = mlir::sezm::checkChip(lowering.chip))
      return fail(std::move(error));

  DialectRegistry registry;
  mlir::sezm::registerToolDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  std::optional<mlir::sezm::ModuleFile> file;
  std::string error;
  std::string entryName = entry;
  std::optional<sezmrt::EntrySignature> signature;
  if (isArtifact) {
    const std::vector<sezmrt::EntrySignature> &entries =
        (*artifactFile)->entries;
    std::string names;
    for (const sezmrt::EntrySignature &e : entries) {
      names += (names.empty() ? "" : ", ") + e.function;
      if (e.function == entryName || (entryName.empty() && entries.size() == 1))
        signature = e;
    }
    if (!signature)
      return fail(modulePath + ": " +
                  (entryName.empty() ? "name the entry to run with --entry"
                                     : "no entry '" + entryName + "'") +
                  " (its entries: " + names + ")");
  } else {
    sezmrt::ImportPrecision precision;
    if (!sezmrt::parseImportPrecision(precisionName, precision))
      return fail("--precision=" + precisionName +
                  ": expected model, float32 or float64");
    file.emplace(modulePath, context, precision);
    if (!file->openError().empty())
      return fail(file->openError());
    if (!file->module())
      return 1;
    if (auto &imported = file->importedModel()) {
      llvm::outs() << modulePath << ": " << imported->summary << "\n";
      // A checkpoint's model is an energy: its forces and virial are what
      // is run, unless an entry is named.
      if (forcesOf.empty() && entryName.empty())
        forcesOf = "energy";
    } else if (precisionName != "model") {
      return fail("--precision goes with a DeePMD-kit checkpoint (a module "
                  "states its own element types)");
    }
    if (perAtom && forcesOf.empty())
      return fail("--per-atom goes with --forces-of (or a checkpoint)");
    if (!forcesOf.empty()) {
      if (failed(mlir::sezm::addForces(*file->module(), forcesOf, perAtom)))
        return 1;
      if (entryName.empty())
        entryName = forcesOf + "_forces";
    }
    auto found = mlir::sezm::getEntrySignature(*file->module(), entryName);
    if (!found)
      return fail(found.takeError());
    signature = std::move(*found);
  }

  if (planMemory > 0 && planAtoms.empty())
    return fail("--plan-memory goes with --plan");
  if (!planAtoms.empty()) {
    // The edges per atom of the sizes planned for.
    double perAtom = edgesPerAtom;
    if (perAtom <= 0 && structurePaths.empty())
      return fail("--plan needs the edges per atom: --edges-per-atom K, or "
                  "a --structure of the density to plan for");
    if (perAtom <= 0) {
      if (std::string why = takeModelMetadata(*signature); !why.empty())
        return fail(why);
      sezmrt::Structure structure;
      sezmrt::NeighbourGraph graph;
      structurePath = structurePaths.front();
      if (llvm::Error error = readStructureGraph(structure, graph))
        return fail(std::move(error));
      perAtom = static_cast<double>(graph.src.size()) /
                static_cast<double>(structure.positions.size());
    }
    if (isArtifact)
      return printPlan((*artifactFile)->memoryPlan, signature->function,
                       modulePath, perAtom);
    // A module's plan is its compilation's, for the device asked for.
    llvm::SmallString<128> compiled;
    if (std::error_code ec =
            llvm::sys::fs::createTemporaryFile("sezm-run", "sezm", compiled))
      return fail("cannot create a temporary file: " + ec.message());
    llvm::FileRemover remover(compiled);
    OwningOpRef<ModuleOp> copy(file->module()->clone());
    mlir::sezm::CompileOptions options = compileOptionsFromFlags(
        device == "gpu" ? mlir::sezm::CompileOptions::Target::Gpu
                        : mlir::sezm::CompileOptions::Target::Cpu);
    if (llvm::Error error =
            mlir::sezm::compileArtifact(*copy, options, compiled))
      return fail(std::move(error));
    std::string bytes;
    sezmrt::Artifact artifact;
    if (!sezmrt::readFileBytes(std::string(compiled), bytes, error) ||
        !sezmrt::parseArtifact(bytes, artifact, error))
      return fail(error);
    return printPlan(
        artifact.sections[sezmrt::kMemoryPlanSection], signature->function,
        modulePath + " compiled for the " + (device == "gpu" ? "GPU" : "CPU"),
        perAtom);
  }

  // Bind inputs by argument name.
  std::map<std::string, std::string> bound;
  for (const std::string &binding : inputs) {
    std::string name, file;
    if (!sezmrt::parseBinding(binding, name, file, error))
      return fail(error);
    auto known = llvm::find_if(signature->arguments, [&](const auto &port) {
      return port.name == name;
    });
    if (known == signature->arguments.end()) {
      std::string names;
      for (const auto &port : signature->arguments)
        names += (names.empty() ? "" : ", ") + port.name;
      return fail("--input " + binding + ": @" + signature->function +
                  " has no argument '" + name + "' (its arguments: " + names +
                  ")");
    }
    if (!bound.emplace(name, file).second)
      return fail("--input " + binding + ": argument '" + name +
                  "' is bound twice");
  }
  // The CPU code, compiled at the first run and kept for the next
  // structures.
  std::unique_ptr<mlir::sezm::CpuProgram> program;
  // --weights, read once for every structure.
  std::map<std::string, sezmrt::HostTensor> fileWeights;
  if (!weightsPath.empty() &&
      !sezmrt::readSafetensors(weightsPath, fileWeights, error))
    return fail(error);
  // One structure (or none): bind, run, compare, write.
  auto runOnce = [&]() -> int {
    std::map<std::string, sezmrt::HostTensor> fromStructure;
    sezmrt::Structure structure;
    if (!structurePath.empty()) {
      auto given = structureInputs(*signature, structure);
      if (!given)
        return fail(given.takeError());
      fromStructure = std::move(*given);
      for (const auto &[name, tensor] : fromStructure)
        if (bound.count(name))
          return fail("argument '" + name +
                      "' is bound by --input and by --structure");
    }
    std::map<std::string, sezmrt::HostTensor> weights = fileWeights;
    if (!weightsPath.empty()) {
      for (const auto &weight : weights) {
        const std::string &name = weight.first;
        auto known = llvm::find_if(signature->arguments, [&](const auto &port) {
          return port.name == name;
        });
        if (known == signature->arguments.end())
          return fail(weightsPath + ": weight '" + name +
                      "' is no argument of @" + signature->function +
                      " (a misspelt name?)");
        if (bound.count(name) || fromStructure.count(name))
          return fail("argument '" + name + "' is bound by --weights and by " +
                      (bound.count(name) ? "--input" : "--structure"));
      }
    }
    // A checkpoint's weights, like an artifact's carried ones, bind what
    // nothing else binds.
    if (file && file->importedModel())
      for (auto &[name, tensor] : file->importedModel()->weights)
        if (!bound.count(name) && !fromStructure.count(name))
          weights.emplace(name, tensor);
    if (isArtifact)
      for (auto &[name, tensor] : (*artifactFile)->carried)
        if (!bound.count(name) && !fromStructure.count(name))
          weights.emplace(name, tensor);
    std::vector<sezmrt::HostTensor> tensors;
    for (const auto &port : signature->arguments) {
      auto given = fromStructure.find(port.name);
      if (given != fromStructure.end()) {
        tensors.push_back(std::move(given->second));
        continue;
      }
      auto weight = weights.find(port.name);
      if (weight != weights.end()) {
        tensors.push_back(std::move(weight->second));
        continue;
      }
      auto it = bound.find(port.name);
      if (it == bound.end())
        return fail("missing --input for argument " + port.describe() +
                    " of @" + signature->function +
                    (weightsPath.empty() ? ""
                                         : " (" + weightsPath +
                                               " has no tensor of that name)"));
      sezmrt::HostTensor tensor;
      if (!sezmrt::readNpy(it->second, tensor, error))
        return fail("input '" + port.name + "': " + error);
      tensors.push_back(std::move(tensor));
    }
    std::string inputError = signature->checkInputs(tensors);
    if (!inputError.empty())
      return fail(inputError);

    // What ran last: the JIT on the CPU, or libsezm_runtime.
    std::vector<sezmrt::HostTensor> cpuOutputs, gpuOutputs;
    std::string ranOn = useGpu ? "GPU" : "CPU";
    if (useCpu) {
      if (!program) {
        auto compiled = mlir::sezm::CpuProgram::compile(
            OwningOpRef<ModuleOp>(file->module()->clone()),
            {signature->function},
            /*fuse=*/!lowering.noFusion, lowering.recomputeStacks,
            lowering.edgeChunk);
        if (!compiled)
          return fail(compiled.takeError());
        program = std::move(*compiled);
      }
      auto outputs = program->run(signature->function, tensors);
      if (!outputs)
        return fail(outputs.takeError());
      cpuOutputs = std::move(*outputs);
      if (checkForces)
        if (int failed = checkForcesByDifferences(*program, *signature, tensors,
                                                  cpuOutputs))
          return failed;
      if (bench > 0 && !useGpu) {
        std::vector<double> times;
        for (int i = 0; i < bench; ++i) {
          auto start = std::chrono::steady_clock::now();
          if (!program->run(signature->function, tensors))
            return fail("a benchmark run failed");
          times.push_back(std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - start)
                              .count());
        }
        std::sort(times.begin(), times.end());
        llvm::outs() << llvm::format("%d CPU runs: median %.3f ms\n",
                                     static_cast<int>(bench),
                                     times[times.size() / 2]);
      }
    }
#ifdef SEZM_HAVE_GPU_RUNTIME
    if (useGpu || isArtifact) {
      // The GPU path builds the structure's graph on the GPU.
      GpuStructure gpuStructure{&structure, {}};
      for (const auto &entry : fromStructure)
        gpuStructure.names.insert(entry.first);
      // The graph's real arrays come in one type: an entry that takes its
      // positions and shifts in different ones gets the host's graph.
      std::set<sezmrt::ElementType> reals;
      for (const sezmrt::TensorPort &port : signature->arguments)
        if (fromStructure.count(port.name) && isFloat(port.type))
          reals.insert(port.type);
      gpuStructure.doubles = reals.count(sezmrt::ElementType::F64);
      const GpuStructure *onGpu =
          structurePath.empty() || reals.size() > 1 ? nullptr : &gpuStructure;
      sezm_device asked = !device.getNumOccurrences() ? SEZM_DEVICE_AUTO
                          : device == "cpu"           ? SEZM_DEVICE_CPU
                                                      : SEZM_DEVICE_GPU;
      auto gpu = isArtifact
                     ? runArtifact(modulePath, *signature, tensors, onGpu,
                                   asked, ranOn)
                     : runOnGpu(*file->module(), *signature, tensors, onGpu);
      if (!gpu)
        return fail(gpu.takeError());
      gpuOutputs = std::move(*gpu);
    }
#endif
    int mismatches = 0;
    sezmrt::Tolerance tolerance{relativeTolerance, absoluteTolerance};
    if (verifyOnBoth) {
      llvm::outs() << "@" << signature->function << ": GPU against CPU\n";
      for (size_t i = 0; i < cpuOutputs.size(); ++i) {
        sezmrt::Comparison comparison =
            sezmrt::compare(gpuOutputs[i], cpuOutputs[i]);
        bool ok = comparison.within(tolerance);
        mismatches += ok ? 0 : 1;
        llvm::outs() << llvm::format(
            "  %s: max abs error %.3g, relative %.3g  %s\n",
            signature->results[i].name.c_str(), comparison.worst,
            comparison.relative(), ok ? "ok" : "FAIL");
      }
    }
    std::vector<sezmrt::HostTensor> *outputs =
        useGpu || isArtifact ? &gpuOutputs : &cpuOutputs;
    if (!outputDir.empty()) {
      llvm::SmallString<256> dir(outputDir);
      if (structurePaths.size() > 1)
        llvm::sys::path::append(dir, llvm::sys::path::stem(structurePath));
      if (std::error_code ec = llvm::sys::fs::create_directories(dir))
        return fail(dir.str().str() + ": " + ec.message());
      for (size_t i = 0; i < outputs->size(); ++i) {
        llvm::SmallString<256> path(dir);
        llvm::sys::path::append(path, signature->results[i].name + ".npy");
        if (!sezmrt::writeNpy(std::string(path), (*outputs)[i], error))
          return fail(error);
      }
    }
    printSummary(*signature, *outputs, ranOn);
    return mismatches ? 1 : 0;
  };
  if (structurePaths.empty() && (!species.empty() || cutoff != 0))
    return fail("--cutoff and --species go with --structure");
  if (!structurePaths.empty())
    if (std::string why = takeModelMetadata(*signature); !why.empty())
      return fail(why);
  // Several structures write to <dir>/<stem>: the stems must differ.
  std::set<std::string> stems;
  for (const std::string &path : structurePaths)
    if (!stems.insert(llvm::sys::path::stem(path).str()).second &&
        structurePaths.size() > 1)
      return fail("--structure: two files are named '" +
                  llvm::sys::path::stem(path).str() +
                  "': their outputs would share a folder");
  std::vector<std::string> runs(structurePaths.begin(), structurePaths.end());
  if (runs.empty())
    runs.push_back("");
  for (const std::string &path : runs) {
    structurePath = path;
    if (int failed = runOnce())
      return failed;
  }
  return 0;
}
