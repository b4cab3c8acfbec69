//===- RotateMixGradReduce.cpp - the fused backward -----------------------===//

#include "Microkernels.h"
#include "WarpSchedules.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "WarpEdgeBackward.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {

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
  Emitter &em = io.emitter();
  Value x = io.in(op.getX()), src = io.in(op.getSrc());
  Value order = io.in(op.getSrcOrder()), rowptr = io.in(op.getSrcRowptr());
  int64_t channels = channelsOf(op.getX());
  Idx edges = em.dim(src, 0), nodes = em.dim(rowptr, 0) - 1;
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
  em.launchKernel(
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
            Num weight = em.load(basis, {Idx(0), first + Idx(k)});
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
              for (Num sum : channel)
                values.push_back(sum.in(em));
          return values;
        };
        auto setNode = [&](ArrayRef<Value> values) {
          node.assign(backward.parts, {});
          for (auto &part : node)
            for (int64_t k = 0; k < width; ++k) {
              auto &sums = part.emplace_back();
              for (Value value : values.take_front(rows))
                sums.push_back(em.num(value));
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
        // Node n's positions: its segment, or the segment's part in the
        // op's range of edges, whose edge at position t is order[t] - first.
        KernelIO::EdgeRange range = io.edgeRange(order, rowptr, n, edges);
        Idx32 begin = Idx32::narrow(range.begin + warp);
        Idx32 end = Idx32::narrow(range.end);
        Idx32 step(kWarpsPerBlock);
        Idx firstSlot = warp * Idx(WarpEdgeBackward::kStageSlots);
        auto edgeOf = [&](Idx t) {
          return em.loadIndex(order, {t}) - range.first;
        };
        // Positions past the segment read its last edge's index, unused.
        auto indexAt = [&](Idx32 t) {
          return Idx32::narrow(edgeOf(min(t, end - Idx32(1)).widen()));
        };
        auto storeNode = [&] {
          for (int64_t part = 0; part < backward.parts; ++part)
            storeRowGroups(node[part], shares, warp,
                           backward.firstChannel(lane, part));
        };
        em.ifThenElse(
            begin < end,
            [&] {
              Idx first = edgeOf(begin.widen());
              if (staged) {
                backward.stage(first, firstSlot);
                em.commitAsyncCopies();
              }
              // Edge e at position t from `slot`, while the next one's
              // inputs go to the other slot; gives the index of the edge
              // two positions on.
              auto edgeAt = [&](Idx32 t, Idx e, Idx next, int64_t slot) {
                if (staged) {
                  // Every lane is done with the other slot (the edge
                  // before).
                  em.warpSync();
                  em.ifThen(t + step < end, [&] {
                    backward.stage(next, firstSlot + Idx(1 - slot));
                  });
                  em.commitAsyncCopies();
                }
                Idx32 afterNext = indexAt(t + step + step);
                if (staged) {
                  em.waitAsyncCopies(1);
                  em.warpSync();
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
              init.append(backward.parts * width * rows, Num(0.0).in(em));
              SmallVector<Value> results = em.foldRangeStep(
                  begin, end, stride, init,
                  [&](Idx32 t, ArrayRef<Value> carried) -> SmallVector<Value> {
                    Idx32 next(carried[1], em);
                    setNode(carried.drop_front(2));
                    Idx32 afterNext = edgeAt(t, Idx32(carried[0], em).widen(),
                                             next.widen(), 0);
                    if (!staged)
                      return withNode({next, afterNext});
                    // The second edge's branch moves the node sums on; past
                    // the segment they stay as the first edge left them.
                    SmallVector<Value> afterFirst = withNode({afterNext});
                    SmallVector<Value> second = em.ifThenElseValues(
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
              setNode(SmallVector<Value>(backward.parts * width * rows,
                                         Num(0.0).in(em)));
              storeNode();
            });
        em.barrier();
        // Thread (lane, warp) adds the warps' sums of channels warp*32 +
        // lane, ... in warp order.
        Idx thread = warp * Idx(kWarpSize) + lane;
        int64_t blockThreads = kWarpsPerBlock * kWarpSize;
        for (int64_t base = 0; base < channels; base += blockThreads) {
          Idx c = thread + Idx(base);
          em.ifThen(c < Idx(channels), [&] {
            for (int64_t d = 0; d < rows; ++d) {
              Num total = em.load(shares, {Idx(0), Idx(d), c});
              for (int64_t w = 1; w < kWarpsPerBlock; ++w)
                total = total + em.load(shares, {Idx(w), Idx(d), c});
              if (basis)
                total = em.load(basis, {Idx(0), c}) * total;
              em.store(total, xGrad, {n, Idx(d), c});
            }
          });
        }
      },
      config.getBlocksPerSm());
}
bool rotateMixGradReduceApplies(RotateMixGradReduceOp op) {
  return channelsFillWarps(op.getX()) && edgeGradsUsed(op);
}

} // namespace mlir::sezm::microkernels
