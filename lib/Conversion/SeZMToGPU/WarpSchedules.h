//===- WarpSchedules.h - what the SO(2) microkernels share ------*- C++ -*-===//
//
// The launch shapes and the small helpers of the hand-scheduled kernels of
// the SO(2) path: threads over channels (or row elements), so that every
// load and store of a per-edge or per-node row is coalesced, and per-edge
// data (the Wigner-D's structural non-zeros, the degree kernel) is loaded
// once per thread from the same addresses, which the cache broadcasts. The
// per-(edge, channel) math is that of the loop kernels (SO2Math.h).
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_LIB_CONVERSION_SEZMTOGPU_WARPSCHEDULES_H
#define SEZM_LIB_CONVERSION_SEZMTOGPU_WARPSCHEDULES_H

#include "KernelBuilder/KernelIO.h"
#include "KernelBuilder/SO2Math.h"
#include "SeZM/Dialect/SeZM/SO2Layout.h"

namespace mlir::sezm::microkernels {
using namespace ::mlir::sezm::kernel;
// NVGPUDialect.h declares a global kWarpSize of its own.
using kernel::kWarpSize;

/// Threads per block of the per-row schedules.
constexpr int64_t kBlockThreads = 128;
/// Warps per block of the warp schedules.
constexpr int64_t kWarpsPerBlock = 4;
/// The workgroup memory a block may declare statically (more needs a
/// dynamic allocation and an opt-in at launch).
constexpr int64_t kStaticWorkgroupBytes = 48 * 1024;

/// The elements of workgroup buffers of the given shapes.
int64_t workgroupElements(ArrayRef<SmallVector<int64_t>> shapes);

/// The channels (axis 2) of a node or edge feature tensor.
int64_t channelsOf(Value tensor);

/// The warp schedules give every lane the same number of channels.
bool channelsFillWarps(Value x);

/// Launches `name` over blocks of kWarpsPerBlock warps, one warp per index
/// below `count`: body(index, lane), every lane of the warp taking part (a
/// warp past the end skips it whole, so that shuffles see every lane).
void forEachWarp(Emitter &em, StringRef name, Idx count,
                 llvm::function_ref<void(Idx, Idx)> body);

/// The focus streams that a per-edge scale alpha (E, F) splits `channels`
/// into: F of them, C / F channels each.
struct FocusStreams {
  int64_t count, width;
};
FocusStreams focusStreamsOf(Value alpha, int64_t channels);

/// Copies `width` consecutive floats from from[at...] to to[toAt...] as one
/// access each way (both places aligned to the full width).
void copyVector(Emitter &em, Value from, ArrayRef<Idx> at, Value to,
                ArrayRef<Idx> toAt, int64_t width);

/// A row-major view of a buffer as (leading, row) elements.
Value flattenRows(Emitter &em, Value buffer);

/// The radial mixer of an op of the rotate_mix family.
template <typename OpTy> RadialMixer mixerOf(OpTy op, KernelIO &io) {
  return RadialMixer(SO2Layout{static_cast<int64_t>(op.getLmax())},
                     op.getRank(), io.in(op.getKc()),
                     op.getCb() ? io.in(op.getCb()) : Value());
}
} // namespace mlir::sezm::microkernels

#endif // SEZM_LIB_CONVERSION_SEZMTOGPU_WARPSCHEDULES_H
