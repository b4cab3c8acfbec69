//===- WarpSchedules.cpp - what the SO(2) microkernels share --------------===//

#include "WarpSchedules.h"
#include "Microkernels.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {

/// The elements of workgroup buffers of the given shapes.
int64_t workgroupElements(ArrayRef<SmallVector<int64_t>> shapes) {
  int64_t total = 0;
  for (ArrayRef<int64_t> shape : shapes)
    total += llvm::product_of(shape);
  return total;
}

int64_t channelsOf(Value tensor) {
  return cast<RankedTensorType>(tensor.getType()).getDimSize(2);
}

/// The warp schedules give every lane the same number of channels.
bool channelsFillWarps(Value x) { return channelsOf(x) % kWarpSize == 0; }

void forEachWarp(Emitter &em, StringRef name, Idx count,
                 llvm::function_ref<void(Idx, Idx)> body) {
  em.launchKernel(
      name, {ceilDiv(count, kWarpsPerBlock), Idx(1), Idx(1)},
      {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)}, {},
      [&](const LaunchIds &ids) {
        Idx index = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
        em.ifThen(index < count, [&] { body(index, ids.thread[0]); });
      });
}

FocusStreams focusStreamsOf(Value alpha, int64_t channels) {
  int64_t count = cast<ShapedType>(alpha.getType()).getDimSize(1);
  return {count, channels / count};
}

/// Copies `width` consecutive floats from from[at...] to to[toAt...] as one
/// access each way (both places aligned to the full width).
void copyVector(Emitter &em, Value from, ArrayRef<Idx> at, Value to,
                ArrayRef<Idx> toAt, int64_t width) {
  em.storeVector(em.loadVector(from, at, width), to, toAt);
}

/// A row-major view of a buffer as (leading, row) elements.
Value flattenRows(Emitter &em, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 2)
    return buffer;
  OpBuilder &b = em.builder;
  Location loc = em.loc;
  if (type.getRank() == 1) {
    int64_t leading = type.getDimSize(0);
    auto flat = MemRefType::get({leading, 1}, type.getElementType());
    SmallVector<OpFoldResult> shape = {
        ShapedType::isDynamic(leading) ? OpFoldResult(Value(em.dim(buffer, 0)))
                                       : b.getIndexAttr(leading),
        b.getIndexAttr(1)};
    return memref::ExpandShapeOp::create(
        b, loc, flat, buffer, SmallVector<ReassociationIndices>{{0, 1}}, shape);
  }
  ReassociationIndices rest;
  for (int64_t axis = 1; axis < type.getRank(); ++axis)
    rest.push_back(axis);
  return memref::CollapseShapeOp::create(
      b, loc, buffer, SmallVector<ReassociationIndices>{{0}, rest});
}

} // namespace mlir::sezm::microkernels
