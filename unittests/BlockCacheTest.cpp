//===- BlockCacheTest.cpp - which kept block an allocation takes ---------===//

#include "SeZM/Support/BlockCache.h"
#include "SeZM/Support/HostMemory.h"

#include <gtest/gtest.h>

namespace {
using sezmrt::BlockCache;

TEST(BlockCache, TakesTheSameSizeBack) {
  BlockCache cache;
  cache.keep(0x1000, 4096);
  EXPECT_EQ(cache.bytes(), 4096u);
  std::optional<BlockCache::Block> block = cache.take(4096);
  ASSERT_TRUE(block);
  EXPECT_EQ(block->address, 0x1000u);
  EXPECT_EQ(block->bytes, 4096u);
  EXPECT_TRUE(cache.empty());
  EXPECT_EQ(cache.bytes(), 0u);
  // Taken once: a second request maps fresh memory.
  EXPECT_FALSE(cache.take(4096));
}

TEST(BlockCache, TakesTheSmallestBlockThatFitsWithinAQuarter) {
  BlockCache cache;
  cache.keep(0xa000, 1000);
  cache.keep(0xb000, 1200);
  cache.keep(0xc000, 1100);
  // 1000 is too small for 1050; 1100 is the smallest that fits.
  std::optional<BlockCache::Block> block = cache.take(1050);
  ASSERT_TRUE(block);
  EXPECT_EQ(block->address, 0xc000u);
  EXPECT_EQ(block->bytes, 1100u);
  EXPECT_EQ(cache.bytes(), 2200u);
  // Left: 1000 and 1200. Either wastes more than a quarter of 500 (at
  // most 625 fits): fresh memory instead.
  EXPECT_FALSE(cache.take(500));
  block = cache.take(960);
  ASSERT_TRUE(block);
  EXPECT_EQ(block->address, 0xa000u);
  // 1200 is within a quarter of 1000 (up to 1250).
  block = cache.take(1000);
  ASSERT_TRUE(block);
  EXPECT_EQ(block->address, 0xb000u);
  EXPECT_TRUE(cache.empty());
}

TEST(BlockCache, DrainGivesBackEveryBlockOnce) {
  BlockCache cache;
  cache.keep(0x1, 64);
  cache.keep(0x2, 64);
  cache.keep(0x3, 128);
  std::vector<BlockCache::Block> drained = cache.drain();
  ASSERT_EQ(drained.size(), 3u);
  size_t total = 0;
  for (BlockCache::Block block : drained)
    total += block.bytes;
  EXPECT_EQ(total, 256u);
  EXPECT_TRUE(cache.empty());
  EXPECT_EQ(cache.bytes(), 0u);
  EXPECT_TRUE(cache.drain().empty());
}
} // namespace

// The CPU code's buffers (SeZM/Support/HostMemory.h): a large freed buffer
// is taken back by the next request of about its size, a small one goes
// straight back to malloc, and the cache empties on release.
TEST(HostMemory, LargeBuffersAreKeptAndTakenBack) {
  sezmrt::releaseHostCache();
  void *large = _mlir_memref_to_llvm_alloc(1 << 20);
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(large) % 64, 0u);
  _mlir_memref_to_llvm_free(large);
  EXPECT_EQ(sezmrt::hostBytesCached(), size_t(1) << 20);
  // A little smaller: the same buffer; much smaller: a fresh one.
  void *again = _mlir_memref_to_llvm_alloc((1 << 20) - 4096);
  EXPECT_EQ(again, large);
  EXPECT_EQ(sezmrt::hostBytesCached(), 0u);
  void *small = _mlir_memref_to_llvm_alloc(256);
  _mlir_memref_to_llvm_free(small);
  EXPECT_EQ(sezmrt::hostBytesCached(), 0u);
  void *aligned = _mlir_memref_to_llvm_aligned_alloc(256, 1 << 20);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(aligned) % 256, 0u);
  _mlir_memref_to_llvm_free(aligned);
  _mlir_memref_to_llvm_free(again);
  EXPECT_EQ(sezmrt::hostBytesCached(), size_t(1) << 20);
  sezmrt::releaseHostCache();
  EXPECT_EQ(sezmrt::hostBytesCached(), 0u);
}
