//===- CudaDriver.cpp - the CUDA driver API, loaded at run time -----------===//

#include "CudaDriver.h"

#include <dlfcn.h>

using namespace sezmrt::cuda;

CudaDriver &sezmrt::cuda::driver() {
  static CudaDriver instance;
  return instance;
}

// cuda.h maps most names to versioned symbols (cuMemAlloc -> cuMemAlloc_v2);
// look up the symbol the macro names.
#define SEZM_STRINGIFY_INNER(x) #x
#define SEZM_STRINGIFY(x) SEZM_STRINGIFY_INNER(x)

bool CudaDriver::ensure() {
  if (loaded)
    return loadError.empty();
  loaded = true;
  void *library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    loadError = "no CUDA driver: libcuda.so.1 cannot be loaded (" +
                std::string(dlerror()) + ")";
    return false;
  }
#define SEZM_CUDA_FUNCTION(name)                                               \
  name =                                                                       \
      reinterpret_cast<decltype(name)>(dlsym(library, SEZM_STRINGIFY(name)));  \
  if (!name) {                                                                 \
    loadError = "the CUDA driver lacks " SEZM_STRINGIFY(name);                 \
    return false;                                                              \
  }
#include "CudaFunctions.def"
#undef SEZM_CUDA_FUNCTION
  CUresult result = cuInit(0);
  if (result != CUDA_SUCCESS) {
    loadError = describe("cuInit", result);
    return false;
  }
  CUdevice device;
  if ((result = cuDeviceGet(&device, 0)) != CUDA_SUCCESS ||
      (result = cuDevicePrimaryCtxRetain(&context, device)) != CUDA_SUCCESS ||
      (result = cuCtxSetCurrent(context)) != CUDA_SUCCESS) {
    loadError = describe("opening device 0", result);
    return false;
  }
  return true;
}

std::string sezmrt::cuda::describe(const char *call, CUresult result) {
  const char *name = nullptr, *text = nullptr;
  CudaDriver &d = driver();
  if (d.cuGetErrorName)
    d.cuGetErrorName(result, &name);
  if (d.cuGetErrorString)
    d.cuGetErrorString(result, &text);
  return std::string(call) + ": " + (name ? name : "CUDA error") + " (" +
         (text ? text : std::to_string(result)) + ")";
}
