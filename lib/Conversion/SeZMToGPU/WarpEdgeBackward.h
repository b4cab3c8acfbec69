//===- WarpEdgeBackward.h - the rotate_mix backward of one edge -*- C++ -*-===//
//
// What the two backward microkernels (rotate_mix_grad and the fused
// rotate_mix_grad_reduce) share: one warp runs the backward of one edge at
// a time, its inputs loaded by the warp together or staged through
// workgroup memory an edge ahead.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_LIB_CONVERSION_SEZMTOGPU_WARPEDGEBACKWARD_H
#define SEZM_LIB_CONVERSION_SEZMTOGPU_WARPEDGEBACKWARD_H

#include "WarpSchedules.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"

namespace mlir::sezm::microkernels {

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
    Emitter &em = k.getEmitter();
    SmallVector<int64_t> table;
    for (int64_t entry = 0; entry < kept; ++entry)
      table.push_back(place(entry));
    return em.lookup(k, table);
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
    Emitter &em = warpId.getEmitter();
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
        wignerCopyPlaces.push_back(em.lookup(
            lane, ArrayRef<int64_t>(entryPlace)
                      .slice(first, std::min(kWarpSize, entries - first))));
    }
    if (!keptGrad) {
      flatGrad = flattenRows(em, wignerGrad);
      for (int64_t i = 0; i * kWarpSize < matrixSize; ++i) {
        Idx place = lane + Idx(i * kWarpSize);
        em.ifThen(place < Idx(matrixSize), [&] {
          em.store(Num(0.0), matrix, {warp, place});
        });
      }
      em.warpSync();
    }
    // Lanes 16 to 31 hold their m = -1 and m = +1 rows swapped.
    swap = swapsLanes ? lane / Idx(kWarpSize / 2) : Idx(0);
    slots = em.spreadSlots(sums, lane);
    sumIndex.clear();
    places.clear();
    for (Idx position : slots.index) {
      sumIndex.push_back(em.lookup(position, sumOrder));
      if (!keptGrad)
        places.push_back(em.lookup(sumIndex.back(), entryPlace));
    }
  }

  /// Starts copying edge e's gradient rows, Wigner-D entries and kernel into
  /// workgroup slot `slot` (Staged): each lane its own channels' rows and
  /// one entry per round of 32.
  void stage(Idx e, Idx slot) {
    Emitter &em = e.getEmitter();
    // Gradient rows: row j from the lane's row j (swapped, see
    // orderForSwappedLanes).
    for (int64_t part = 0; part < parts; ++part) {
      Idx first = firstChannel(lane, part);
      for (int64_t j = 0; j < layout.reducedRows(); ++j)
        em.copyAsync(grad, {e, laneRow(j), first}, gradStage,
                     {slot, Idx(j), first}, width);
    }
    // Lane L copies entry L + 32 r of each round r where there is one.
    auto copyEntries = [&](int64_t count, function_ref<void(int64_t)> copy) {
      for (int64_t round = 0; round * kWarpSize < count; ++round) {
        if ((round + 1) * kWarpSize <= count)
          copy(round);
        else
          em.ifThen(lane < Idx(count - round * kWarpSize),
                    [&] { copy(round); });
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
        em.copyAsync(wigner, {e, k}, wignerStage, {slot, to}, 1);
        return;
      }
      Idx place = wignerCopyPlaces[round];
      em.copyAsync(wigner, {e, place / Idx(rows), place % Idx(rows)},
                   wignerStage, {slot, to}, 1);
    });
    if (mixer.rank() > 0)
      copyEntries(mixer.numKernelSums(), [&](int64_t round) {
        Idx k = lane + Idx(round * kWarpSize);
        em.copyAsync(mixer.kernel(), {e, k}, kcStage, {slot, k}, 1);
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
    Emitter &em = e.getEmitter();
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
        em.warpSumSpread(sums, laneSum, lane, [&](int64_t position) {
          return laneOrdered[position];
        });
    for (auto [group, sum] : llvm::enumerate(spread)) {
      // A lambda cannot capture a structured binding in C++17.
      Num total = sum;
      int64_t r = group, base = r * kWarpSize;
      ArrayRef<int64_t> held = ArrayRef<int64_t>(sumOrder).slice(
          base, std::min(kWarpSize, sums - base));
      Idx index = sumIndex[r];
      auto toMatrix = [&] {
        if (keptGrad)
          em.store(total, wignerGrad, {e, index});
        else
          em.store(total, matrix, {warp, places[r]});
      };
      auto toKernel = [&] {
        em.store(total, kcGrad, {e, index - Idx(entries)});
      };
      em.ifThen(slots.owner[r], [&] {
        if (llvm::all_of(held, [&](int64_t k) { return k < entries; }))
          toMatrix();
        else if (llvm::none_of(held, [&](int64_t k) { return k < entries; }))
          toKernel();
        else
          em.ifThenElse(index < Idx(entries), toMatrix, toKernel);
      });
    }
    // Kept entries alone are stored by their lanes above.
    if (keptGrad)
      return;
    // The whole matrix out (16-byte pieces where they tile it evenly), then
    // free for the next edge.
    em.warpSync();
    int64_t copyWidth = matrixSize % (4 * kWarpSize) == 0 ? 4 : 1;
    for (int64_t i = 0; i * copyWidth * kWarpSize < matrixSize; ++i) {
      Idx place = (lane + Idx(i * kWarpSize)) * Idx(copyWidth);
      auto copy = [&] {
        copyVector(em, matrix, {warp, place}, flatGrad, {e, place}, copyWidth);
      };
      if ((i + 1) * kWarpSize * copyWidth <= matrixSize)
        copy();
      else
        em.ifThen(place < Idx(matrixSize), copy);
    }
    em.warpSync();
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
    Emitter &em = at.getEmitter();
    StagedEntries staged(layout);
    Idx shift = swap * Idx(staged.positiveAt - staged.negativeAt);
    SmallVector<Num> values;
    auto read = [&](Idx from, int64_t count) {
      for (int64_t k = 0; k < count; k += 4) {
        SmallVector<Num> piece =
            em.loadVector(wignerStage, {at, from + Idx(k)}, 4);
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
  Idx warp = 0, lane = 0, swap = 0;
  SpreadSlots slots;
  /// The sum each spread slot holds, and its place in the warp's matrix.
  SmallVector<Idx> sumIndex, places;
};

/// The backward kernels compute the Wigner-D and kernel gradients whether
/// they are used or not (they are, in a model's backward).
template <typename OpTy> bool edgeGradsUsed(OpTy op) {
  return !op.getWignerGrad().use_empty() && !op.getKcGrad().use_empty();
}

} // namespace mlir::sezm::microkernels

#endif // SEZM_LIB_CONVERSION_SEZMTOGPU_WARPEDGEBACKWARD_H
