//===- HostMemory.h - the CPU code's buffers, kept for reuse ----*- C++ -*-===//
//
// Compiled CPU code allocates its buffers through MLIR's generic allocation
// functions (memref lowered with use-generic-functions), which sezm
// provides here: a model called step after step takes back the large
// buffers its last call freed instead of mapping, faulting in and zeroing
// fresh pages (a sixth of a SeZM-min step on the 96-atom water box). Plain
// C++: the runtime and the JIT share it.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_HOSTMEMORY_H
#define SEZM_SUPPORT_HOSTMEMORY_H

#include <cstddef>
#include <cstdint>

namespace sezmrt {

/// `bytes` of memory aligned to `alignment` (a power of two); a freed
/// buffer of about that size where one is kept. Null when out of memory.
void *allocateHostBuffer(uint64_t bytes, uint64_t alignment);
/// Frees a buffer of allocateHostBuffer (null is ignored): a large one is
/// kept for reuse.
void freeHostBuffer(void *buffer);
/// The bytes of freed buffers kept for reuse, and their release.
size_t hostBytesCached();
void releaseHostCache();

} // namespace sezmrt

// The allocation functions compiled CPU code calls.
extern "C" void *_mlir_memref_to_llvm_alloc(uint64_t bytes);
extern "C" void *_mlir_memref_to_llvm_aligned_alloc(uint64_t alignment,
                                                    uint64_t bytes);
extern "C" void _mlir_memref_to_llvm_free(void *buffer);

#endif // SEZM_SUPPORT_HOSTMEMORY_H
