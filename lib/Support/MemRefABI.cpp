//===- MemRefABI.cpp - calling compiled entries with memref descriptors ---===//

#include "SeZM/Support/MemRefABI.h"

#include <cstring>

using namespace sezmrt;

MemRefDescriptor MemRefDescriptor::contiguous(void *data,
                                              std::vector<int64_t> shape) {
  MemRefDescriptor d;
  d.allocated = d.aligned = data;
  d.strides.assign(shape.size(), 1);
  for (int i = static_cast<int>(shape.size()) - 2; i >= 0; --i)
    d.strides[i] = d.strides[i + 1] * shape[i + 1];
  d.sizes = std::move(shape);
  return d;
}

PackedCall::PackedCall(std::vector<MemRefDescriptor> arguments,
                       std::vector<size_t> ranks)
    : args(std::move(arguments)), resultRanks(std::move(ranks)) {
  size_t words = 0;
  for (size_t rank : resultRanks)
    words += 3 + 2 * rank;
  resultStorage.assign(words, 0);
  for (MemRefDescriptor &d : args) {
    slots.push_back(&d.allocated);
    slots.push_back(&d.aligned);
    slots.push_back(&d.offset);
    for (int64_t &size : d.sizes)
      slots.push_back(&size);
    for (int64_t &stride : d.strides)
      slots.push_back(&stride);
  }
  if (!resultRanks.empty())
    slots.push_back(resultStorage.data());
}

std::vector<MemRefDescriptor> PackedCall::results() const {
  std::vector<MemRefDescriptor> out;
  const int64_t *word = resultStorage.data();
  for (size_t rank : resultRanks) {
    MemRefDescriptor d;
    d.allocated = reinterpret_cast<void *>(word[0]);
    d.aligned = reinterpret_cast<void *>(word[1]);
    d.offset = word[2];
    d.sizes.assign(word + 3, word + 3 + rank);
    d.strides.assign(word + 3 + rank, word + 3 + 2 * rank);
    word += 3 + 2 * rank;
    out.push_back(std::move(d));
  }
  return out;
}

void sezmrt::copyStrided(const MemRefDescriptor &source, size_t elementSize,
                         unsigned char *destination) {
  size_t rank = source.sizes.size();
  int64_t count = 1;
  for (int64_t size : source.sizes)
    count *= size;
  std::vector<int64_t> index(rank, 0);
  auto *base = static_cast<const unsigned char *>(source.aligned);
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t element = source.offset;
    for (size_t axis = 0; axis < rank; ++axis)
      element += index[axis] * source.strides[axis];
    std::memcpy(destination + linear * elementSize,
                base + element * elementSize, elementSize);
    for (int axis = static_cast<int>(rank) - 1; axis >= 0; --axis) {
      if (++index[axis] < source.sizes[axis])
        break;
      index[axis] = 0;
    }
  }
}

namespace {
/// An unranked memref: the rank, then a ranked descriptor (allocated and
/// aligned pointers, offset, sizes, strides).
struct UnrankedBuffer {
  int64_t rank;
  int64_t *descriptor;
};
} // namespace

extern "C" void memrefCopy(int64_t elementSize, void *sourceBuffer,
                           void *targetBuffer) {
  auto *source = static_cast<UnrankedBuffer *>(sourceBuffer);
  auto *target = static_cast<UnrankedBuffer *>(targetBuffer);
  int64_t rank = source->rank;
  auto data = [&](UnrankedBuffer *buffer) {
    return reinterpret_cast<char *>(buffer->descriptor[1]) +
           buffer->descriptor[2] * elementSize;
  };
  const int64_t *sizes = source->descriptor + 3;
  const int64_t *from = source->descriptor + 3 + rank;
  const int64_t *to = target->descriptor + 3 + rank;
  int64_t count = 1;
  for (int64_t axis = 0; axis < rank; ++axis)
    count *= sizes[axis];
  std::vector<int64_t> index(rank, 0);
  char *in = data(source), *out = data(target);
  for (int64_t k = 0; k < count; ++k) {
    int64_t inOffset = 0, outOffset = 0;
    for (int64_t axis = 0; axis < rank; ++axis) {
      inOffset += index[axis] * from[axis];
      outOffset += index[axis] * to[axis];
    }
    std::memcpy(out + outOffset * elementSize, in + inOffset * elementSize,
                elementSize);
    for (int64_t axis = rank - 1; axis >= 0; --axis) {
      if (++index[axis] < sizes[axis])
        break;
      index[axis] = 0;
    }
  }
}
