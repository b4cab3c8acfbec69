//===- SO2Kernels.cpp - hand-scheduled GPU kernels of the SO(2) path ------===//
//
// The kernel schedules of rotate_mix, segment_reduce and the fused backward
// rotate_mix_grad_reduce: threads over channels (or row elements), so that
// every load and store of a per-edge or per-node row is coalesced, and
// per-edge data (the Wigner-D's structural non-zeros, the degree kernel) is
// loaded once per thread from the same addresses, which the cache broadcasts.
// The per-(edge, channel) math is that of the loop kernels (SO2Math.h).
//
//===----------------------------------------------------------------------===//

#include "SeZM/Conversion/Passes.h"

#include "Microkernels.h"

#include "KernelBuilder/KernelIO.h"
#include "KernelBuilder/SO2Math.h"
#include "SeZM/Dialect/SeZM/SO2Layout.h"
#include "SeZM/Dialect/SeZM/SeZMOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_CONVERTSEZMTOGPUKERNELS
#include "SeZM/Conversion/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;
using namespace mlir::sezm::kernel;

namespace {
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

template <typename OpTy> RadialMixer mixerOf(OpTy op, KernelIO &io) {
  return RadialMixer(SO2Layout{static_cast<int64_t>(op.getLmax())},
                     op.getRank(), io.in(op.getKc()),
                     op.getCb() ? io.in(op.getCb()) : Value());
}

/// Copies `width` consecutive floats from from[at...] to to[toAt...] as one
/// access each way (both places aligned to the full width).
void copyVector(Value from, ArrayRef<Idx> at, Value to, ArrayRef<Idx> toAt,
                int64_t width) {
  storeVector(loadVector(from, at, width), to, toAt);
}

//===----------------------------------------------------------------------===//
// rotate_mix: one warp per edge
//===----------------------------------------------------------------------===//

/// The warp's lanes load the edge's Wigner-D non-zeros and degree kernel
/// together, one or two values each, and hand them round by shuffles (71
/// broadcast loads per edge were 71 requests in flight per warp); each lane
/// rotates, mixes and stores its channels (coalesced across lanes). Where the
/// channels fill the warp twice, a lane takes two neighbouring channels per
/// pass as one 8-byte access: half the load and store instructions, and the
/// edge's entries loaded once for both.
void emitRotateMix(RotateMixOp op, KernelIO &io, KernelConfigAttr config) {
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  Value x = io.in(op.getX()), src = io.in(op.getSrc());
  Value wigner = io.in(op.getWigner());
  RadialMixer mixer = mixerOf(op, io);
  int64_t channels = channelsOf(op.getX()), rows = layout.packedRows();
  // A two-channel group must not straddle two focus streams.
  int64_t streams = static_cast<int64_t>(op.getFocusMajor().value_or(1));
  int64_t width =
      channels % (2 * kWarpSize) == 0 && (channels / streams) % 2 == 0 ? 2 : 1;
  int64_t step = width * kWarpSize;
  Idx edges = dim(src, 0);
  Value out = allocateEdgeRows(io, 0, edges, layout.reducedRows(), channels,
                               op.getFocusMajor());
  launchKernel(
      config.getKernel().getValue(),
      {ceilDiv(edges, kWarpsPerBlock), Idx(1), Idx(1)},
      {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)}, {},
      [&](const LaunchIds &ids) {
        Idx e = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
        Idx lane = ids.thread[0];
        ifThen(e < edges, [&] {
          Idx s = loadIndex(src, {e});
          EdgeRotation rotation(layout, wigner, e, lane);
          RadialMixer::Edge edge = mixer.atEdge(e, lane);
          for (int64_t part = 0; part < channels / step; ++part) {
            Idx first = lane * Idx(width) + Idx(part * step);
            std::vector<std::vector<Num>> result =
                loadRowGroups(x, s, rows, first, width);
            for (int64_t k = 0; k < width; ++k)
              result[k] = mixer.mix(edge, mixer.atChannel(edge, first + Idx(k)),
                                    rotation.toEdgeFrame(result[k]));
            storeRowGroups(result, out, e, first);
          }
        });
      },
      config.getBlocksPerSm());
}

//===----------------------------------------------------------------------===//
// segment_reduce: one thread per (node, row element), the sum in a register
//===----------------------------------------------------------------------===//

/// A row-major view of a buffer as (leading, row) elements.
Value flattenRows(Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 2)
    return buffer;
  OpBuilder &b = EmitScope::current().builder;
  Location loc = EmitScope::current().loc;
  if (type.getRank() == 1) {
    int64_t leading = type.getDimSize(0);
    auto flat = MemRefType::get({leading, 1}, type.getElementType());
    SmallVector<OpFoldResult> shape = {ShapedType::isDynamic(leading)
                                           ? OpFoldResult(dim(buffer, 0).value)
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

void emitSegmentReduce(SegmentReduceOp op, KernelIO &io,
                       KernelConfigAttr config) {
  Value values = io.in(op.getValues());
  Value order = io.in(op.getOrder()), rowptr = io.in(op.getRowptr());
  Idx nodes = dim(rowptr, 0) - 1;
  auto type = cast<RankedTensorType>(op.getResult().getType());
  SmallVector<Idx> extents{nodes};
  for (int64_t axis = 1; axis < type.getRank(); ++axis)
    extents.push_back(dim(values, axis));
  Value out = io.allocate(0, extents);
  Value flatValues = flattenRows(values), flatOut = flattenRows(out);
  Idx row = dim(flatValues, 1);
  launchKernel(
      config.getKernel().getValue(),
      {ceilDiv(row, kBlockThreads), nodes, Idx(1)},
      {Idx(kBlockThreads), Idx(1), Idx(1)}, {}, [&](const LaunchIds &ids) {
        Idx p = ids.block[0] * Idx(kBlockThreads) + ids.thread[0];
        Idx n = ids.block[1];
        ifThen(p < row, [&] {
          Num sum = sumRange(
              loadIndex(rowptr, {n}), loadIndex(rowptr, {n + 1}), [&](Idx t) {
                return load(flatValues, {loadIndex(order, {t}), p});
              });
          store(sum, flatOut, {n, p});
        });
      });
}

//===----------------------------------------------------------------------===//
// The rotate_mix backward of one edge on one warp
//===----------------------------------------------------------------------===//

/// Where a warp's workgroup slot keeps an edge's kept Wigner-D entries: the
/// m = 0 rows' first, then the m = -1 rows' and the m = +1 rows', each block
/// from a multiple of 4 entries (they are read 4 at a time, and a lane reads
/// either of the last two blocks in place of the other alike).
struct StagedEntries {
  explicit StagedEntries(SO2Layout layout)
      : zero((layout.lmax + 1) * (layout.lmax + 1)),
        side((layout.keptWignerEntries() - zero) / 2),
        kept(layout.keptWignerEntries()), negativeAt(alignTo4(zero)),
        positiveAt(negativeAt + alignTo4(side)),
        length(positiveAt + alignTo4(side)) {}

  static int64_t alignTo4(int64_t count) {
    return static_cast<int64_t>(llvm::alignTo(count, 4));
  }

  /// The place of kept entry k (forEachKeptEntry order).
  int64_t place(int64_t k) const {
    return k < zero          ? k
           : k < zero + side ? negativeAt + k - zero
                             : positiveAt + k - zero - side;
  }
  Idx place(Idx k) const {
    SmallVector<int64_t> table;
    for (int64_t entry = 0; entry < kept; ++entry)
      table.push_back(place(entry));
    return lookup(k, table);
  }

  /// Kept entries of the m = 0 rows, of each of the m = -1 and +1 rows,
  /// and of all rows.
  int64_t zero, side, kept;
  int64_t negativeAt, positiveAt, length;
};

/// Each lane owns the same channels of every edge (two neighbouring ones as
/// one 8-byte access where the channels fill the warp twice). Per edge, the
/// Wigner-D and kernel gradients are summed over the lane's channels, then
/// over the lanes by a butterfly that leaves each sum in one lane (31
/// shuffles per 32 sums; its selects cost arithmetic, which has room, where
/// a transpose through workgroup memory saturated it). The Wigner-D sums go
/// to the warp's copy of the edge's D x D matrix in workgroup memory, whose
/// other entries stay zero, and the warp writes the whole matrix out as
/// 16-byte stores: no memset first, and every sector written once. Each
/// channel's node gradient rows W^T gl go to a sink.
class WarpEdgeBackward {
public:
  /// How a warp loads an edge's Wigner-D and kernel entries: each lane all
  /// of them (broadcast), or the lanes together (warpSharedLoad). The fused
  /// kernel's warps walk many edges, so the lanes' places are found once
  /// outside the edge loop and the shared loads win (1.228 -> 1.124 ms at
  /// N = 4096); rotate_mix_grad, one edge per warp, measured slower with
  /// them (1.958 -> 2.028 ms) and keeps the broadcast. Staged: the warp
  /// copies an edge's gradient rows and entries into workgroup memory while
  /// it works on the edge before (stage()), so that no edge waits for its
  /// loads, and reads the entries from there as broadcasts (fused kernel,
  /// kept W: 0.985 -> 0.896 ms).
  enum class EntryLoads { Broadcast, WarpShared, Staged };

  /// With `basisInNodeRows` (rank 1 alone), the caller has multiplied the
  /// source rows by the channel basis cb[0, c] and multiplies the node
  /// gradient by it after the edges: the edge loop then takes the basis as
  /// 1, which leaves out its 40 multiplies per edge (the kernel's transpose
  /// and its gradient's terms).
  template <typename OpTy>
  WarpEdgeBackward(OpTy op, KernelIO &io, Value wignerGrad, Value kcGrad,
                   EntryLoads entryLoads, bool basisInNodeRows = false)
      : layout{static_cast<int64_t>(op.getLmax())}, mixer(mixerOf(op, io)),
        grad(io.in(op.getGrad())), wigner(io.in(op.getWigner())),
        wignerGrad(wignerGrad), kcGrad(kcGrad), entryLoads(entryLoads),
        keptGrad(isKeptEntries(wignerGrad)), basisInNodeRows(basisInNodeRows) {
    assert((!basisInNodeRows || op.getRank() == 1) &&
           "a basis folds into the rows at rank 1 alone");
    int64_t channels = channelsOf(op.getX());
    width = channels % (2 * kWarpSize) == 0 ? 2 : 1;
    parts = channels / (width * kWarpSize);
    rows = layout.packedRows();
    matrixSize = rows * rows;
    // The kept Wigner-D entries (reduced row j, packed column d, place in
    // the edge's matrix); their gradient sums come first among the per-edge
    // sums, the kernel's after.
    forEachKeptEntry(layout, [&](int64_t j, int64_t d) {
      entryReduced.push_back(j);
      entryColumn.push_back(d);
      entryPlace.push_back(layout.wholeWignerPlace(j, d));
    });
    entries = entryReduced.size();
    sums = entries + mixer.numKernelSums();
    sumOrder = llvm::to_vector(llvm::seq<int64_t>(0, sums));
    laneOrdered.assign(sums, false);
    if (entryLoads == EntryLoads::Staged)
      orderForSwappedLanes();
  }

  /// Slots per warp of the staged inputs: the edge being worked on and the
  /// next one.
  static constexpr int64_t kStageSlots = 2;

  /// The workgroup buffers that `begin` takes, in order: the warp's D x D
  /// matrix where the Wigner-D gradient is whole (`keptGrad` false); where
  /// the inputs are staged, one slot per (warp, stage) of the edge's
  /// gradient rows, its kept Wigner-D entries and its kernel (coefficients,
  /// or the mixer-free radial rows). Rows of entries are padded to 16 bytes:
  /// they load 4 at a time.
  static SmallVector<SmallVector<int64_t>>
  workgroupShapes(SO2Layout layout, bool keptGrad, EntryLoads entryLoads,
                  int64_t rank, int64_t channels) {
    SmallVector<SmallVector<int64_t>> shapes;
    if (!keptGrad)
      shapes.push_back(
          {kWarpsPerBlock, layout.packedRows() * layout.packedRows()});
    if (entryLoads != EntryLoads::Staged)
      return shapes;
    int64_t slots = kWarpsPerBlock * kStageSlots;
    shapes.push_back({slots, layout.reducedRows(), channels});
    shapes.push_back({slots, StagedEntries(layout).length});
    if (rank > 0)
      shapes.push_back(
          {slots, StagedEntries::alignTo4(layout.compactKernelSize() * rank)});
    else
      shapes.push_back({slots, layout.lmax + 1, channels});
    return shapes;
  }
  int64_t width, parts, rows;

  /// The first of the lane's channels of `part` (the others follow it).
  Idx firstChannel(Idx lane, int64_t part) const {
    return lane * Idx(width) + Idx(part * width * kWarpSize);
  }

  /// Before the warp's first edge: finds which sum the lane will hold after
  /// each spread and, where wigner_grad is whole, zeroes the warp's matrix
  /// and finds each Wigner-D sum's place in it.
  void begin(ArrayRef<Value> workgroup, Idx warpId, Idx laneId) {
    warp = warpId;
    lane = laneId;
    if (!keptGrad) {
      matrix = workgroup.front();
      workgroup = workgroup.drop_front();
    }
    if (entryLoads == EntryLoads::Staged) {
      gradStage = workgroup[0];
      wignerStage = workgroup[1];
      kcStage = workgroup[2];
      // From a whole matrix: the place of the kept entry that the lane
      // copies in each round of 32 (kept entries are copied in order).
      wignerCopyPlaces.clear();
      for (int64_t first = 0; first < entries && !isKeptEntries(wigner);
           first += kWarpSize)
        wignerCopyPlaces.push_back(lookup(
            lane, ArrayRef<int64_t>(entryPlace)
                      .slice(first, std::min(kWarpSize, entries - first))));
    }
    if (!keptGrad) {
      flatGrad = flattenRows(wignerGrad);
      for (int64_t i = 0; i * kWarpSize < matrixSize; ++i) {
        Idx place = lane + Idx(i * kWarpSize);
        ifThen(place < Idx(matrixSize), [&] {
          store(Num(0.0), matrix, {warp, place});
        });
      }
      warpSync();
    }
    // Lanes 16 to 31 hold their m = -1 and m = +1 rows swapped.
    swap = swapsLanes ? lane / Idx(kWarpSize / 2) : Idx(0);
    slots = spreadSlots(sums, lane);
    sumIndex.clear();
    places.clear();
    for (Idx position : slots.index) {
      sumIndex.push_back(lookup(position, sumOrder));
      if (!keptGrad)
        places.push_back(lookup(sumIndex.back(), entryPlace));
    }
  }

  /// Starts copying edge e's gradient rows, Wigner-D entries and kernel into
  /// workgroup slot `slot` (Staged): each lane its own channels' rows and
  /// one entry per round of 32.
  void stage(Idx e, Idx slot) {
    // Gradient rows: row j from the lane's row j (swapped, see
    // orderForSwappedLanes).
    for (int64_t part = 0; part < parts; ++part) {
      Idx first = firstChannel(lane, part);
      for (int64_t j = 0; j < layout.reducedRows(); ++j)
        copyAsync(grad, {e, laneRow(j), first}, gradStage,
                  {slot, Idx(j), first}, width);
    }
    // Lane L copies entry L + 32 r of each round r where there is one.
    auto copyEntries = [&](int64_t count, function_ref<void(int64_t)> copy) {
      for (int64_t round = 0; round * kWarpSize < count; ++round) {
        if ((round + 1) * kWarpSize <= count)
          copy(round);
        else
          ifThen(lane < Idx(count - round * kWarpSize), [&] { copy(round); });
      }
    };
    // The lane's place for it is a function of the lane alone, which the
    // compiler takes out of the edge loop (found in begin() instead, ptxas
    // gave the same loop and 8 registers more).
    StagedEntries staged(layout);
    copyEntries(entries, [&](int64_t round) {
      Idx k = lane + Idx(round * kWarpSize);
      Idx to = staged.place(k);
      if (wignerCopyPlaces.empty()) {
        copyAsync(wigner, {e, k}, wignerStage, {slot, to}, 1);
        return;
      }
      Idx place = wignerCopyPlaces[round];
      copyAsync(wigner, {e, place / Idx(rows), place % Idx(rows)}, wignerStage,
                {slot, to}, 1);
    });
    if (mixer.rank() > 0)
      copyEntries(mixer.numKernelSums(), [&](int64_t round) {
        Idx k = lane + Idx(round * kWarpSize);
        copyAsync(mixer.kernel(), {e, k}, kcStage, {slot, k}, 1);
      });
    else
      for (int64_t part = 0; part < parts; ++part)
        copyRowGroupsAsync(mixer.kernel(), e, layout.lmax + 1,
                           firstChannel(lane, part), width, kcStage, slot);
  }

  /// Edge e, with the rows packed[part][k] of its source for the lane's
  /// channels; nodeSink(part, rows[k]) gets the node gradient rows of part.
  /// Its inputs are read at `at`: e itself, or the workgroup slot that
  /// stage() filled (Staged, once the copies are waited for).
  void emit(Idx e, Idx at, ArrayRef<std::vector<std::vector<Num>>> packed,
            function_ref<void(int64_t, ArrayRef<std::vector<Num>>,
                              const EdgeRotation &)>
                nodeSink) {
    std::optional<Idx> sharedBy;
    if (entryLoads == EntryLoads::WarpShared)
      sharedBy = lane;
    bool staged = entryLoads == EntryLoads::Staged;
    RadialMixer inputMixer =
        staged ? RadialMixer(layout, mixer.rank(), kcStage, mixer.basis())
               : mixer;
    RadialMixer::Edge edge = inputMixer.atEdge(at, sharedBy);
    EdgeRotation rotation = staged ? EdgeRotation(layout, loadStagedEntries(at))
                                   : EdgeRotation(layout, wigner, at, sharedBy);
    int64_t rank = mixer.rank();
    // Per channel: the gradient in the edge frame and the rotated input.
    struct Channel {
      std::vector<Num> g, basis, gl, xl;
      ArrayRef<Num> packed;
      /// basis[r] * g per rank r: the kernel gradient's terms are then
      /// products g[o] * xl[i] alone.
      std::vector<std::vector<Num>> weightedG;
    };
    std::vector<Channel> owned;
    for (int64_t part = 0; part < parts; ++part) {
      Idx first = firstChannel(lane, part);
      std::vector<std::vector<Num>> g = loadRowGroups(
          staged ? gradStage : grad, at, layout.reducedRows(), first, width);
      std::vector<std::vector<Num>> gl;
      for (int64_t k = 0; k < width; ++k) {
        Channel channel;
        channel.g = g[k];
        channel.packed = packed[part][k];
        channel.basis = basisInNodeRows
                            ? std::vector<Num>{Num(1.0)}
                            : inputMixer.atChannel(edge, first + Idx(k));
        channel.gl = inputMixer.mixTransposed(edge, channel.basis, channel.g);
        channel.xl = rotation.toEdgeFrame(channel.packed);
        for (int64_t r = 0; r < rank && edge.kernel; ++r) {
          std::vector<Num> weighted;
          for (Num row : channel.g)
            weighted.push_back(channel.basis[r] * row);
          channel.weightedG.push_back(std::move(weighted));
        }
        if (!edge.kernel)
          mixer.storeFreeKernelGrad(channel.g, channel.xl, kcGrad, e,
                                    first + Idx(k));
        gl.push_back(channel.gl);
        owned.push_back(std::move(channel));
      }
      nodeSink(part, gl, rotation);
    }
    // The per-edge sums over the lane's channels: the Wigner-D entries
    // gl[j] * x[d], then the kernel's products (basis * g)[o] * xl[i].
    auto laneSum = [&](int64_t position, std::optional<Num> addend) {
      int64_t k = sumOrder[position];
      std::optional<Num> total = addend;
      for (const Channel &channel : owned) {
        Num term =
            k < entries
                ? channel.gl[entryReduced[k]] * channel.packed[entryColumn[k]]
                : edge.kernel->kernelProduct(
                      (k - entries) / rank,
                      channel.weightedG[(k - entries) % rank], channel.xl);
        total = total ? *total + term : term;
      }
      return *total;
    };
    SmallVector<Num> spread =
        warpSumSpread(sums, laneSum, lane,
                      [&](int64_t position) { return laneOrdered[position]; });
    for (auto [group, sum] : llvm::enumerate(spread)) {
      // A lambda cannot capture a structured binding in C++17.
      Num total = sum;
      int64_t r = group, base = r * kWarpSize;
      ArrayRef<int64_t> held = ArrayRef<int64_t>(sumOrder).slice(
          base, std::min(kWarpSize, sums - base));
      Idx index = sumIndex[r];
      auto toMatrix = [&] {
        if (keptGrad)
          store(total, wignerGrad, {e, index});
        else
          store(total, matrix, {warp, places[r]});
      };
      auto toKernel = [&] { store(total, kcGrad, {e, index - Idx(entries)}); };
      ifThen(slots.owner[r], [&] {
        if (llvm::all_of(held, [&](int64_t k) { return k < entries; }))
          toMatrix();
        else if (llvm::none_of(held, [&](int64_t k) { return k < entries; }))
          toKernel();
        else
          ifThenElse(index < Idx(entries), toMatrix, toKernel);
      });
    }
    // Kept entries alone are stored by their lanes above.
    if (keptGrad)
      return;
    // The whole matrix out (16-byte pieces where they tile it evenly), then
    // free for the next edge.
    warpSync();
    int64_t copyWidth = matrixSize % (4 * kWarpSize) == 0 ? 4 : 1;
    for (int64_t i = 0; i * copyWidth * kWarpSize < matrixSize; ++i) {
      Idx place = (lane + Idx(i * kWarpSize)) * Idx(copyWidth);
      auto copy = [&] {
        copyVector(matrix, {warp, place}, flatGrad, {e, place}, copyWidth);
      };
      if ((i + 1) * kWarpSize * copyWidth <= matrixSize)
        copy();
      else
        ifThen(place < Idx(matrixSize), copy);
    }
    warpSync();
  }

private:
  /// Orders the per-edge sums so that the spread's first halving pairs the
  /// gradient of each m = -1 entry with that of its m = +1 twin (reduced
  /// row lmax further, same column), and has lanes 16 to 31 hold their
  /// m = -1 and m = +1 rows swapped (the gradient rows, the Wigner-D's
  /// rows, hence the rows of gl and xl). Both twins share the degree kernel, so
  /// a swapped lane computes every other sum as it is, and its share of each
  /// twin as the other's: those pairs need no select (warpSumSpread). Where
  /// the twins do not fit the halvings, nothing is swapped.
  void orderForSwappedLanes() {
    StagedEntries staged(layout);
    SmallVector<int64_t> others =
        llvm::to_vector(llvm::seq<int64_t>(0, staged.zero));
    llvm::append_range(others, llvm::seq<int64_t>(entries, sums));
    SmallVector<int64_t> order(sums, -1);
    SmallVector<bool> ordered(sums, false);
    int64_t paired = 0;
    auto nextOther = others.begin();
    for (int64_t base = 0; base < sums; base += kWarpSize) {
      int64_t size = std::min(kWarpSize, sums - base);
      int64_t half = static_cast<int64_t>(llvm::PowerOf2Ceil(size)) / 2;
      int64_t pairs = std::min(staged.side - paired, size - half);
      for (int64_t i = 0; i < pairs; ++i) {
        order[base + i] = staged.zero + paired + i;
        order[base + half + i] = staged.zero + staged.side + paired + i;
        ordered[base + i] = true;
      }
      paired += pairs;
      for (int64_t position = base; position < base + size; ++position) {
        if (order[position] >= 0)
          continue;
        if (nextOther == others.end())
          return;
        order[position] = *nextOther++;
      }
    }
    if (paired < staged.side)
      return;
    sumOrder = std::move(order);
    laneOrdered = std::move(ordered);
    swapsLanes = true;
  }

  /// The staged kept entries of the edge in slot `at`, the m = -1 and +1
  /// rows' swapped in lanes 16 to 31.
  SmallVector<Num> loadStagedEntries(Idx at) const {
    StagedEntries staged(layout);
    Idx shift = swap * Idx(staged.positiveAt - staged.negativeAt);
    SmallVector<Num> values;
    auto read = [&](Idx from, int64_t count) {
      for (int64_t k = 0; k < count; k += 4) {
        SmallVector<Num> piece =
            loadVector(wignerStage, {at, from + Idx(k)}, 4);
        values.append(piece.begin(),
                      piece.begin() + std::min<int64_t>(4, count - k));
      }
    };
    read(Idx(0), staged.zero);
    read(Idx(staged.negativeAt) + shift, staged.side);
    read(Idx(staged.positiveAt) - shift, staged.side);
    return values;
  }

  /// The row of the edge frame that the lane holds as reduced row j: j
  /// itself, or its twin of the other sign of m in lanes 16 to 31 where
  /// lanes swap.
  Idx laneRow(int64_t j) const {
    int64_t lmax = layout.lmax;
    if (j <= lmax)
      return Idx(j);
    Idx shift = swap * Idx(lmax);
    return j <= 2 * lmax ? Idx(j) + shift : Idx(j) - shift;
  }

  SO2Layout layout;
  RadialMixer mixer;
  Value grad, wigner, wignerGrad, kcGrad;
  EntryLoads entryLoads;
  /// wigner_grad holds the kept entries alone: each sum is stored by the
  /// lane that holds it, with no matrix in workgroup memory.
  bool keptGrad;
  bool basisInNodeRows;
  int64_t matrixSize, entries, sums;
  SmallVector<int64_t> entryReduced, entryColumn, entryPlace;
  /// The sum at each place of the spread (entries, then the kernel's, where
  /// no lanes swap), and whether the first halving pairs it in lane order.
  SmallVector<int64_t> sumOrder;
  SmallVector<bool> laneOrdered;
  bool swapsLanes = false;
  // Set by begin().
  Value matrix, flatGrad, gradStage, wignerStage, kcStage;
  SmallVector<Idx> wignerCopyPlaces;
  Idx warp = Idx(Value()), lane = Idx(Value()), swap = Idx(Value());
  SpreadSlots slots;
  /// The sum each spread slot holds, and its place in the warp's matrix.
  SmallVector<Idx> sumIndex, places;
};

//===----------------------------------------------------------------------===//
// rotate_mix_grad: one warp per edge
//===----------------------------------------------------------------------===//

/// The per-edge backward where nothing reduces the node gradient (which is
/// then stored per edge, if used at all: a first block's features are
/// constants), and the channel-basis gradient is unused.
void emitRotateMixGrad(RotateMixGradOp op, KernelIO &io,
                       KernelConfigAttr config) {
  Value x = io.in(op.getX()), src = io.in(op.getSrc());
  Idx edges = dim(src, 0);
  int64_t channels = channelsOf(op.getX());
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  int64_t rows = layout.packedRows();
  Value nodeGrad = io.needed(0)
                       ? io.allocate(0, {edges, Idx(rows), Idx(channels)})
                       : Value();
  WarpEdgeBackward backward(op, io,
                            allocateEdgesLike(io, 1, op.getWigner(), edges),
                            allocateEdgesLike(io, 2, op.getKc(), edges),
                            WarpEdgeBackward::EntryLoads::Broadcast);
  launchKernel(
      config.getKernel().getValue(),
      {ceilDiv(edges, kWarpsPerBlock), Idx(1), Idx(1)},
      {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)},
      WarpEdgeBackward::workgroupShapes(layout, isKeptEntries(op.getWigner()),
                                        WarpEdgeBackward::EntryLoads::Broadcast,
                                        op.getRank(), channels),
      [&](const LaunchIds &ids) {
        Idx e = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
        Idx lane = ids.thread[0];
        // Every lane of a warp has the same edge: the whole warp runs the
        // edge or skips it, as its warp barriers need.
        backward.begin(ids.workgroup, ids.thread[1], lane);
        ifThen(e < edges, [&] {
          Idx s = loadIndex(src, {e});
          std::vector<std::vector<std::vector<Num>>> packed;
          for (int64_t part = 0; part < backward.parts; ++part)
            packed.push_back(loadRowGroups(
                x, s, rows, backward.firstChannel(lane, part), backward.width));
          backward.emit(e, e, packed,
                        [&](int64_t part, ArrayRef<std::vector<Num>> gl,
                            const EdgeRotation &rotation) {
                          if (!nodeGrad)
                            return;
                          std::vector<std::vector<Num>> node;
                          for (ArrayRef<Num> channel : gl)
                            node.push_back(rotation.fromEdgeFrame(channel));
                          storeRowGroups(node, nodeGrad, e,
                                         backward.firstChannel(lane, part));
                        });
        });
      });
}

//===----------------------------------------------------------------------===//
// rotate_mix_grad_reduce: one block per source node
//===----------------------------------------------------------------------===//

/// The block's warps take turns over the node's segment, one edge per warp
/// at a time (WarpEdgeBackward). A lane sums its channels' node gradient
/// over the warp's edges in registers, and the warps' sums are added in
/// warp order through workgroup memory at the end: the per-edge node
/// gradient never exists.
void emitRotateMixGradReduce(RotateMixGradReduceOp op, KernelIO &io,
                             KernelConfigAttr config) {
  Value x = io.in(op.getX()), src = io.in(op.getSrc());
  Value order = io.in(op.getSrcOrder()), rowptr = io.in(op.getSrcRowptr());
  int64_t channels = channelsOf(op.getX());
  Idx edges = dim(src, 0), nodes = dim(rowptr, 0) - 1;
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  int64_t rows = layout.packedRows();
  Value xGrad = io.allocate(0, {nodes, Idx(rows), Idx(channels)});
  // The inputs are staged where their slots fit beside the node sums (and
  // the matrix) in a block's static workgroup memory.
  bool keptGrad = isKeptEntries(op.getWigner());
  auto workgroupFor = [&](WarpEdgeBackward::EntryLoads entryLoads) {
    SmallVector<SmallVector<int64_t>> shapes = {
        {kWarpsPerBlock, rows, channels}};
    llvm::append_range(
        shapes, WarpEdgeBackward::workgroupShapes(layout, keptGrad, entryLoads,
                                                  op.getRank(), channels));
    return shapes;
  };
  int64_t elementBytes =
      cast<RankedTensorType>(op.getX().getType()).getElementTypeBitWidth() / 8;
  SmallVector<SmallVector<int64_t>> workgroup =
      workgroupFor(WarpEdgeBackward::EntryLoads::Staged);
  bool staged =
      workgroupElements(workgroup) * elementBytes <= kStaticWorkgroupBytes;
  if (!staged)
    workgroup = workgroupFor(WarpEdgeBackward::EntryLoads::WarpShared);
  // At rank 1 the channel basis multiplies the node's rows once, and its
  // gradient once, instead of every edge's terms.
  Value basis = op.getRank() == 1 ? io.in(op.getCb()) : Value();
  WarpEdgeBackward backward(op, io,
                            allocateEdgesLike(io, 1, op.getWigner(), edges),
                            allocateEdgesLike(io, 2, op.getKc(), edges),
                            staged ? WarpEdgeBackward::EntryLoads::Staged
                                   : WarpEdgeBackward::EntryLoads::WarpShared,
                            /*basisInNodeRows=*/static_cast<bool>(basis));
  int64_t width = backward.width;
  launchKernel(
      config.getKernel().getValue(), {nodes, Idx(1), Idx(1)},
      {Idx(kWarpSize), Idx(kWarpsPerBlock), Idx(1)}, workgroup,
      [&](const LaunchIds &ids) {
        Idx n = ids.block[0], warp = ids.thread[1], lane = ids.thread[0];
        Value shares = ids.workgroup[0];
        backward.begin(ArrayRef<Value>(ids.workgroup).drop_front(), warp, lane);
        // Every edge of the segment leaves node n (the CSR contract, which
        // the runtime checks on host inputs): its rows load once.
        std::vector<std::vector<std::vector<Num>>> packed;
        for (int64_t part = 0; part < backward.parts; ++part) {
          Idx first = backward.firstChannel(lane, part);
          packed.push_back(loadRowGroups(x, n, rows, first, width));
          for (auto [k, channel] : llvm::enumerate(packed.back())) {
            if (!basis)
              break;
            Num weight = load(basis, {Idx(0), first + Idx(k)});
            for (Num &row : channel)
              row = weight * row;
          }
        }
        // The lane's node sums node[part][k][d], carried in registers
        // through the edge loop.
        std::vector<std::vector<std::vector<Num>>> node;
        auto sink = [&](int64_t part, ArrayRef<std::vector<Num>> gl,
                        const EdgeRotation &rotation) {
          for (auto [channel, sums] : llvm::zip(gl, node[part]))
            rotation.addFromEdgeFrame(channel, sums);
        };
        // What an iteration carries: `indices` (edge indices), then the
        // node sums.
        auto withNode = [&](ArrayRef<Value> indices) {
          SmallVector<Value> values(indices);
          for (const auto &part : node)
            for (const auto &channel : part)
              llvm::append_range(values, channel);
          return values;
        };
        auto setNode = [&](ArrayRef<Value> values) {
          node.assign(backward.parts, {});
          for (auto &part : node)
            for (int64_t k = 0; k < width; ++k) {
              part.emplace_back(values.begin(), values.begin() + rows);
              values = values.drop_front(rows);
            }
        };
        // The warp's edges are t = begin, begin + 4, ... < end. While it
        // works on one, the next one's inputs are on their way into the
        // warp's other slot (staged), and the index of the one after that
        // into a register: an edge never waits for a load.
        // Positions and edge indices in the loop are 32 bits (64-bit index
        // arithmetic took 19 of the loop's 810 instructions an edge):
        // positions run up to 12 past the last edge, and the runtime keeps
        // E within 2^31 - 64 (kMaxGraphSize).
        Idx32 begin = Idx32::narrow(loadIndex(rowptr, {n}) + warp);
        Idx32 end = Idx32::narrow(loadIndex(rowptr, {n + 1}));
        Idx32 step(kWarpsPerBlock);
        Idx firstSlot = warp * Idx(WarpEdgeBackward::kStageSlots);
        // Positions past the segment read its last edge's index, unused.
        auto indexAt = [&](Idx32 t) {
          return Idx32::narrow(
              loadIndex(order, {min(t, end - Idx32(1)).widen()}));
        };
        auto storeNode = [&] {
          for (int64_t part = 0; part < backward.parts; ++part)
            storeRowGroups(node[part], shares, warp,
                           backward.firstChannel(lane, part));
        };
        ifThenElse(
            begin < end,
            [&] {
              Idx first = loadIndex(order, {begin.widen()});
              if (staged) {
                backward.stage(first, firstSlot);
                commitAsyncCopies();
              }
              // Edge e at position t from `slot`, while the next one's
              // inputs go to the other slot; gives the index of the edge
              // two positions on.
              auto edgeAt = [&](Idx32 t, Idx e, Idx next, int64_t slot) {
                if (staged) {
                  // Every lane is done with the other slot (the edge
                  // before).
                  warpSync();
                  ifThen(t + step < end, [&] {
                    backward.stage(next, firstSlot + Idx(1 - slot));
                  });
                  commitAsyncCopies();
                }
                Idx32 afterNext = indexAt(t + step + step);
                if (staged) {
                  waitAsyncCopies(1);
                  warpSync();
                }
                backward.emit(e, staged ? firstSlot + Idx(slot) : e, packed,
                              sink);
                return afterNext;
              };
              // Staged, two edges an iteration, from slots 0 and 1, so that
              // each slot's places are the same every iteration (unstaged,
              // one: it has no slots, and C = 128 spilled more with two).
              // Carried: the edge, the next one, the node sums.
              Idx32 stride = staged ? step + step : step;
              SmallVector<Value> init = {Idx32::narrow(first),
                                         indexAt(begin + step)};
              init.append(backward.parts * width * rows, Num(0.0));
              SmallVector<Value> results = foldRangeStep(
                  begin, end, stride, init,
                  [&](Idx32 t, ArrayRef<Value> carried) -> SmallVector<Value> {
                    Idx32 next(carried[1]);
                    setNode(carried.drop_front(2));
                    Idx32 afterNext =
                        edgeAt(t, Idx32(carried[0]).widen(), next.widen(), 0);
                    if (!staged)
                      return withNode({next, afterNext});
                    // The second edge's branch moves the node sums on; past
                    // the segment they stay as the first edge left them.
                    SmallVector<Value> afterFirst = withNode({afterNext});
                    SmallVector<Value> second = ifThenElseValues(
                        t + step < end,
                        [&] {
                          return withNode({edgeAt(t + step, next.widen(),
                                                  afterNext.widen(), 1)});
                        },
                        // Past the segment: the index is not used.
                        [&] { return afterFirst; });
                    SmallVector<Value> yielded = {afterNext};
                    llvm::append_range(yielded, second);
                    return yielded;
                  });
              setNode(ArrayRef<Value>(results).drop_front(2));
              storeNode();
            },
            [&] {
              // A warp without edges adds zeros.
              setNode(
                  SmallVector<Value>(backward.parts * width * rows, Num(0.0)));
              storeNode();
            });
        barrier();
        // Thread (lane, warp) adds the warps' sums of channels warp*32 +
        // lane, ... in warp order.
        Idx thread = warp * Idx(kWarpSize) + lane;
        int64_t blockThreads = kWarpsPerBlock * kWarpSize;
        for (int64_t base = 0; base < channels; base += blockThreads) {
          Idx c = thread + Idx(base);
          ifThen(c < Idx(channels), [&] {
            for (int64_t d = 0; d < rows; ++d) {
              Num total = load(shares, {Idx(0), Idx(d), c});
              for (int64_t w = 1; w < kWarpsPerBlock; ++w)
                total = total + load(shares, {Idx(w), Idx(d), c});
              if (basis)
                total = load(basis, {Idx(0), c}) * total;
              store(total, xGrad, {n, Idx(d), c});
            }
          });
        }
      },
      config.getBlocksPerSm());
}
} // namespace

namespace {
/// Threads of the one block that sums a whole tensor.
constexpr int64_t kSumThreads = 1024;

/// The sum of every thread's `partial` in a block of kSumThreads, added in
/// a fixed tree through `shares` (workgroup memory): in shares[0] for
/// thread 0 after the call.
void sumBlock(Idx t, Value shares, Num partial) {
  store(partial, shares, {t});
  for (int64_t stride = kSumThreads / 2; stride > 0; stride /= 2) {
    barrier();
    ifThen(t < Idx(stride), [&] {
      store(load(shares, {t}) + load(shares, {t + Idx(stride)}), shares, {t});
    });
  }
}

Value isThreadZero(Idx t) {
  return arith::CmpIOp::create(EmitScope::current().builder,
                               EmitScope::current().loc,
                               arith::CmpIPredicate::eq, t, Idx(0));
}

/// Whether `op` sums every element of one float tensor into a scalar with
/// an addf combiner.
bool isFullSum(linalg::ReduceOp op) {
  if (op.getInputs().size() != 1)
    return false;
  auto inputType = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
  auto initType = dyn_cast<RankedTensorType>(op.getInits()[0].getType());
  if (!inputType || !initType || initType.getRank() != 0 ||
      inputType.getRank() == 0 ||
      static_cast<int64_t>(op.getDimensions().size()) != inputType.getRank() ||
      !isa<FloatType>(inputType.getElementType()))
    return false;
  Block &body = op.getCombiner().front();
  auto add = dyn_cast<arith::AddFOp>(body.front());
  return body.getOperations().size() == 2 && add &&
         llvm::is_contained(add->getOperands(), body.getArgument(0)) &&
         llvm::is_contained(add->getOperands(), body.getArgument(1));
}

/// A full sum (isFullSum: an energy summed over atoms and features) as one
/// block: each thread adds the elements t, t + 1024, ... in order, then the
/// block's partial sums are added in a fixed tree through workgroup memory,
/// and thread 0 adds the init value. Deterministic, and no host loop over
/// device memory.
void emitFullSum(linalg::ReduceOp op, KernelIO &io, KernelConfigAttr config) {
  auto inputType = cast<RankedTensorType>(op.getInputs()[0].getType());
  OpBuilder &b = EmitScope::current().builder;
  Location loc = EmitScope::current().loc;
  Value input = io.in(op.getInputs()[0]), init = io.in(op.getInits()[0]);
  ReassociationIndices all;
  for (int64_t axis = 0; axis < inputType.getRank(); ++axis)
    all.push_back(axis);
  Value flat = inputType.getRank() == 1
                   ? input
                   : memref::CollapseShapeOp::create(
                         b, loc, input, SmallVector<ReassociationIndices>{all})
                         .getResult();
  Idx count = dim(flat, 0);
  Value out = io.allocate(0, {});
  launchKernel(config.getKernel().getValue(), {Idx(1), Idx(1), Idx(1)},
               {Idx(kSumThreads), Idx(1), Idx(1)},
               {SmallVector<int64_t>{kSumThreads}}, [&](const LaunchIds &ids) {
                 Idx t = ids.thread[0];
                 Value shares = ids.workgroup[0];
                 SmallVector<Num> partial = foldRangeStep(
                     t, count, Idx(kSumThreads), {Num(0.0)},
                     [&](Idx i, ArrayRef<Num> sum) {
                       return SmallVector<Num>{sum[0] + load(flat, {i})};
                     });
                 sumBlock(t, shares, partial[0]);
                 ifThen(isThreadZero(t), [&] {
                   store(load(init, {}) + load(shares, {Idx(0)}), out, {});
                 });
               });
}

/// Outputs of a matmul small enough for one block each.
constexpr int64_t kSmallMatmulOutputs = 64;

/// Whether `op` is a float matmul on tensors with at most
/// kSmallMatmulOutputs static outputs and a dynamic reduction (the virial).
bool isLongMatmul(linalg::MatmulOp op) {
  if (op.hasUserDefinedMaps() || !op.hasPureTensorSemantics())
    return false;
  auto lhsType = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
  auto outType = dyn_cast<RankedTensorType>(op.getOutputs()[0].getType());
  return lhsType && outType && outType.hasStaticShape() &&
         outType.getNumElements() <= kSmallMatmulOutputs &&
         lhsType.isDynamicDim(1) && isa<FloatType>(outType.getElementType());
}

/// A long matmul (isLongMatmul: the virial, g^T v over all edges) as one
/// block per output element: the loop kernel gave each output one thread
/// and a serial sum over E, about 0.15 s at E = 645k and an fp32 error
/// growing with E. Each thread adds k = t, t + 1024, ... in order, then the
/// block's tree; deterministic.
void emitLongMatmul(linalg::MatmulOp op, KernelIO &io,
                    KernelConfigAttr config) {
  auto outType = cast<RankedTensorType>(op.getOutputs()[0].getType());
  int64_t columns = outType.getDimSize(1);
  Value lhs = io.in(op.getInputs()[0]), rhs = io.in(op.getInputs()[1]);
  Value init = io.in(op.getOutputs()[0]);
  Idx depth = dim(lhs, 1);
  Value out = io.allocate(0, {});
  launchKernel(
      config.getKernel().getValue(),
      {Idx(outType.getNumElements()), Idx(1), Idx(1)},
      {Idx(kSumThreads), Idx(1), Idx(1)}, {SmallVector<int64_t>{kSumThreads}},
      [&](const LaunchIds &ids) {
        Idx t = ids.thread[0];
        Idx row = ids.block[0] / Idx(columns);
        Idx column = ids.block[0] % Idx(columns);
        SmallVector<Num> partial = foldRangeStep(
            t, depth, Idx(kSumThreads), {Num(0.0)},
            [&](Idx k, ArrayRef<Num> sum) {
              return SmallVector<Num>{sum[0] + load(lhs, {row, k}) *
                                                   load(rhs, {k, column})};
            });
        sumBlock(t, ids.workgroup[0], partial[0]);
        ifThen(isThreadZero(t), [&] {
          store(load(init, {row, column}) + load(ids.workgroup[0], {Idx(0)}),
                out, {row, column});
        });
      });
}

/// A microkernel entry for `OpTy`, whose emitter may contract multiplies and
/// adds into FMAs where `contract` says so.
template <typename OpTy, bool (*Applies)(OpTy),
          void (*Emit)(OpTy, KernelIO &, KernelConfigAttr), bool Contract>
Microkernel microkernel(StringLiteral name, int64_t blocksPerSm) {
  return Microkernel{name, blocksPerSm,
                     [](Operation *op) {
                       auto typed = dyn_cast<OpTy>(op);
                       return typed && Applies(typed);
                     },
                     [](Operation *op, KernelIO &io, KernelConfigAttr config) {
                       EmitScope::current().contract = Contract;
                       Emit(cast<OpTy>(op), io, config);
                     }};
}

bool rotateMixApplies(RotateMixOp op) { return channelsFillWarps(op.getX()); }
bool segmentReduceApplies(SegmentReduceOp) { return true; }
/// The backward kernels compute the Wigner-D and kernel gradients whether
/// they are used or not (they are, in a model's backward).
template <typename OpTy> bool edgeGradsUsed(OpTy op) {
  return !op.getWignerGrad().use_empty() && !op.getKcGrad().use_empty();
}
/// The per-edge backward computes no channel-basis gradient.
bool rotateMixGradApplies(RotateMixGradOp op) {
  return channelsFillWarps(op.getX()) && edgeGradsUsed(op) &&
         (!op.getCbGrad() || op.getCbGrad().use_empty());
}
bool rotateMixGradReduceApplies(RotateMixGradReduceOp op) {
  return channelsFillWarps(op.getX()) && edgeGradsUsed(op);
}
} // namespace

/// Blocks per multiprocessor asked of the register allocator. rotate_mix
/// takes 56 registers at 8 blocks (12 fit it in 40 without spilling and
/// measured the same: it is bound by DRAM and L2 now). The fused backward
/// keeps its node sums in registers and takes 246 (241 with a whole
/// Wigner-D) at 2 blocks with nothing spilled; at 3 blocks (168) it spilled
/// and measured slower, 0.886 against 0.830 ms at N = 4096 (kept Wigner-D,
/// sums in workgroup memory); at 4 (128) it spilled more.
ArrayRef<Microkernel> sezm::getMicrokernels() {
  static const Microkernel kernels[] = {
      microkernel<RotateMixOp, rotateMixApplies, emitRotateMix, true>(
          "rotate_mix", 8),
      microkernel<SegmentReduceOp, segmentReduceApplies, emitSegmentReduce,
                  true>("segment_reduce", 0),
      microkernel<RotateMixGradOp, rotateMixGradApplies, emitRotateMixGrad,
                  true>("rotate_mix_grad", 0),
      microkernel<RotateMixGradReduceOp, rotateMixGradReduceApplies,
                  emitRotateMixGradReduce, true>("rotate_mix_grad_reduce", 2),
      microkernel<linalg::ReduceOp, isFullSum, emitFullSum, false>("full_sum",
                                                                   0),
      microkernel<linalg::MatmulOp, isLongMatmul, emitLongMatmul, false>(
          "long_matmul", 0),
  };
  return kernels;
}

const Microkernel *sezm::lookupMicrokernel(StringRef name) {
  for (const Microkernel &kernel : getMicrokernels())
    if (kernel.name == name)
      return &kernel;
  return nullptr;
}

namespace {
/// Lowers each op whose kernel configuration names a microkernel to it.
struct LowerToMicrokernel : RewritePattern {
  LowerToMicrokernel(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto config = op->getAttrOfType<KernelConfigAttr>(kKernelConfigAttr);
    if (!config || config.getStrategy() != Strategy::Microkernel)
      return failure();
    const Microkernel *kernel =
        config.getKernel() ? lookupMicrokernel(config.getKernel()) : nullptr;
    if (!kernel || !kernel->applies(op))
      return op->emitOpError() << "has kernel configuration " << config
                               << ", but no microkernel of that name lowers it";
    return lowerWithKernel(op, rewriter,
                           [&](KernelIO &io) { kernel->emit(op, io, config); });
  }
};

struct ConvertSeZMToGPUKernelsPass
    : sezm::impl::ConvertSeZMToGPUKernelsBase<ConvertSeZMToGPUKernelsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<LowerToMicrokernel>(&getContext());
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};
} // namespace
