//===- RuntimeState.h - the state behind the mgpu* ABI ----------*- C++ -*-===//
#ifndef SEZM_RUNTIME_RUNTIMESTATE_H
#define SEZM_RUNTIME_RUNTIMESTATE_H

#include "SeZM/Support/BlockCache.h"
#include "CudaDriver.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace sezmrt::cuda {

/// What compiled host code cannot be told through its void functions: the
/// first CUDA error since the last reset, device memory in use, and the
/// kernel timings when profiling.
struct RuntimeState {
  std::mutex lock;
  std::string error;
  std::map<CUdeviceptr, size_t> allocations;
  size_t bytesInUse = 0, bytesPeak = 0;
  /// Freed device blocks kept for the next allocation of about the same
  /// size: a model called step after step reuses its buffers instead of
  /// mapping fresh memory per call (cuMemAlloc and cuMemFree of gigabytes
  /// cost host time, and new pages cost the first kernel that touches
  /// them). Not counted in use; released when an allocation fails.
  BlockCache cachedBlocks;
  /// Whether a free waits for the whole device (SEZM_SYNCHRONOUS_FREE set)
  /// instead of recording an event on its stream.
  bool synchronousFree = std::getenv("SEZM_SYNCHRONOUS_FREE") != nullptr;
  std::map<CUfunction, std::string> kernelNames;
  /// What ptxas gave each kernel, by name (the most over the modules that
  /// hold a kernel of that name), read as the kernels load.
  struct Resources {
    int registers = 0, localBytes = 0, sharedBytes = 0;
  };
  std::map<std::string, Resources> kernelResources;
  std::map<size_t, CUmodule> modules; // by PTX hash: JIT once per process
  /// Machine code for a PTX text (by the same hash), from an artifact's
  /// cubin sections: loaded instead of JIT-compiling the PTX when the GPU
  /// takes it.
  std::map<size_t, std::string> cubins;
  size_t cubinLoads = 0, ptxLoads = 0;

  bool profiling = false;
  struct Launch {
    std::string kernel;
    CUevent start, stop;
  };
  std::vector<Launch> launches;

  /// Records the first failure; later ones are consequences.
  void fail(const std::string &message) {
    if (error.empty())
      error = message;
  }
  bool failed() const { return !error.empty(); }
  /// Calls a driver function, recording a failure.
  bool check(const char *call, CUresult result) {
    if (result == CUDA_SUCCESS)
      return true;
    fail(describe(call, result));
    return false;
  }
};

RuntimeState &state();

/// Gives the freed device blocks kept for reuse back to the driver.
void releaseDeviceCache();

} // namespace sezmrt::cuda

// The mgpu* ABI (Mgpu.cpp) that the C API also allocates through, so that
// its memory is counted with the artifacts'.
extern "C" void *mgpuMemAlloc(uint64_t bytes, void *stream, bool hostShared);
extern "C" void mgpuMemFree(void *pointer, void *stream);
extern "C" void *mgpuModuleLoad(void *data, size_t size);
extern "C" void *mgpuModuleGetFunction(void *module, const char *name);

#endif // SEZM_RUNTIME_RUNTIMESTATE_H
