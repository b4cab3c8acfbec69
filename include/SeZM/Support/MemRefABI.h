//===- MemRefABI.h - calling compiled entries with memref descriptors -*- C++
//-*-===//
//
// Compiled entry functions take each ranked memref argument as its
// descriptor scalars (allocated and aligned pointers, offset, sizes,
// strides) and return a struct of result descriptors. A packed entry point
// `void entry(void **args)` takes one pointer per argument scalar, then one
// pointer to storage for the results. Plain C++: the CPU runner and the GPU
// runtime share it.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_SUPPORT_MEMREFABI_H
#define SEZM_SUPPORT_MEMREFABI_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sezmrt {

struct MemRefDescriptor {
  void *allocated = nullptr;
  void *aligned = nullptr;
  int64_t offset = 0;
  std::vector<int64_t> sizes, strides;

  /// A C-ordered buffer of the given shape.
  static MemRefDescriptor contiguous(void *data, std::vector<int64_t> shape);
};

/// The argument pointers of one packed call.
class PackedCall {
public:
  PackedCall(std::vector<MemRefDescriptor> arguments,
             std::vector<std::size_t> resultRanks);
  PackedCall(const PackedCall &) = delete;
  PackedCall &operator=(const PackedCall &) = delete;

  /// The `void **args` to pass.
  void **pointers() { return slots.data(); }
  std::size_t numPointers() const { return slots.size(); }
  /// The result descriptors, after the call.
  std::vector<MemRefDescriptor> results() const;
  const std::vector<MemRefDescriptor> &arguments() const { return args; }

private:
  std::vector<MemRefDescriptor> args;
  std::vector<std::size_t> resultRanks;
  std::vector<int64_t> resultStorage;
  std::vector<void *> slots;
};

/// Copies a strided buffer of `elementSize`-byte elements into a C-ordered
/// one.
void copyStrided(const MemRefDescriptor &source, std::size_t elementSize,
                 unsigned char *destination);

} // namespace sezmrt

/// What memref.copy between buffers of different layouts lowers to in CPU
/// code: an element-by-element copy over the sizes, in row-major order.
/// Each buffer is an unranked memref as compiled code passes it (the rank,
/// then a pointer to its ranked descriptor). sezm provides it, so that
/// neither the JIT nor an artifact's CPU code needs MLIR's runner library.
extern "C" void memrefCopy(int64_t elementSize, void *source, void *target);

#endif // SEZM_SUPPORT_MEMREFABI_H
