//===- HostMemory.cpp - the CPU code's buffers, kept for reuse ------------===//

#include "SeZM/Support/HostMemory.h"

#include "SeZM/Support/BlockCache.h"

#include <cstdlib>
#include <map>
#include <mutex>

using namespace sezmrt;

namespace {
/// Buffers this small go straight back to malloc, which reuses them well.
constexpr uint64_t kCachedFrom = 64 * 1024;
/// Every kept buffer's alignment: a cache line, enough for any memref.
constexpr uint64_t kCachedAlignment = 64;

struct HostMemory {
  std::mutex lock;
  /// Live buffers of the cached kind, by address, with their sizes.
  std::map<void *, size_t> live;
  BlockCache cache;
};

HostMemory &memory() {
  static HostMemory *instance = new HostMemory();
  return *instance;
}
} // namespace

void *sezmrt::allocateHostBuffer(uint64_t bytes, uint64_t alignment) {
  if (bytes < kCachedFrom || alignment > kCachedAlignment) {
    if (alignment <= alignof(std::max_align_t))
      return std::malloc(bytes ? bytes : 1);
    void *buffer = nullptr;
    return posix_memalign(&buffer, alignment, bytes) == 0 ? buffer : nullptr;
  }
  HostMemory &m = memory();
  std::lock_guard<std::mutex> guard(m.lock);
  if (std::optional<BlockCache::Block> kept = m.cache.take(bytes)) {
    auto *buffer = reinterpret_cast<void *>(kept->address);
    m.live[buffer] = kept->bytes;
    return buffer;
  }
  void *buffer = nullptr;
  if (posix_memalign(&buffer, kCachedAlignment, bytes) != 0) {
    // Out of memory: what is kept goes back first.
    for (BlockCache::Block block : m.cache.drain())
      std::free(reinterpret_cast<void *>(block.address));
    if (posix_memalign(&buffer, kCachedAlignment, bytes) != 0)
      return nullptr;
  }
  m.live[buffer] = bytes;
  return buffer;
}

void sezmrt::freeHostBuffer(void *buffer) {
  if (!buffer)
    return;
  HostMemory &m = memory();
  {
    std::lock_guard<std::mutex> guard(m.lock);
    auto it = m.live.find(buffer);
    if (it != m.live.end()) {
      m.cache.keep(reinterpret_cast<uint64_t>(buffer), it->second);
      m.live.erase(it);
      return;
    }
  }
  std::free(buffer);
}

size_t sezmrt::hostBytesCached() {
  HostMemory &m = memory();
  std::lock_guard<std::mutex> guard(m.lock);
  return m.cache.bytes();
}

void sezmrt::releaseHostCache() {
  HostMemory &m = memory();
  std::lock_guard<std::mutex> guard(m.lock);
  for (BlockCache::Block block : m.cache.drain())
    std::free(reinterpret_cast<void *>(block.address));
}

extern "C" void *_mlir_memref_to_llvm_alloc(uint64_t bytes) {
  return allocateHostBuffer(bytes, alignof(std::max_align_t));
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(uint64_t alignment,
                                                    uint64_t bytes) {
  return allocateHostBuffer(bytes, alignment);
}

extern "C" void _mlir_memref_to_llvm_free(void *buffer) {
  freeHostBuffer(buffer);
}
