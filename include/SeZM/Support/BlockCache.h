//===- BlockCache.h - freed blocks kept for reuse ---------------*- C++ -*-===//
//
// The bookkeeping of the runtime's block caches (Mgpu.cpp makes the
// driver calls for device blocks, HostMemory.cpp the host's for the CPU
// code's buffers): a model called step after step with the same shapes takes
// back the blocks its last call freed instead of mapping fresh memory.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_BLOCKCACHE_H
#define SEZM_SUPPORT_BLOCKCACHE_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace sezmrt {

class BlockCache {
public:
  struct Block {
    uint64_t address;
    size_t bytes;
    /// What the owner waits on before the block is used again (a CUDA
    /// event recorded where it was freed), or 0.
    uintptr_t ready = 0;
  };

  /// The smallest kept block of at least `bytes` that wastes at most a
  /// quarter of them (an MD step's edge count moves a little between
  /// calls; a much larger block is left for a request its size), removed
  /// from the cache.
  std::optional<Block> take(size_t bytes) {
    auto it = blocks.lower_bound(bytes);
    if (it == blocks.end() || it->first > bytes + bytes / 4)
      return std::nullopt;
    Block block = it->second;
    blocks.erase(it);
    keptBytes -= block.bytes;
    return block;
  }

  /// Keeps a freed block of `bytes` at `address`, usable once `ready`.
  void keep(uint64_t address, size_t bytes, uintptr_t ready = 0) {
    blocks.emplace(bytes, Block{address, bytes, ready});
    keptBytes += bytes;
  }

  /// Empties the cache: the blocks to give back to the driver.
  std::vector<Block> drain() {
    std::vector<Block> drained;
    for (const auto &[bytes, block] : blocks)
      drained.push_back(block);
    blocks.clear();
    keptBytes = 0;
    return drained;
  }

  size_t bytes() const { return keptBytes; }
  bool empty() const { return blocks.empty(); }

private:
  std::multimap<size_t, Block> blocks;
  size_t keptBytes = 0;
};

} // namespace sezmrt

#endif // SEZM_SUPPORT_BLOCKCACHE_H
