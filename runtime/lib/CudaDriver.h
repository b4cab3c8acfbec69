//===- CudaDriver.h - the CUDA driver API, loaded at run time ---*- C++ -*-===//
#ifndef SEZM_RUNTIME_CUDADRIVER_H
#define SEZM_RUNTIME_CUDADRIVER_H

#include <cuda.h>

#include <string>

namespace sezmrt::cuda {

/// The driver entry points sezm uses, resolved from libcuda.so.1 on first
/// use. A process without a driver gets a clear error from ensure().
struct CudaDriver {
#define SEZM_CUDA_FUNCTION(name) decltype(&::name) name = nullptr;
#include "CudaFunctions.def"
#undef SEZM_CUDA_FUNCTION

  /// Loads the driver, initializes it and makes the primary context of
  /// device 0 current on this thread. Returns false and sets error() when
  /// that is not possible.
  bool ensure();
  const std::string &error() const { return loadError; }

private:
  bool loaded = false;
  std::string loadError;
  CUcontext context = nullptr;
};

CudaDriver &driver();

/// "cuLaunchKernel: CUDA_ERROR_INVALID_VALUE (invalid argument)".
std::string describe(const char *call, CUresult result);

} // namespace sezmrt::cuda

#endif // SEZM_RUNTIME_CUDADRIVER_H
