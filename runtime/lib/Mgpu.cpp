//===- Mgpu.cpp - the mgpu* ABI that compiled host code calls -------------===//
//
// MLIR's gpu-to-llvm lowering turns launches, allocations and streams into
// calls of these functions (their signatures are those of LLVM 22). They
// cannot return errors, so each records the first failure in the runtime
// state and turns later calls into no-ops; the caller checks after the run.
//
//===----------------------------------------------------------------------===//

#include "RuntimeState.h"

#include <algorithm>

#include <cstring>
#include <functional>

using namespace sezmrt::cuda;

RuntimeState &sezmrt::cuda::state() {
  static RuntimeState instance;
  return instance;
}

namespace {
/// Records `name` as a timed launch around `enqueue` when profiling.
template <typename Enqueue>
void timed(CudaDriver *d, CUstream stream, const std::string &name,
           Enqueue enqueue) {
  RuntimeState &s = state();
  CUevent start = nullptr, stop = nullptr;
  if (s.profiling) {
    d->cuEventCreate(&start, CU_EVENT_DEFAULT);
    d->cuEventCreate(&stop, CU_EVENT_DEFAULT);
    d->cuEventRecord(start, stream);
  }
  enqueue();
  if (s.profiling) {
    d->cuEventRecord(stop, stream);
    std::lock_guard<std::mutex> guard(s.lock);
    s.launches.push_back({name, start, stop});
  }
}

/// Gives the kept device blocks back to the driver (the lock held).
void releaseCachedBlocks(CudaDriver *d, RuntimeState &s) {
  for (sezmrt::BlockCache::Block block : s.cachedBlocks.drain()) {
    if (block.ready)
      d->cuEventDestroy(reinterpret_cast<CUevent>(block.ready));
    s.check("cuMemFree", d->cuMemFree(block.address));
  }
}

/// Makes `stream` (the host, for none) wait until a kept block's last
/// users are done, and forgets the event that says so.
bool waitForBlock(CudaDriver *d, RuntimeState &s,
                  const sezmrt::BlockCache::Block &block, CUstream stream) {
  if (!block.ready)
    return true;
  auto event = reinterpret_cast<CUevent>(block.ready);
  bool waited = stream ? s.check("cuStreamWaitEvent",
                                 d->cuStreamWaitEvent(stream, event, 0))
                       : s.check("cuEventSynchronize",
                                 d->cuEventSynchronize(event));
  d->cuEventDestroy(event);
  return waited;
}

/// The driver, or null after recording why it is unusable.
CudaDriver *usableDriver() {
  RuntimeState &s = state();
  if (s.failed())
    return nullptr;
  CudaDriver &d = driver();
  if (!d.ensure()) {
    s.fail(d.error());
    return nullptr;
  }
  return &d;
}
} // namespace

#define SEZM_MGPU extern "C" __attribute__((visibility("default")))

SEZM_MGPU void *mgpuModuleLoadJIT(void *data, int optLevel) {
  CudaDriver *d = usableDriver();
  if (!d)
    return nullptr;
  RuntimeState &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  const char *ptx = static_cast<const char *>(data);
  size_t key = std::hash<std::string>()(ptx);
  auto cached = s.modules.find(key);
  if (cached != s.modules.end())
    return cached->second;
  auto cubin = s.cubins.find(key);
  if (cubin != s.cubins.end()) {
    CUmodule module = nullptr;
    // A cubin for another chip is refused; the PTX is JIT-compiled then.
    if (d->cuModuleLoadDataEx(&module, cubin->second.data(), 0, nullptr,
                              nullptr) == CUDA_SUCCESS) {
      s.modules[key] = module;
      ++s.cubinLoads;
      return module;
    }
  }
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {reinterpret_cast<void *>(static_cast<intptr_t>(optLevel)),
                    log, reinterpret_cast<void *>(sizeof(log))};
  CUmodule module = nullptr;
  CUresult result = d->cuModuleLoadDataEx(&module, ptx, 3, options, values);
  if (result != CUDA_SUCCESS) {
    s.fail(describe("loading PTX", result) + (log[0] ? ": " : "") + log);
    return nullptr;
  }
  s.modules[key] = module;
  ++s.ptxLoads;
  return module;
}

SEZM_MGPU void *mgpuModuleLoad(void *data, size_t) {
  return mgpuModuleLoadJIT(data, 4);
}

// Modules stay cached for the life of the process.
SEZM_MGPU void mgpuModuleUnload(void *) {}

SEZM_MGPU void *mgpuModuleGetFunction(void *module, const char *name) {
  CudaDriver *d = usableDriver();
  if (!d || !module)
    return nullptr;
  CUfunction function = nullptr;
  if (!state().check("cuModuleGetFunction",
                     d->cuModuleGetFunction(
                         &function, static_cast<CUmodule>(module), name)))
    return nullptr;
  // Registers and local memory per thread (spills and stack) and static
  // shared memory per block, for the tools' per-kernel reports.
  int registers = 0, localBytes = 0, sharedBytes = 0;
  d->cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, function);
  d->cuFuncGetAttribute(&localBytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
                        function);
  d->cuFuncGetAttribute(&sharedBytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                        function);
  std::lock_guard<std::mutex> guard(state().lock);
  state().kernelNames[function] = name;
  RuntimeState::Resources &known = state().kernelResources[name];
  known.registers = std::max(known.registers, registers);
  known.localBytes = std::max(known.localBytes, localBytes);
  known.sharedBytes = std::max(known.sharedBytes, sharedBytes);
  return function;
}

SEZM_MGPU void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                                intptr_t gridZ, intptr_t blockX,
                                intptr_t blockY, intptr_t blockZ,
                                int32_t sharedBytes, void *stream,
                                void **params, void **extra, size_t) {
  CudaDriver *d = usableDriver();
  if (!d || !function)
    return;
  // An empty grid (no edges, no nodes) has nothing to do.
  if (gridX == 0 || gridY == 0 || gridZ == 0)
    return;
  RuntimeState &s = state();
  auto *f = static_cast<CUfunction>(function);
  auto *st = static_cast<CUstream>(stream);
  timed(d, st, s.kernelNames[f], [&] {
    s.check("cuLaunchKernel",
            d->cuLaunchKernel(f, gridX, gridY, gridZ, blockX, blockY, blockZ,
                              sharedBytes, st, params, extra));
  });
}

SEZM_MGPU void *mgpuStreamCreate() {
  CudaDriver *d = usableDriver();
  if (!d)
    return nullptr;
  CUstream stream = nullptr;
  state().check("cuStreamCreate",
                d->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

SEZM_MGPU void mgpuStreamDestroy(void *stream) {
  CudaDriver *d = usableDriver();
  if (d && stream)
    state().check("cuStreamDestroy",
                  d->cuStreamDestroy(static_cast<CUstream>(stream)));
}

SEZM_MGPU void mgpuStreamSynchronize(void *stream) {
  CudaDriver *d = usableDriver();
  if (d)
    state().check("cuStreamSynchronize",
                  d->cuStreamSynchronize(static_cast<CUstream>(stream)));
}

SEZM_MGPU void mgpuStreamWaitEvent(void *stream, void *event) {
  CudaDriver *d = usableDriver();
  if (d)
    state().check("cuStreamWaitEvent",
                  d->cuStreamWaitEvent(static_cast<CUstream>(stream),
                                       static_cast<CUevent>(event), 0));
}

SEZM_MGPU void *mgpuEventCreate() {
  CudaDriver *d = usableDriver();
  if (!d)
    return nullptr;
  CUevent event = nullptr;
  state().check("cuEventCreate",
                d->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  return event;
}

SEZM_MGPU void mgpuEventDestroy(void *event) {
  CudaDriver *d = usableDriver();
  if (d && event)
    state().check("cuEventDestroy",
                  d->cuEventDestroy(static_cast<CUevent>(event)));
}

SEZM_MGPU void mgpuEventSynchronize(void *event) {
  CudaDriver *d = usableDriver();
  if (d && event)
    state().check("cuEventSynchronize",
                  d->cuEventSynchronize(static_cast<CUevent>(event)));
}

SEZM_MGPU void mgpuEventRecord(void *event, void *stream) {
  CudaDriver *d = usableDriver();
  if (d && event)
    state().check("cuEventRecord",
                  d->cuEventRecord(static_cast<CUevent>(event),
                                   static_cast<CUstream>(stream)));
}

SEZM_MGPU void *mgpuMemAlloc(uint64_t bytes, void *stream, bool) {
  CudaDriver *d = usableDriver();
  // Empty tensors (no edges) need no memory; kernels never touch them.
  if (!d || bytes == 0)
    return nullptr;
  RuntimeState &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  CUdeviceptr pointer = 0;
  size_t held = bytes;
  if (std::optional<sezmrt::BlockCache::Block> kept =
          s.cachedBlocks.take(bytes)) {
    pointer = kept->address;
    held = kept->bytes;
    if (!waitForBlock(d, s, *kept, static_cast<CUstream>(stream)))
      return nullptr;
  } else {
    CUresult result = d->cuMemAlloc(&pointer, bytes);
    // Kept blocks may be what fills the device: give them back.
    if (result == CUDA_ERROR_OUT_OF_MEMORY && !s.cachedBlocks.empty()) {
      releaseCachedBlocks(d, s);
      result = d->cuMemAlloc(&pointer, bytes);
    }
    if (!s.check("cuMemAlloc", result))
      return nullptr;
  }
  s.allocations[pointer] = held;
  s.bytesInUse += held;
  if (s.bytesInUse > s.bytesPeak)
    s.bytesPeak = s.bytesInUse;
  return reinterpret_cast<void *>(pointer);
}

SEZM_MGPU void mgpuMemFree(void *pointer, void *stream) {
  CudaDriver *d = usableDriver();
  if (!d || !pointer)
    return;
  auto device = reinterpret_cast<CUdeviceptr>(pointer);
  RuntimeState &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  auto it = s.allocations.find(device);
  if (it == s.allocations.end()) {
    s.check("cuMemFree", d->cuMemFree(device));
    return;
  }
  // The work in flight on `stream` may still use the block: an event
  // recorded there says when it is done, and whoever takes the block next
  // waits for it (a later allocation on the same stream in stream order,
  // at no cost). Without a stream (or with SEZM_SYNCHRONOUS_FREE set, to
  // compare) the host waits for the whole device here, as cuMemFree would.
  uintptr_t ready = 0;
  CUevent event = nullptr;
  if (stream && !s.synchronousFree &&
      s.check("cuEventCreate",
              d->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING))) {
    if (!s.check("cuEventRecord",
                 d->cuEventRecord(event, static_cast<CUstream>(stream))))
      return;
    ready = reinterpret_cast<uintptr_t>(event);
  } else if (!s.check("cuCtxSynchronize", d->cuCtxSynchronize())) {
    return;
  }
  s.bytesInUse -= it->second;
  s.cachedBlocks.keep(device, it->second, ready);
  s.allocations.erase(it);
}

SEZM_MGPU void mgpuMemcpy(void *destination, void *source, size_t bytes,
                          void *stream) {
  CudaDriver *d = usableDriver();
  if (d && bytes)
    state().check("cuMemcpyAsync",
                  d->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(destination),
                                   reinterpret_cast<CUdeviceptr>(source), bytes,
                                   static_cast<CUstream>(stream)));
}

SEZM_MGPU void mgpuMemset32(void *destination, unsigned value, size_t count,
                            void *stream) {
  CudaDriver *d = usableDriver();
  if (!d || !count)
    return;
  auto *st = static_cast<CUstream>(stream);
  // Fills are part of an op's time: profiles list them as "memset".
  timed(d, st, "memset", [&] {
    state().check(
        "cuMemsetD32Async",
        d->cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(destination), value,
                            count, st));
  });
}

SEZM_MGPU void mgpuMemset16(void *destination, unsigned short value,
                            size_t count, void *stream) {
  CudaDriver *d = usableDriver();
  if (d && count)
    state().check(
        "cuMemsetD16Async",
        d->cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(destination), value,
                            count, static_cast<CUstream>(stream)));
}

SEZM_MGPU void mgpuSetDefaultDevice(int32_t) {}

void sezmrt::cuda::releaseDeviceCache() {
  RuntimeState &s = state();
  std::lock_guard<std::mutex> guard(s.lock);
  if (s.cachedBlocks.empty())
    return;
  if (CudaDriver *d = usableDriver())
    releaseCachedBlocks(d, s);
}
