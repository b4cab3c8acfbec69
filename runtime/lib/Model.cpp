//===- Model.cpp - the C API: load an artifact, run its entries -----------===//

#include "sezm_runtime.h"

#include "DeviceGraph.h"
#include "RuntimeState.h"
#include "SeZM/Support/Artifact.h"
#include "SeZM/Support/HostMemory.h"
#include "SeZM/Support/MemRefABI.h"
#include "SeZM/Support/RuntimeTensors.h"
#include "SeZM/Support/Safetensors.h"
#include "SeZM/Support/Signature.h"
#include "SeZM/Support/Structure.h"
#include "SeZM/Support/Tooling.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <dlfcn.h>
#include <map>
#include <sys/mman.h>
#include <unistd.h>

using namespace sezmrt;
using namespace sezmrt::cuda;

using PackedEntry = void (*)(void **);

struct sezm_model {
  /// The code that runs the entries: the GPU program's host library, or
  /// the CPU program's.
  void *library = nullptr;
  bool onCpu = false;
  /// The in-memory file the host library was loaded from, open while it is
  /// loaded: its /proc/self/fd path names this library alone (see
  /// loadHostLibrary).
  int hostFile = -1;
  std::vector<EntrySignature> entries;
  /// The inputs the artifact carries (its weights), by name, and their
  /// device copies, made on first use and kept until close.
  std::map<std::string, HostTensor> carried;
  std::map<std::string, sezm_tensor> carriedOnDevice;
  std::map<std::string, PackedEntry> packed;
  std::vector<HostTensor> hostOutputs;
  std::vector<CUdeviceptr> deviceOutputs;
  double lastRunMs = 0;
};

namespace {
thread_local std::string lastError;
/// Models open on the CPU, whose calls reuse the host buffers kept.
std::atomic<int> openCpuModels{0};

template <typename T> T failWith(const std::string &message, T value) {
  lastError = message;
  return value;
}

/// The recorded CUDA failure, cleared so that the next run starts clean.
bool takeRuntimeError(std::string &message) {
  RuntimeState &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  if (s.error.empty())
    return false;
  message = s.error;
  s.error.clear();
  return true;
}

const EntrySignature *findEntry(const sezm_model *model, const char *entry) {
  if (!model || !entry)
    return nullptr;
  for (const EntrySignature &e : model->entries)
    if (e.function == entry)
      return &e;
  return nullptr;
}

/// Makes this library's symbols (the mgpu* ABI) visible to the artifacts it
/// loads, even when it was itself loaded with RTLD_LOCAL.
void exportRuntimeSymbols() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&sezm_model_open), &info) &&
      info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
}
} // namespace

struct sezm_graph {
  DeviceGraph arrays;
};

struct sezm_pair_list {
  PairList pairs;
  /// The largest row a candidate names: each step's positions must hold it.
  int64_t lastRow = -1;
};

namespace {
sezm_tensor deviceArray(sezm_dtype dtype, std::initializer_list<int64_t> shape,
                        const void *data) {
  return sezm_tensor_describe(dtype, static_cast<int>(shape.size()),
                              shape.begin(), data, 1);
}

/// The bytes of a tensor's elements (its rank checked by the caller).
size_t byteCount(const sezm_tensor &t) {
  size_t bytes = elementSize(elementTypeOf(t.dtype));
  for (int axis = 0; axis < t.rank; ++axis)
    bytes *= t.shape[axis];
  return bytes;
}

/// A graph's device arrays by the names of sezm-run --structure.
std::map<std::string, sezm_tensor> graphArrays(const DeviceGraph &g) {
  int64_t n = g.atoms, e = g.edges;
  const auto *index = static_cast<const int64_t *>(g.edgeIndex);
  sezm_dtype real = g.doubles ? SEZM_F64 : SEZM_F32;
  return {{port::kPositions, deviceArray(real, {n, 3}, g.coord)},
          {port::kShift, deviceArray(real, {e, 3}, g.shift)},
          {port::kSrc, deviceArray(SEZM_I64, {e}, index)},
          {port::kDst, deviceArray(SEZM_I64, {e}, index + e)},
          {port::kSrcOrder, deviceArray(SEZM_I64, {e}, g.srcOrder)},
          {port::kSrcRowptr, deviceArray(SEZM_I64, {n + 1}, g.srcRowptr)},
          {port::kDstOrder, deviceArray(SEZM_I64, {e}, g.dstOrder)},
          {port::kDstRowptr, deviceArray(SEZM_I64, {n + 1}, g.dstRowptr)},
          {port::kTypes, deviceArray(SEZM_I64, {n}, g.types)},
          {port::kEdgeIndex, deviceArray(SEZM_I64, {2, e}, index)},
          {port::kEdgeVec, deviceArray(real, {e, 3}, g.edgeVec)}};
}
} // namespace

extern "C" {

const char *sezm_last_error(void) { return lastError.c_str(); }

int sezm_gpu_available(void) {
  CudaDriver &d = driver();
  if (!d.ensure())
    return failWith(d.error(), 0);
  return 1;
}

namespace {
/// Makes each `cubin/<module>` section the machine code of the PTX of
/// `ptx/<module>`, for the module loads of the host library.
void registerCubins(const Artifact &artifact) {
  RuntimeState &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  for (const auto &[name, bytes] : artifact.sections) {
    if (name.compare(0, 6, "cubin/") != 0)
      continue;
    auto ptx = artifact.sections.find("ptx/" + name.substr(6));
    if (ptx != artifact.sections.end())
      // Hashed as mgpuModuleLoad hashes the text it is given: up to its
      // first NUL.
      s.cubins[std::hash<std::string>()(std::string(ptx->second.c_str()))] =
          bytes;
  }
}

/// Loads an artifact's host library from memory (an anonymous file), so
/// that nothing is written to disk; null with `error` set on failure. The
/// file stays open in `file` until the library is closed: the loader knows
/// a library by its path, and a second model's /proc/self/fd path must not
/// be the first's (a reused descriptor number would hand it the first
/// model's library).
void *loadHostLibrary(const std::string &host, int &file, std::string &error) {
  int fd = memfd_create("sezm-host.so", MFD_CLOEXEC);
  if (fd < 0) {
    error = "cannot create an in-memory file for the host library";
    return nullptr;
  }
  size_t written = 0;
  while (written < host.size()) {
    ssize_t n = write(fd, host.data() + written, host.size() - written);
    if (n <= 0) {
      close(fd);
      error = "cannot write the host library to memory";
      return nullptr;
    }
    written += static_cast<size_t>(n);
  }
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    error = std::string("cannot load its host library: ") + dlerror();
    close(fd);
    return nullptr;
  }
  file = fd;
  return library;
}

/// Whether this CPU runs code compiled for the x86-64 `level` of an
/// artifact's CPU library.
bool cpuRuns(const std::string &level) {
  if (level != "x86-64-v3")
    return level == "x86-64";
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
         __builtin_cpu_supports("bmi2");
}

/// Chooses the device an artifact runs on, from the code it has and the
/// device asked for; false with `error` set when none can run it.
bool chooseDevice(const Artifact &artifact, sezm_device asked, bool &onCpu,
                  std::string &error) {
  bool hasGpu = artifact.sections.count(kHostSection) != 0;
  bool hasCpu = artifact.sections.count(kCpuSection) != 0;
  if (asked == SEZM_DEVICE_GPU && !hasGpu) {
    error = "it has no GPU code (it was compiled with --target cpu)";
    return false;
  }
  if (asked == SEZM_DEVICE_CPU && !hasCpu) {
    error = "it has no CPU code (compile it with --target cpu or all)";
    return false;
  }
  std::string gpuWhy;
  if (asked != SEZM_DEVICE_CPU && hasGpu) {
    CudaDriver &d = driver();
    if (d.ensure()) {
      onCpu = false;
      return true;
    }
    gpuWhy = d.error();
    if (asked == SEZM_DEVICE_GPU || !hasCpu) {
      error = gpuWhy + (hasCpu ? ""
                               : "; and it has no CPU code (compile it "
                                 "with --target cpu or all)");
      return false;
    }
  }
  auto level = artifact.sections.find(kCpuLevelSection);
  std::string wanted =
      level == artifact.sections.end() ? "x86-64" : level->second;
  if (!cpuRuns(wanted)) {
    error = "its CPU code needs " + wanted +
            " (AVX2, FMA), which this processor lacks; compile it on this "
            "machine" +
            (gpuWhy.empty() ? "" : " (no GPU either: " + gpuWhy + ")");
    return false;
  }
  onCpu = true;
  return true;
}
} // namespace

namespace {
/// Runs an entry of a model opened on the CPU, its inputs checked: the
/// inputs are read where they stand, and each output is copied into host
/// memory the model owns until the next run.
int runOnCpu(sezm_model *model, const EntrySignature &signature,
             const sezm_tensor *inputs, int inputCount, sezm_tensor *outputs,
             int outputsOnDevice) {
  if (outputsOnDevice)
    return failWith("@" + signature.function +
                        " runs on the CPU: its outputs cannot be left on a "
                        "GPU",
                    1);
  std::vector<MemRefDescriptor> arguments;
  for (int i = 0; i < inputCount; ++i) {
    if (inputs[i].on_device)
      return failWith("input '" + signature.arguments[i].name +
                          "' is in GPU memory, but the model runs on the CPU",
                      1);
    arguments.push_back(MemRefDescriptor::contiguous(
        inputs[i].data,
        std::vector<int64_t>(inputs[i].shape,
                             inputs[i].shape + inputs[i].rank)));
  }
  std::vector<size_t> ranks;
  for (const TensorPort &port : signature.results)
    ranks.push_back(port.shape.size());
  PackedCall call(std::move(arguments), ranks);
  auto start = std::chrono::steady_clock::now();
  model->packed[signature.function](call.pointers());
  model->lastRunMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count();

  std::vector<void *> inputBuffers, freed;
  for (const MemRefDescriptor &a : call.arguments())
    inputBuffers.push_back(a.allocated);
  std::vector<MemRefDescriptor> results = call.results();
  for (size_t i = 0; i < results.size(); ++i) {
    const MemRefDescriptor &r = results[i];
    HostTensor host(signature.results[i].type, r.sizes);
    copyStrided(r, elementSize(host.type), host.bytes.data());
    model->hostOutputs.push_back(std::move(host));
    sezm_tensor &out = outputs[i];
    out = describeHost(model->hostOutputs.back());
    // Results are fresh allocations, unless one is an input handed back or
    // two results share one buffer.
    auto has = [](const std::vector<void *> &list, void *p) {
      return std::find(list.begin(), list.end(), p) != list.end();
    };
    if (r.allocated && !has(inputBuffers, r.allocated) &&
        !has(freed, r.allocated)) {
      freed.push_back(r.allocated);
      freeHostBuffer(r.allocated);
    }
  }
  return 0;
}
} // namespace

sezm_model *sezm_model_open(const char *path) {
  return sezm_model_open_on(path, SEZM_DEVICE_AUTO);
}

sezm_model *sezm_model_open_on(const char *path, sezm_device device) {
  if (!path)
    return failWith("sezm_model_open: no path", nullptr);
  if (device != SEZM_DEVICE_AUTO && device != SEZM_DEVICE_CPU &&
      device != SEZM_DEVICE_GPU)
    return failWith("sezm_model_open_on: device " + std::to_string(device) +
                        " is none of SEZM_DEVICE_AUTO, _CPU and _GPU",
                    nullptr);
  exportRuntimeSymbols();
  std::string bytes, error;
  if (!readFileBytes(path, bytes, error))
    return failWith(error, nullptr);
  void *library = nullptr;
  int hostFile = -1;
  bool onCpu = false;
  std::string manifestText;
  std::map<std::string, HostTensor> carried;
  if (looksLikeArtifact(bytes)) {
    // The versioned artifact of sezm-compile: checked whole before any of
    // its code is loaded.
    Artifact artifact;
    if (!parseArtifact(bytes, artifact, error))
      return failWith(std::string(path) + ": " + error, nullptr);
    auto weights = artifact.sections.find("weights");
    if (weights != artifact.sections.end() &&
        !parseSafetensors(weights->second, carried, error))
      return failWith(std::string(path) + ": its weights: " + error, nullptr);
    if (!chooseDevice(artifact, device, onCpu, error))
      return failWith(std::string(path) + ": " + error, nullptr);
    if (!onCpu)
      registerCubins(artifact);
    library = loadHostLibrary(
        artifact.sections[onCpu ? kCpuSection : kHostSection], hostFile, error);
    if (!library)
      return failWith(std::string(path) + ": " + error, nullptr);
    manifestText = artifact.sections[kManifestSection];
  } else if (bytes.compare(0, 4,
                           "\x7f"
                           "ELF") == 0) {
    // A library alone (sezm-compile --emit=lib), which does not say its
    // device: the one asked for, else the GPU where one is found. A bare
    // file name is a file here, not a library to search for.
    onCpu = device == SEZM_DEVICE_CPU ||
            (device == SEZM_DEVICE_AUTO && !driver().ensure());
    std::string file = path;
    if (file.find('/') == std::string::npos)
      file = "./" + file;
    library = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library)
      return failWith(std::string("cannot load ") + path + ": " + dlerror(),
                      nullptr);
  } else {
    return failWith(std::string(path) +
                        " is not a sezm artifact (neither the SEZMART "
                        "format of sezm-compile nor a shared library)",
                    nullptr);
  }
  auto *manifest = static_cast<const char *>(dlsym(library, "sezm_manifest"));
  if (!manifest || (!manifestText.empty() && manifestText != manifest)) {
    dlclose(library);
    if (hostFile >= 0)
      close(hostFile);
    return failWith(std::string(path) +
                        (manifest ? ": the host library's manifest differs "
                                    "from the artifact's"
                                  : " is not a sezm artifact (no "
                                    "sezm_manifest)"),
                    nullptr);
  }
  auto *model = new sezm_model();
  model->library = library;
  model->onCpu = onCpu;
  if (onCpu)
    ++openCpuModels;
  model->hostFile = hostFile;
  model->carried = std::move(carried);
  error = parseManifest(manifest, model->entries);
  if (error.empty()) {
    for (const EntrySignature &entry : model->entries) {
      auto fn = reinterpret_cast<PackedEntry>(
          dlsym(library, ("_sezm_packed_" + entry.function).c_str()));
      if (!fn) {
        error = "entry '" + entry.function + "' has no packed entry point";
        break;
      }
      model->packed[entry.function] = fn;
    }
  }
  // Loading ran the artifact's constructors, which load its PTX.
  std::string cudaError;
  if (error.empty() && takeRuntimeError(cudaError))
    error = cudaError;
  if (!error.empty()) {
    sezm_model_close(model);
    return failWith(std::string(path) + ": " + error, nullptr);
  }
  return model;
}

void sezm_model_close(sezm_model *model) {
  if (!model)
    return;
  sezm_model_release_outputs(model);
  for (auto &entry : model->carriedOnDevice)
    sezm_tensor_free(&entry.second);
  if (model->library)
    dlclose(model->library);
  if (model->hostFile >= 0)
    close(model->hostFile);
  // The CPU buffers kept for the next call go back with the last CPU model.
  if (model->onCpu && --openCpuModels == 0)
    releaseHostCache();
  delete model;
}

sezm_device sezm_model_device(const sezm_model *model) {
  if (!model)
    return SEZM_DEVICE_AUTO;
  return model->onCpu ? SEZM_DEVICE_CPU : SEZM_DEVICE_GPU;
}

int sezm_model_entry_count(const sezm_model *model) {
  return model ? static_cast<int>(model->entries.size()) : 0;
}

int sezm_model_type_count(const sezm_model *model) {
  return model && !model->entries.empty()
             ? static_cast<int>(model->entries.front().typeMap.size())
             : 0;
}

const char *sezm_model_type_name(const sezm_model *model, int index) {
  if (index < 0 || index >= sezm_model_type_count(model))
    return nullptr;
  return model->entries.front().typeMap[index].c_str();
}

double sezm_model_rcut(const sezm_model *model) {
  return model && !model->entries.empty() ? model->entries.front().rcut : 0;
}

const char *sezm_model_entry_name(const sezm_model *model, int entry) {
  if (!model || entry < 0 || entry >= sezm_model_entry_count(model))
    return nullptr;
  return model->entries[entry].function.c_str();
}

int sezm_model_input_count(const sezm_model *model, const char *entry) {
  const EntrySignature *e = findEntry(model, entry);
  return e ? static_cast<int>(e->arguments.size()) : -1;
}

int sezm_model_input_carried(const sezm_model *model, const char *entry,
                             int index) {
  const EntrySignature *e = findEntry(model, entry);
  if (!e || index < 0 || index >= static_cast<int>(e->arguments.size()))
    return 0;
  return model->carried.count(e->arguments[index].name) ? 1 : 0;
}

int sezm_model_output_count(const sezm_model *model, const char *entry) {
  const EntrySignature *e = findEntry(model, entry);
  return e ? static_cast<int>(e->results.size()) : -1;
}

const char *sezm_model_input_name(const sezm_model *model, const char *entry,
                                  int index) {
  const EntrySignature *e = findEntry(model, entry);
  if (!e || index < 0 || index >= static_cast<int>(e->arguments.size()))
    return nullptr;
  return e->arguments[index].name.c_str();
}

const char *sezm_model_output_name(const sezm_model *model, const char *entry,
                                   int index) {
  const EntrySignature *e = findEntry(model, entry);
  if (!e || index < 0 || index >= static_cast<int>(e->results.size()))
    return nullptr;
  return e->results[index].name.c_str();
}

int sezm_model_output_dtype(const sezm_model *model, const char *entry,
                            int index) {
  const EntrySignature *e = findEntry(model, entry);
  if (!e || index < 0 || index >= static_cast<int>(e->results.size()))
    return -1;
  return runtimeDtype(e->results[index].type);
}

void sezm_model_release_outputs(sezm_model *model) {
  if (!model)
    return;
  model->hostOutputs.clear();
  for (CUdeviceptr pointer : model->deviceOutputs)
    mgpuMemFree(reinterpret_cast<void *>(pointer), nullptr);
  model->deviceOutputs.clear();
}

int sezm_model_run(sezm_model *model, const char *entry,
                   const sezm_tensor *inputs, int inputCount,
                   sezm_tensor *outputs, int outputCount, int outputsOnDevice) {
  const EntrySignature *signature = findEntry(model, entry);
  if (!signature)
    return failWith(std::string("no entry '") + (entry ? entry : "") + "'", 1);
  int all = static_cast<int>(signature->arguments.size()), uncarried = 0;
  for (const TensorPort &port : signature->arguments)
    uncarried += model->carried.count(port.name) ? 0 : 1;
  if ((inputCount != all && inputCount != uncarried) ||
      outputCount != static_cast<int>(signature->results.size()))
    return failWith("@" + signature->function + " takes " +
                        std::to_string(all) + " inputs" +
                        (uncarried != all
                             ? " (or the " + std::to_string(uncarried) +
                                   " the artifact does not carry)"
                             : std::string()) +
                        " and returns " +
                        std::to_string(signature->results.size()) + " outputs",
                    1);
  CudaDriver &d = driver();
  if (!model->onCpu && !d.ensure())
    return failWith(d.error(), 1);
  sezm_model_release_outputs(model);

  // The carried inputs the caller left out: the artifact's, on the device
  // that runs the model.
  std::vector<sezm_tensor> complete;
  if (inputCount != all) {
    const sezm_tensor *given = inputs;
    for (const TensorPort &port : signature->arguments) {
      auto weight = model->carried.find(port.name);
      if (weight == model->carried.end()) {
        complete.push_back(*given++);
        continue;
      }
      if (model->onCpu) {
        complete.push_back(describeHost(weight->second));
        continue;
      }
      auto [cached, fresh] =
          model->carriedOnDevice.try_emplace(port.name, sezm_tensor{});
      if (fresh) {
        const HostTensor &host = weight->second;
        sezm_tensor view = describeHost(host);
        if (sezm_tensor_to_device(&view, &cached->second)) {
          model->carriedOnDevice.erase(cached);
          return failWith("the carried input '" + port.name +
                              "' cannot be copied to the device: " + lastError,
                          1);
        }
      }
      complete.push_back(cached->second);
    }
    inputs = complete.data();
    inputCount = all;
  }

  // Host copies of the index arrays for the checks; float arrays are
  // checked by type and shape alone, so they are not copied (gigabytes at
  // N = 16384).
  bool indicesOnHost = true;
  std::vector<HostTensor> views;
  for (int i = 0; i < inputCount; ++i) {
    const sezm_tensor &in = inputs[i];
    if (in.rank < 0 || in.rank > 8)
      return failWith("input " + std::to_string(i) + " has rank " +
                          std::to_string(in.rank),
                      1);
    HostTensor view;
    view.type = elementTypeOf(in.dtype);
    view.shape.assign(in.shape, in.shape + in.rank);
    bool index = view.type == ElementType::I32 || view.type == ElementType::I64;
    if (index && in.on_device) {
      indicesOnHost = false;
    } else if (index) {
      auto *bytes = static_cast<const unsigned char *>(in.data);
      view.bytes.assign(bytes,
                        bytes + view.numElements() * elementSize(view.type));
    }
    views.push_back(std::move(view));
  }
  std::string error = signature->checkInputs(views, indicesOnHost);
  // Host float arrays are read where they stand, not copied for the check.
  for (int i = 0; i < inputCount && error.empty(); ++i)
    if (!inputs[i].on_device)
      error =
          nonFiniteError("input '" + signature->arguments[i].name + "'",
                         views[i].type, inputs[i].data, views[i].numElements());
  if (!error.empty())
    return failWith(error, 1);
  if (model->onCpu)
    return runOnCpu(model, *signature, inputs, inputCount, outputs,
                    outputsOnDevice);

  RuntimeState &s = state();
  std::vector<CUdeviceptr> staged;
  std::vector<MemRefDescriptor> arguments;
  for (int i = 0; i < inputCount; ++i) {
    void *device = inputs[i].data;
    if (!inputs[i].on_device) {
      size_t bytes = views[i].numElements() * elementSize(views[i].type);
      device = mgpuMemAlloc(bytes, nullptr, false);
      if (device)
        s.check("cuMemcpyHtoD",
                d.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(device),
                               inputs[i].data, bytes));
      staged.push_back(reinterpret_cast<CUdeviceptr>(device));
    }
    arguments.push_back(MemRefDescriptor::contiguous(device, views[i].shape));
  }
  std::vector<size_t> ranks;
  for (const TensorPort &port : signature->results)
    ranks.push_back(port.shape.size());
  PackedCall call(std::move(arguments), ranks);

  {
    std::lock_guard<std::mutex> guard(s.lock);
    s.launches.clear();
  }
  auto start = std::chrono::steady_clock::now();
  if (!s.failed())
    model->packed[signature->function](call.pointers());
  s.check("cuCtxSynchronize", d.cuCtxSynchronize());
  model->lastRunMs = std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - start)
                         .count();

  std::vector<MemRefDescriptor> results = call.results();
  for (size_t i = 0; i < results.size(); ++i) {
    const MemRefDescriptor &r = results[i];
    sezm_tensor &out = outputs[i];
    out.dtype = runtimeDtype(signature->results[i].type);
    out.rank = static_cast<int>(r.sizes.size());
    for (int a = 0; a < out.rank; ++a)
      out.shape[a] = r.sizes[a];
    size_t width = elementSize(signature->results[i].type);
    auto *first = static_cast<unsigned char *>(r.aligned) + r.offset * width;
    bool contiguous =
        MemRefDescriptor::contiguous(nullptr, r.sizes).strides == r.strides;
    if (!contiguous)
      s.fail("result '" + signature->results[i].name +
             "' is not contiguous in device memory");
    if (outputsOnDevice) {
      out.data = first;
      out.on_device = 1;
    } else {
      // Host memory only for results the caller wants on the host: results
      // run to gigabytes, and zeroing as much host memory on each run cost
      // about a second per 1.6 GB.
      HostTensor host(signature->results[i].type, r.sizes);
      if (!host.bytes.empty() && contiguous)
        s.check("cuMemcpyDtoH",
                d.cuMemcpyDtoH(host.bytes.data(),
                               reinterpret_cast<CUdeviceptr>(first),
                               host.bytes.size()));
      model->hostOutputs.push_back(std::move(host));
      out.data = model->hostOutputs.back().bytes.data();
      out.on_device = 0;
    }
    // The run allocated each result; inputs handed back are not ours.
    bool isInput = false;
    for (const MemRefDescriptor &a : call.arguments())
      isInput |= a.allocated == r.allocated;
    if (!isInput && r.allocated) {
      if (outputsOnDevice)
        model->deviceOutputs.push_back(
            reinterpret_cast<CUdeviceptr>(r.allocated));
      else
        mgpuMemFree(r.allocated, nullptr);
    }
  }
  for (CUdeviceptr pointer : staged)
    mgpuMemFree(reinterpret_cast<void *>(pointer), nullptr);
  if (takeRuntimeError(error))
    return failWith("running @" + signature->function + ": " + error, 1);
  return 0;
}

namespace {
sezm_graph *graphFromPositions(const char *api, int64_t natoms,
                               const void *coord, bool coordDoubles,
                               const int32_t *atype, int ntypes,
                               const double *cell, const int *pbc,
                               double cutoff, bool outDoubles) {
  if (natoms < 1 || !coord || (atype && ntypes < 1) || !(cutoff > 0))
    return failWith(std::string(api) +
                        "needs natoms >= 1, coord, ntypes >= 1 with atype "
                        "and a positive cutoff",
                    nullptr);
  CudaDriver &d = driver();
  if (!d.ensure())
    return failWith(d.error(), nullptr);
  auto *graph = new sezm_graph();
  std::string error =
      graph->arrays.fromPositions(natoms, ntypes, coord, coordDoubles, atype,
                                  cell, pbc, cutoff, outDoubles);
  if (!error.empty()) {
    delete graph;
    return failWith(api + error, nullptr);
  }
  return graph;
}
} // namespace

sezm_graph *sezm_graph_from_positions_gpu(int64_t natoms, const float *coord,
                                          const int32_t *atype, int ntypes,
                                          const double *cell, const int *pbc,
                                          double cutoff) {
  return graphFromPositions("sezm_graph_from_positions_gpu: ", natoms, coord,
                            false, atype, ntypes, cell, pbc, cutoff, false);
}

sezm_graph *sezm_graph_from_positions_gpu_f64(
    int64_t natoms, const double *coord, const int32_t *atype, int ntypes,
    const double *cell, const int *pbc, double cutoff, int doubles) {
  return graphFromPositions("sezm_graph_from_positions_gpu_f64: ", natoms,
                            coord, true, atype, ntypes, cell, pbc, cutoff,
                            doubles != 0);
}

int64_t sezm_graph_edge_count(const sezm_graph *graph) {
  return graph ? graph->arrays.edges : -1;
}

int sezm_graph_array(const sezm_graph *graph, const char *name,
                     sezm_tensor *array) {
  if (!graph || !name || !array)
    return failWith("sezm_graph_array: needs a graph, a name and an array", 1);
  std::map<std::string, sezm_tensor> arrays = graphArrays(graph->arrays);
  auto found = arrays.find(name);
  if (found == arrays.end() || !found->second.data)
    return failWith(std::string("sezm_graph_array: the graph has no array '") +
                        name + "'",
                    1);
  *array = found->second;
  return 0;
}

void sezm_graph_free(sezm_graph *graph) { delete graph; }

sezm_pair_list *sezm_pair_list_create(int64_t nodes, int64_t centres,
                                      const int32_t *centre,
                                      const int64_t *start,
                                      const int32_t *neighbour,
                                      const int32_t *source) {
  const char *api = "sezm_pair_list_create: ";
  if (nodes < 1 || centres < 0 || !centre || !start || start[0] != 0 ||
      (start[centres] > 0 && (!neighbour || !source)))
    return failWith(std::string(api) +
                        "needs nodes >= 1, centres >= 0, start[0] = 0 and "
                        "every array",
                    nullptr);
  for (int64_t c = 0; c < centres; ++c) {
    if (centre[c] < 0 || centre[c] >= nodes)
      return failWith(api + std::string("centre ") + std::to_string(c) +
                          " is node " + std::to_string(centre[c]) +
                          ", outside [0, " + std::to_string(nodes) + ")",
                      nullptr);
    if (start[c + 1] < start[c])
      return failWith(api + std::string("start decreases at centre ") +
                          std::to_string(c),
                      nullptr);
  }
  for (int64_t p = 0; p < start[centres]; ++p)
    if (neighbour[p] < 0 || source[p] < 0 || source[p] >= nodes)
      return failWith(api + std::string("candidate ") + std::to_string(p) +
                          " has neighbour row " + std::to_string(neighbour[p]) +
                          " and source node " + std::to_string(source[p]) +
                          " (nodes are [0, " + std::to_string(nodes) + "))",
                      nullptr);
  CudaDriver &d = driver();
  if (!d.ensure())
    return failWith(d.error(), nullptr);
  auto *list = new sezm_pair_list();
  std::string error =
      list->pairs.assign(nodes, centres, centre, start, neighbour, source);
  if (!error.empty()) {
    delete list;
    return failWith(api + error, nullptr);
  }
  for (int64_t c = 0; c < centres; ++c)
    list->lastRow = std::max<int64_t>(list->lastRow, centre[c]);
  for (int64_t p = 0; p < start[centres]; ++p)
    list->lastRow = std::max<int64_t>(list->lastRow, neighbour[p]);
  return list;
}

int sezm_pair_list_select(sezm_pair_list *list, int64_t points,
                          const double *positions, double cutoff, int doubles,
                          int64_t *nedges, int64_t *badCandidate) {
  const char *api = "sezm_pair_list_select: ";
  if (!list || !positions || !nedges || !badCandidate || !(cutoff > 0) ||
      points < list->pairs.nodes)
    return failWith(std::string(api) +
                        "needs a list, positions of at least its nodes, a "
                        "positive cutoff, nedges and bad_candidate",
                    1);
  if (list->lastRow >= points)
    return failWith(api + std::string("the candidates name row ") +
                        std::to_string(list->lastRow) + " of " +
                        std::to_string(points) + " positions",
                    1);
  std::string error =
      list->pairs.select(points, positions, cutoff, kMinAtomSeparation,
                         doubles != 0, *badCandidate);
  if (!error.empty())
    return failWith(api + error, 1);
  *nedges = list->pairs.edges;
  return *badCandidate >= 0 ? 2 : 0;
}

int sezm_pair_list_array(const sezm_pair_list *list, const char *name,
                         sezm_tensor *array) {
  if (!list || !name || !array)
    return failWith("sezm_pair_list_array: needs a list, a name and an array",
                    1);
  const PairList &p = list->pairs;
  if (!p.coord)
    return failWith("sezm_pair_list_array: the list has selected no edges yet",
                    1);
  sezm_dtype real = p.doubles ? SEZM_F64 : SEZM_F32;
  std::string wanted = name;
  if (wanted == "coord")
    *array = deviceArray(real, {p.nodes, 3}, p.coord);
  else if (wanted == "edge_index")
    *array = deviceArray(SEZM_I64, {2, p.edges}, p.edgeIndex);
  else if (wanted == "edge_vec")
    *array = deviceArray(real, {p.edges, 3}, p.edgeVec);
  else
    return failWith("sezm_pair_list_array: no array '" + wanted +
                        "' (coord, edge_index, edge_vec)",
                    1);
  return 0;
}

void sezm_pair_list_free(sezm_pair_list *list) { delete list; }

} // extern "C"

namespace {
/// sezm_model_compute_edges_gpu and its double twin: `doubles` says whether
/// coord, edge_vec, energy, force and virial hold doubles.
int computeEdgesGpu(const char *api, sezm_model *model, const char *entry,
                    int64_t natoms, int64_t nedges, int ntypes,
                    const void *coord, const int32_t *atype,
                    const int64_t *edgeIndex, const void *edgeVec, void *energy,
                    void *force, void *virial, bool doubles) {
  const EntrySignature *signature = findEntry(model, entry);
  if (!signature)
    return failWith(
        std::string(api) + "no entry '" + (entry ? entry : "") + "'", 1);
  if (natoms < 1 || nedges < 0 || ntypes < 1 || !coord || !atype ||
      (nedges > 0 && (!edgeIndex || !edgeVec)) || !energy || !force || !virial)
    return failWith(std::string(api) +
                        "needs natoms >= 1, nedges >= 0, ntypes >= 1 and "
                        "every array",
                    1);
  // Its outputs, by name, and their sizes.
  ElementType real = doubles ? ElementType::F64 : ElementType::F32;
  const char *realName = doubles ? "float64" : "float32";
  const std::vector<std::pair<std::string, void *>> wanted = {
      {"energy", energy}, {"forces", force}, {"virial", virial}};
  std::vector<int> outputOf;
  for (const auto &[name, pointer] : wanted) {
    int found = -1;
    bool otherType = false;
    for (size_t i = 0; i < signature->results.size(); ++i)
      if (signature->results[i].name == name) {
        if (signature->results[i].type == real)
          found = static_cast<int>(i);
        else
          otherType = true;
      }
    if (found < 0 && otherType)
      return failWith(std::string(api) + "@" + signature->function +
                          " returns '" + name + "' as " +
                          (doubles ? "float32" : "float64") + ", not " +
                          realName +
                          (doubles ? " (use sezm_model_compute_edges_gpu)"
                                   : " (use sezm_model_compute_edges_gpu_f64)"),
                      1);
    if (found < 0)
      return failWith(
          std::string(api) + "@" + signature->function + " has no " + realName +
              " result '" + name + "' (compile an energy with --forces-of" +
              (doubles ? ", in float64 or DeePMD-kit's split)" : ")"),
          1);
    outputOf.push_back(found);
  }
  for (const TensorPort &port : signature->arguments)
    if ((port.name == port::kPositions || port.name == port::kShift) &&
        port.type != real)
      return failWith(std::string(api) + "@" + signature->function +
                          " takes '" + port.name + "' as " + port.describe() +
                          ", not " + realName +
                          (doubles ? " (use sezm_model_compute_edges_gpu)"
                                   : " (use "
                                     "sezm_model_compute_edges_gpu_f64)"),
                      1);
  CudaDriver &d = driver();
  if (!d.ensure())
    return failWith(d.error(), 1);

  DeviceGraph graph;
  std::string error = graph.fromEdges(natoms, nedges, ntypes, coord, atype,
                                      edgeIndex, edgeVec, doubles);
  if (!error.empty())
    return failWith(api + error, 1);
  const std::map<std::string, sezm_tensor> graphInputs = graphArrays(graph);
  std::vector<sezm_tensor> inputs;
  for (const TensorPort &port : signature->arguments) {
    if (model->carried.count(port.name))
      continue;
    auto input = graphInputs.find(port.name);
    if (input == graphInputs.end())
      return failWith(std::string(api) + "input '" + port.name + "' of @" +
                          signature->function +
                          " is neither a graph input nor carried by the "
                          "artifact",
                      1);
    inputs.push_back(input->second);
  }
  std::vector<sezm_tensor> outputs(signature->results.size());
  if (sezm_model_run(model, entry, inputs.data(),
                     static_cast<int>(inputs.size()), outputs.data(),
                     static_cast<int>(outputs.size()), 1))
    return failWith(api + lastError, 1);
  RuntimeState &s = state();
  size_t width = doubles ? 8 : 4;
  const size_t bytes[] = {width, static_cast<size_t>(natoms) * 3 * width,
                          9 * width};
  for (size_t k = 0; k < wanted.size(); ++k)
    s.check("cuMemcpyAsync",
            d.cuMemcpyAsync(
                reinterpret_cast<CUdeviceptr>(wanted[k].second),
                reinterpret_cast<CUdeviceptr>(outputs[outputOf[k]].data),
                bytes[k], nullptr));
  s.check("cuCtxSynchronize", d.cuCtxSynchronize());
  sezm_model_release_outputs(model);
  if (takeRuntimeError(error))
    return failWith(api + error, 1);
  return 0;
}
} // namespace

namespace {
/// Runs `signature`'s entry with its inputs found by name among `available`
/// (the carried ones from the artifact) and returns its outputs by name, as
/// doubles; false with lastError set on failure.
bool runOnHost(sezm_model *model, const std::string &api,
               const EntrySignature &signature,
               const std::vector<GraphInput> &available,
               std::map<std::string, std::vector<double>> &results) {
  std::vector<HostTensor> bound;
  for (const TensorPort &port : signature.arguments) {
    if (model->carried.count(port.name))
      continue;
    auto input = std::find_if(
        available.begin(), available.end(),
        [&](const GraphInput &in) { return in.name == port.name; });
    if (input == available.end())
      return failWith(api + "input '" + port.name + "' of @" +
                          signature.function +
                          " is neither a graph input nor carried by the "
                          "artifact",
                      false);
    bound.push_back(input->as(port.type));
  }
  std::vector<sezm_tensor> inputs, outputs(signature.results.size());
  for (const HostTensor &tensor : bound)
    inputs.push_back(describeHost(tensor));
  if (sezm_model_run(model, signature.function.c_str(), inputs.data(),
                     static_cast<int>(inputs.size()), outputs.data(),
                     static_cast<int>(outputs.size()), 0))
    return failWith(api + lastError, false);
  results.clear();
  for (size_t i = 0; i < outputs.size(); ++i) {
    const sezm_tensor &out = outputs[i];
    int64_t count = 1;
    for (int axis = 0; axis < out.rank; ++axis)
      count *= out.shape[axis];
    // Integer results are not read (and then found missing where wanted).
    if (out.dtype != SEZM_F32 && out.dtype != SEZM_F64)
      continue;
    std::vector<double> &values = results[signature.results[i].name];
    values.resize(count);
    for (int64_t k = 0; k < count; ++k)
      values[k] = out.dtype == SEZM_F64
                      ? static_cast<const double *>(out.data)[k]
                      : static_cast<const float *>(out.data)[k];
  }
  return true;
}

/// The checks of the host entries' atoms: types in [0, ntypes), finite
/// coordinates; false with lastError set.
bool checkAtoms(const std::string &api, int64_t natoms, int ntypes,
                const double *coord, const int32_t *atype) {
  for (int64_t i = 0; i < natoms; ++i)
    if (atype[i] < 0 || atype[i] >= ntypes)
      return failWith(api + "atom " + std::to_string(i) + " has type " +
                          std::to_string(atype[i]) + ", outside [0, " +
                          std::to_string(ntypes) + ")",
                      false);
  for (int64_t i = 0; i < 3 * natoms; ++i)
    if (!std::isfinite(coord[i]))
      return failWith(api + "atom " + std::to_string(i / 3) +
                          " has a coordinate that is not a finite number",
                      false);
  return true;
}

/// The graph inputs of an MD engine's edge list (positions, shift, src,
/// dst, both CSRs, types); false with lastError set.
bool edgeListInputs(const std::string &api, int64_t natoms, int64_t nedges,
                    const double *coord, const int32_t *atype,
                    const int64_t *edgeIndex, const double *edgeVec,
                    std::vector<GraphInput> &inputs) {
  NeighbourGraph graph;
  std::string error;
  if (!graphFromEdges(natoms, nedges, coord, edgeIndex, edgeVec, graph, error))
    return failWith(api + error, false);
  Structure structure;
  structure.positions.resize(natoms);
  for (int64_t i = 0; i < natoms; ++i)
    structure.positions[i] = {coord[3 * i], coord[3 * i + 1], coord[3 * i + 2]};
  inputs = graphInputs(structure, graph);
  inputs.push_back(
      GraphInput{port::kTypes, false, {natoms}, {}, {atype, atype + natoms}});
  return true;
}

/// Rows [0, rows) of a node input (positions, types).
GraphInput firstRows(const GraphInput &input, int64_t rows) {
  GraphInput head = input;
  int64_t width = 1;
  for (size_t axis = 1; axis < input.shape.size(); ++axis)
    width *= input.shape[axis];
  head.shape[0] = rows;
  if (input.isFloat)
    head.floats.resize(rows * width);
  else
    head.indices.resize(rows * width);
  return head;
}
} // namespace

extern "C" {

int sezm_model_compute_edges_gpu(sezm_model *model, const char *entry,
                                 int64_t natoms, int64_t nedges, int ntypes,
                                 const float *coord, const int32_t *atype,
                                 const int64_t *edgeIndex, const float *edgeVec,
                                 float *energy, float *force, float *virial) {
  return computeEdgesGpu("sezm_model_compute_edges_gpu: ", model, entry, natoms,
                         nedges, ntypes, coord, atype, edgeIndex, edgeVec,
                         energy, force, virial, false);
}

int sezm_model_compute_edges_gpu_f64(sezm_model *model, const char *entry,
                                     int64_t natoms, int64_t nedges, int ntypes,
                                     const double *coord, const int32_t *atype,
                                     const int64_t *edgeIndex,
                                     const double *edgeVec, double *energy,
                                     double *force, double *virial) {
  return computeEdgesGpu("sezm_model_compute_edges_gpu_f64: ", model, entry,
                         natoms, nedges, ntypes, coord, atype, edgeIndex,
                         edgeVec, energy, force, virial, true);
}

int sezm_model_compute_edges(sezm_model *model, const char *entry,
                             int64_t natoms, int64_t nedges, int ntypes,
                             const double *coord, const int32_t *atype,
                             const int64_t *edgeIndex, const double *edgeVec,
                             double *energy, double *force, double *virial,
                             double *atomEnergy, double *atomVirial) {
  const std::string api = "sezm_model_compute_edges: ";
  const EntrySignature *signature = findEntry(model, entry);
  if (!signature)
    return failWith(api + "no entry '" + (entry ? entry : "") + "'", 1);
  if (natoms < 1 || nedges < 0 || ntypes < 1 || !coord || !atype ||
      (nedges > 0 && (!edgeIndex || !edgeVec)) || !energy || !force || !virial)
    return failWith(api + "needs natoms >= 1, nedges >= 0, ntypes >= 1 and "
                          "every array",
                    1);
  std::vector<std::pair<std::string, double *>> wanted = {
      {"energy", energy}, {"forces", force}, {"virial", virial}};
  std::vector<int64_t> counts = {1, 3 * natoms, 9};
  if (atomEnergy) {
    wanted.push_back({"atom_energy", atomEnergy});
    counts.push_back(natoms);
  }
  if (atomVirial) {
    wanted.push_back({"atom_virial", atomVirial});
    counts.push_back(9 * natoms);
  }
  for (const auto &[name, pointer] : wanted) {
    const std::string &wantedName = name;
    if (std::none_of(
            signature->results.begin(), signature->results.end(),
            [&](const TensorPort &port) { return port.name == wantedName; }))
      return failWith(
          api + "@" + signature->function + " has no result '" + name +
              "' (compile an energy with --forces-of" +
              (pointer == energy || pointer == force || pointer == virial
                   ? ")"
                   : " and --per-atom)"),
          1);
  }
  std::vector<GraphInput> available;
  std::map<std::string, std::vector<double>> results;
  if (!checkAtoms(api, natoms, ntypes, coord, atype) ||
      !edgeListInputs(api, natoms, nedges, coord, atype, edgeIndex, edgeVec,
                      available) ||
      !runOnHost(model, api, *signature, available, results))
    return 1;
  for (size_t k = 0; k < wanted.size(); ++k) {
    auto found = results.find(wanted[k].first);
    if (found == results.end() ||
        static_cast<int64_t>(found->second.size()) != counts[k])
      return failWith(api + "@" + signature->function + "'s '" +
                          wanted[k].first + "' is not " +
                          std::to_string(counts[k]) + " real numbers",
                      1);
    std::copy(found->second.begin(), found->second.end(), wanted[k].second);
  }
  return 0;
}

sezm_tensor sezm_tensor_describe(sezm_dtype dtype, int rank,
                                 const int64_t *shape, const void *data,
                                 int onDevice) {
  sezm_tensor t{};
  t.dtype = dtype;
  t.rank = rank >= 0 && rank <= 8 && (rank == 0 || shape) ? rank : -1;
  for (int axis = 0; axis < t.rank; ++axis)
    t.shape[axis] = shape[axis];
  t.data = const_cast<void *>(data);
  t.on_device = onDevice;
  return t;
}

int sezm_tensor_to_host(const sezm_tensor *device, void *host) {
  if (!device || !device->on_device || !host || device->rank < 0 ||
      device->rank > 8)
    return failWith("sezm_tensor_to_host: needs a device array of rank 0-8 "
                    "and a host buffer",
                    1);
  CudaDriver &d = driver();
  if (!d.ensure())
    return failWith(d.error(), 1);
  size_t bytes = byteCount(*device);
  state().check(
      "cuMemcpyDtoH",
      d.cuMemcpyDtoH(host, reinterpret_cast<CUdeviceptr>(device->data), bytes));
  std::string error;
  if (takeRuntimeError(error))
    return failWith("sezm_tensor_to_host: " + error, 1);
  return 0;
}

int sezm_tensor_to_device(const sezm_tensor *host, sezm_tensor *device) {
  if (!host || !device || host->on_device || host->rank < 0 || host->rank > 8)
    return failWith("sezm_tensor_to_device: needs a host array of rank 0-8", 1);
  CudaDriver &d = driver();
  if (!d.ensure())
    return failWith(d.error(), 1);
  size_t bytes = byteCount(*host);
  *device = *host;
  device->data = mgpuMemAlloc(bytes, nullptr, false);
  device->on_device = 1;
  RuntimeState &s = state();
  if (device->data)
    s.check("cuMemcpyHtoD",
            d.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(device->data),
                           host->data, bytes));
  std::string error;
  if (takeRuntimeError(error)) {
    sezm_tensor_free(device);
    return failWith("sezm_tensor_to_device: " + error, 1);
  }
  return 0;
}

void sezm_tensor_free(sezm_tensor *device) {
  if (!device || !device->on_device || !device->data)
    return;
  mgpuMemFree(device->data, nullptr);
  device->data = nullptr;
}

double sezm_model_last_run_ms(const sezm_model *model) {
  return model ? model->lastRunMs : 0;
}

void sezm_set_profiling(int enabled) { state().profiling = enabled != 0; }

int sezm_kernel_time_count(void) {
  return static_cast<int>(state().launches.size());
}

const char *sezm_kernel_time_name(int index) {
  if (index < 0 || index >= sezm_kernel_time_count())
    return nullptr;
  return state().launches[index].kernel.c_str();
}

double sezm_kernel_time_ms(int index) {
  if (index < 0 || index >= sezm_kernel_time_count())
    return 0;
  RuntimeState::Launch &launch = state().launches[index];
  float ms = 0;
  driver().cuEventElapsedTime(&ms, launch.start, launch.stop);
  return ms;
}

int sezm_kernel_resources(const char *name, int *registers, int *localBytes,
                          int *sharedBytes) {
  std::lock_guard<std::mutex> guard(state().lock);
  auto it =
      name ? state().kernelResources.find(name) : state().kernelResources.end();
  if (it == state().kernelResources.end())
    return -1;
  if (registers)
    *registers = it->second.registers;
  if (localBytes)
    *localBytes = it->second.localBytes;
  if (sharedBytes)
    *sharedBytes = it->second.sharedBytes;
  return 0;
}

void sezm_module_loads(int *fromCubin, int *fromPtx) {
  if (fromCubin)
    *fromCubin = static_cast<int>(state().cubinLoads);
  if (fromPtx)
    *fromPtx = static_cast<int>(state().ptxLoads);
}

size_t sezm_device_bytes_in_use(void) { return state().bytesInUse; }
size_t sezm_device_bytes_peak(void) { return state().bytesPeak; }
void sezm_reset_device_peak(void) { state().bytesPeak = state().bytesInUse; }
size_t sezm_device_bytes_cached(void) { return state().cachedBlocks.bytes(); }
void sezm_device_release_cache(void) { releaseDeviceCache(); }

} // extern "C"

int sezm_model_stage_count(const sezm_model *model, const char *energy) {
  if (!model || !energy)
    return 0;
  int count = 0;
  while (findEntry(
      model, (std::string(energy) + "_stage" + std::to_string(count)).c_str()))
    ++count;
  return count;
}

int64_t sezm_model_stage_width(const sezm_model *model, const char *energy) {
  if (sezm_model_stage_count(model, energy) < 2)
    return 0;
  const EntrySignature *first =
      findEntry(model, (std::string(energy) + "_stage0").c_str());
  for (const TensorPort &port : first->results)
    if (port.name == "features") {
      int64_t width = 1;
      for (size_t axis = 1; axis < port.shape.size(); ++axis)
        width *= port.shape[axis];
      return width;
    }
  return 0;
}

int sezm_model_compute_edges_staged(
    sezm_model *model, const char *energy, int64_t natoms, int64_t nlocal,
    int64_t nedges, int ntypes, const double *coord, const int32_t *atype,
    const int64_t *edgeIndex, const double *edgeVec, sezm_exchange_fn forward,
    sezm_exchange_fn reverse, void *ctx, double *energyOut, double *force,
    double *virial, double *atomEnergy, double *atomVirial) {
  const std::string api = "sezm_model_compute_edges_staged: ";
  int stages = sezm_model_stage_count(model, energy);
  if (stages < 2)
    return failWith(api + "the artifact has no stages of @" +
                        (energy ? energy : "") +
                        " (compile it with sezm-compile --stages)",
                    1);
  if (natoms < 0 || nlocal < 0 || nlocal > natoms || nedges < 0 || ntypes < 1 ||
      (natoms > 0 && (!coord || !atype)) ||
      (nedges > 0 && (!edgeIndex || !edgeVec)) || !forward || !reverse ||
      !energyOut || (natoms > 0 && !force) || !virial)
    return failWith(api + "needs 0 <= nlocal <= natoms, nedges >= 0, "
                          "ntypes >= 1, both exchanges and every array",
                    1);
  if (nlocal == 0 && nedges > 0)
    return failWith(api + "a rank with no own atoms has no edges", 1);
  if (!checkAtoms(api, natoms, ntypes, coord, atype))
    return 1;
  for (int64_t e = 0; e < nedges; ++e)
    if (edgeIndex[nedges + e] < 0 || edgeIndex[nedges + e] >= nlocal)
      return failWith(api + "edge " + std::to_string(e) + "'s centre " +
                          std::to_string(edgeIndex[nedges + e]) +
                          " is not an own atom (rows [0, " +
                          std::to_string(nlocal) + "))",
                      1);

  auto stageEntry = [&](int k, const char *suffix) {
    return findEntry(
        model,
        (std::string(energy) + "_stage" + std::to_string(k) + suffix).c_str());
  };
  const EntrySignature *first = stageEntry(0, "");
  int64_t width = sezm_model_stage_width(model, energy);
  if (width < 1)
    return failWith(api + "@" + first->function + " returns no features", 1);
  std::vector<int64_t> featureShape = {natoms};
  for (const TensorPort &port : first->results)
    if (port.name == "features")
      featureShape.insert(featureShape.end(), port.shape.begin() + 1,
                          port.shape.end());

  // Per-atom outputs need the backward's per-atom results.
  if (atomEnergy || atomVirial) {
    const EntrySignature *readout = stageEntry(stages - 1, "_backward");
    bool has =
        readout && std::any_of(readout->results.begin(), readout->results.end(),
                               [](const TensorPort &port) {
                                 return port.name == "atom_energy";
                               });
    if (!has)
      return failWith(api + "per-atom energies and virials need the stages' "
                            "per-atom results (compile with sezm-compile "
                            "--stages --per-atom)",
                      1);
  }
  std::fill(force, force + 3 * natoms, 0.0);
  std::fill(virial, virial + 9, 0.0);
  if (atomEnergy)
    std::fill(atomEnergy, atomEnergy + nlocal, 0.0);
  if (atomVirial)
    std::fill(atomVirial, atomVirial + 9 * natoms, 0.0);
  *energyOut = 0;
  // A rank with no own atoms computes nothing but takes part in every
  // exchange, which is collective.
  bool idle = nlocal == 0;
  std::vector<GraphInput> graph, local;
  if (!idle) {
    if (!edgeListInputs(api, natoms, nedges, coord, atype, edgeIndex, edgeVec,
                        graph))
      return 1;
    // The last stage sums the own atoms: their rows alone.
    for (const GraphInput &input : graph)
      if (input.name == port::kPositions || input.name == port::kTypes)
        local.push_back(firstRows(input, nlocal));
  }
  auto featuresInput = [&](const char *name, std::vector<double> values,
                           int64_t rows) {
    std::vector<int64_t> shape = featureShape;
    shape[0] = rows;
    values.resize(rows * width);
    return GraphInput{name, true, shape, std::move(values), {}};
  };

  // The result `name` of the stage just run, of `count` values.
  std::map<std::string, std::vector<double>> out;
  auto result = [&](const EntrySignature &stage, const char *name,
                    int64_t count) -> const std::vector<double> * {
    auto found = out.find(name);
    if (found == out.end() ||
        static_cast<int64_t>(found->second.size()) != count)
      return failWith(api + "@" + stage.function + " returns no '" + name +
                          "' of " + std::to_string(count) + " values",
                      nullptr);
    return &found->second;
  };
  auto backwardOf = [&](int k) -> const EntrySignature * {
    const EntrySignature *backward = stageEntry(k, "_backward");
    if (!backward)
      lastError = api + "the artifact has no @" + std::string(energy) +
                  "_stage" + std::to_string(k) + "_backward";
    return backward;
  };

  // Forward: the features after each stage, exchanged.
  std::vector<std::vector<double>> features(stages - 1);
  for (int k = 0; k + 1 < stages; ++k) {
    features[k].assign(natoms * width, 0.0);
    if (!idle) {
      std::vector<GraphInput> inputs = graph;
      if (k > 0)
        inputs.push_back(featuresInput("features", features[k - 1], natoms));
      const EntrySignature &stage = *stageEntry(k, "");
      const std::vector<double> *values;
      if (!runOnHost(model, api, stage, inputs, out) ||
          !(values = result(stage, "features", natoms * width)))
        return 1;
      features[k] = *values;
    }
    forward(ctx, features[k].data(), natoms, width);
  }
  std::vector<double> gradient(natoms * width, 0.0);
  int last = stages - 1;
  if (!idle) {
    std::vector<GraphInput> inputs = local;
    inputs.push_back(featuresInput("features", features[last - 1], nlocal));
    const EntrySignature &stage = *stageEntry(last, "");
    const EntrySignature *backward = backwardOf(last);
    const std::vector<double> *energyValue, *grad;
    if (!runOnHost(model, api, stage, inputs, out) ||
        !(energyValue = result(stage, "energy", 1)))
      return 1;
    // Read before the backward's run replaces the results.
    *energyOut = energyValue->front();
    if (!backward || !runOnHost(model, api, *backward, inputs, out) ||
        !(grad = result(*backward, "features_grad", nlocal * width)))
      return 1;
    std::copy(grad->begin(), grad->end(), gradient.begin());
    if (atomEnergy) {
      const std::vector<double> *energies =
          result(*backward, "atom_energy", nlocal);
      if (!energies)
        return 1;
      std::copy(energies->begin(), energies->end(), atomEnergy);
    }
  }

  // Backward: each stage's from the gradient of what it returned, its
  // ghost rows first added into their owners'. The first stage has none
  // where it reads no geometry (a type embedding).
  for (int k = last - 1; k >= 0; --k) {
    if (k == 0 && !stageEntry(0, "_backward"))
      break;
    const EntrySignature *backward = backwardOf(k);
    if (!backward)
      return 1;
    reverse(ctx, gradient.data(), natoms, width);
    std::fill(gradient.begin() + nlocal * width, gradient.end(), 0.0);
    if (idle)
      continue;
    std::vector<GraphInput> inputs = graph;
    if (k > 0)
      inputs.push_back(featuresInput("features", features[k - 1], natoms));
    inputs.push_back(featuresInput("features_out_grad", gradient, natoms));
    if (!runOnHost(model, api, *backward, inputs, out))
      return 1;
    // A stage that reads no geometry has no forces of its own.
    if (out.count("forces")) {
      const std::vector<double> *stageForces, *stageVirial;
      if (!(stageForces = result(*backward, "forces", 3 * natoms)) ||
          !(stageVirial = result(*backward, "virial", 9)))
        return 1;
      for (int64_t i = 0; i < 3 * natoms; ++i)
        force[i] += (*stageForces)[i];
      for (int i = 0; i < 9; ++i)
        virial[i] += (*stageVirial)[i];
      if (atomVirial) {
        const std::vector<double> *shares =
            result(*backward, "atom_virial", 9 * natoms);
        if (!shares)
          return 1;
        for (int64_t i = 0; i < 9 * natoms; ++i)
          atomVirial[i] += (*shares)[i];
      }
    }
    if (k > 0) {
      const std::vector<double> *grad =
          result(*backward, "features_grad", natoms * width);
      if (!grad)
        return 1;
      gradient = *grad;
    }
  }
  return 0;
}
