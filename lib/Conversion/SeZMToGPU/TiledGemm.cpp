//===- TiledGemm.cpp - the register-tiled GEMM schedule -------------------===//
//
// A block computes one tile of C, stepping through the depth: each step it
// stages a slice of A (transposed, so that a thread reads the rows it owns
// as one access) and of B in workgroup memory, and every thread adds the
// slice's products into the threadRows x threadColumns sums it keeps in
// registers. A value read from workgroup memory thus feeds threadRows or
// threadColumns fused multiply-adds, where the loop kernel read two values
// from global memory per multiply-add. The next slice is read into
// registers before the current one is used, so that its loads are in flight
// during the arithmetic.
//
// Threads own rows and columns in interleaved groups (thread x owns columns
// x*v .. x*v+v-1, then the same plus threadsAcross*v, ...), so that a warp
// reads consecutive workgroup words (no bank conflicts) and its stores of C
// are coalesced.
//
//===----------------------------------------------------------------------===//

#include "TiledGemm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {

namespace {
/// Threads across a block's columns; the same number go down its rows.
constexpr int64_t kThreadsAcross = 16;
/// Sums a thread keeps per row of its tile at most.
constexpr int64_t kMaxThreadColumns = 8;
/// Pads each depth row of the staged A, so that the transposing stores of
/// threads with neighbouring k fall in different banks; four keeps the rows
/// aligned for 16-byte reads.
constexpr int64_t kStagedRowPad = 4;

/// The widest of 4, 2 and 1 that divides `n`: the elements a thread reads
/// from workgroup memory as one access.
int64_t vectorWidth(int64_t n) { return n % 4 == 0 ? 4 : (n % 2 == 0 ? 2 : 1); }

/// The offsets, in a block's tile, of the rows (or columns) a thread owns:
/// `count` of them in groups of `width`, group g at g * width * threads.
SmallVector<Idx> ownedOffsets(Idx thread, int64_t count, int64_t width,
                              int64_t threads) {
  SmallVector<Idx> offsets;
  Idx first = thread * Idx(width);
  for (int64_t g = 0; g < count / width; ++g)
    for (int64_t c = 0; c < width; ++c)
      offsets.push_back(first + Idx(g * width * threads + c));
  return offsets;
}
} // namespace

bool gemmTakesColumns(int64_t columns) { return columns >= kThreadsAcross; }

GemmTiles chooseGemmTiles(int64_t columns) {
  int64_t widest = kThreadsAcross * kMaxThreadColumns;
  int64_t blockColumns;
  if (columns % widest == 0 || columns > widest + widest / 2)
    blockColumns = widest;
  else if (columns % (widest * 3 / 4) == 0)
    blockColumns = widest * 3 / 4;
  else
    blockColumns =
        std::min<int64_t>(widest, llvm::alignTo(columns, kThreadsAcross));
  int64_t threadColumns = blockColumns / kThreadsAcross;
  // 8 x 8 sums (and the slices in flight) fit two blocks of 256 threads on a
  // multiprocessor in registers.
  int64_t threadRows = 8;
  return GemmTiles{kThreadsAcross * threadRows, blockColumns, 16, threadRows,
                   threadColumns};
}

GemmTiles gemmTilesOf(KernelConfigAttr config) {
  ArrayRef<int64_t> block = config.getWorkgroupTile();
  ArrayRef<int64_t> thread = config.getThreadTile();
  assert(block.size() == 3 && thread.size() == 2 && "a GEMM's tiles");
  return GemmTiles{block[0], block[1], block[2], thread[0], thread[1]};
}

void emitTiledGemm(StringRef name, const GemmProblem &problem,
                   const GemmTiles &tiles, int64_t blocksPerSm) {
  const int64_t across = tiles.threadsAcross(), down = tiles.threadsDown();
  const int64_t threads = tiles.threads(), step = tiles.depthStep;
  const int64_t rowWidth = vectorWidth(tiles.threadRows);
  const int64_t columnWidth = vectorWidth(tiles.threadColumns);
  const int64_t stagedA = tiles.blockRows * step,
                stagedB = step * tiles.blockColumns;
  assert(stagedA % threads == 0 && stagedB % threads == 0 &&
         tiles.blockRows % kStagedRowPad == 0 && "slices the threads share");
  const int64_t columnBlocks =
      llvm::divideCeil(problem.columns, tiles.blockColumns);
  const bool columnsFill = problem.columns % tiles.blockColumns == 0;
  const int64_t fullSteps = problem.depth / step,
                lastStep = problem.depth % step;
  Idx lastRow = problem.rows - Idx(1);
  Idx lastColumn(problem.columns - 1);

  launchKernel(
      name,
      {ceilDiv(problem.rows, tiles.blockRows), Idx(columnBlocks),
       Idx(problem.batches)},
      {Idx(threads), Idx(1), Idx(1)},
      {SmallVector<int64_t>{step, tiles.blockRows + kStagedRowPad},
       SmallVector<int64_t>{step, tiles.blockColumns}},
      [&](const LaunchIds &ids) {
        Idx t = ids.thread[0], batch = ids.block[2];
        Idx rowBase = ids.block[0] * Idx(tiles.blockRows);
        Idx columnBase = ids.block[1] * Idx(tiles.blockColumns);
        Value stagedARows = ids.workgroup[0], stagedBRows = ids.workgroup[1];
        SmallVector<Idx> rows =
            ownedOffsets(t / Idx(across), tiles.threadRows, rowWidth, down);
        SmallVector<Idx> columns = ownedOffsets(
            t % Idx(across), tiles.threadColumns, columnWidth, across);

        // The thread's share of slice `s` (k from s * step), read from
        // global memory. Rows and columns past the end read the last one
        // again (their sums store its value again, below); depths past the
        // end are staged but never added.
        auto readSlice = [&](Idx s) {
          SmallVector<Num> values;
          Idx k0 = s * Idx(step);
          for (int64_t q = 0; q < stagedA; q += threads) {
            Idx flat = t + Idx(q);
            Idx row = min(rowBase + flat / Idx(step), lastRow);
            Idx k = min(k0 + flat % Idx(step), Idx(problem.depth - 1));
            values.push_back(problem.loadA(batch, row, k));
          }
          for (int64_t q = 0; q < stagedB; q += threads) {
            Idx flat = t + Idx(q);
            Idx column =
                min(columnBase + flat % Idx(tiles.blockColumns), lastColumn);
            Idx k = min(k0 + flat / Idx(tiles.blockColumns),
                        Idx(problem.depth - 1));
            values.push_back(problem.loadB(batch, k, column));
          }
          return values;
        };
        auto stageSlice = [&](ArrayRef<Num> values) {
          size_t next = 0;
          for (int64_t q = 0; q < stagedA; q += threads) {
            Idx flat = t + Idx(q);
            store(values[next++], stagedARows,
                  {flat % Idx(step), flat / Idx(step)});
          }
          for (int64_t q = 0; q < stagedB; q += threads) {
            Idx flat = t + Idx(q);
            store(values[next++], stagedBRows,
                  {flat / Idx(tiles.blockColumns),
                   flat % Idx(tiles.blockColumns)});
          }
        };
        // The first `depths` rows of the staged slice added into `sums`.
        auto addSlice = [&](ArrayRef<Num> sums, int64_t depths) {
          SmallVector<Num> next(sums);
          for (int64_t kk = 0; kk < depths; ++kk) {
            SmallVector<Num> a, b;
            for (int64_t i = 0; i < tiles.threadRows; i += rowWidth)
              llvm::append_range(
                  a, loadVector(stagedARows, {Idx(kk), rows[i]}, rowWidth));
            for (int64_t j = 0; j < tiles.threadColumns; j += columnWidth)
              llvm::append_range(
                  b,
                  loadVector(stagedBRows, {Idx(kk), columns[j]}, columnWidth));
            for (int64_t i = 0; i < tiles.threadRows; ++i)
              for (int64_t j = 0; j < tiles.threadColumns; ++j) {
                Num &sum = next[i * tiles.threadColumns + j];
                sum = sum + a[i] * b[j];
              }
          }
          return next;
        };

        SmallVector<Num> sums;
        for (int64_t i = 0; i < tiles.threadRows; ++i)
          for (int64_t j = 0; j < tiles.threadColumns; ++j)
            sums.push_back(
                problem.loadInit
                    ? problem.loadInit(batch, min(rowBase + rows[i], lastRow),
                                       min(columnBase + columns[j], lastColumn))
                    : Num(0.0));
        stageSlice(readSlice(Idx(0)));
        barrier();
        sums = foldRangeStep(Idx(0), Idx(fullSteps), Idx(1), sums,
                             [&](Idx s, ArrayRef<Num> current) {
                               SmallVector<Num> next = readSlice(s + Idx(1));
                               SmallVector<Num> added = addSlice(current, step);
                               barrier();
                               stageSlice(next);
                               barrier();
                               return added;
                             });
        if (lastStep > 0)
          sums = addSlice(sums, lastStep);

        // Rows and columns past the end store again the last one's value,
        // which their sums reproduce exactly (their operands were read
        // there): no branches, into which the last slice's arithmetic would
        // be sunk, its operands all live at once.
        for (int64_t i = 0; i < tiles.threadRows; ++i) {
          Idx row = min(rowBase + rows[i], lastRow);
          for (int64_t j = 0; j < tiles.threadColumns; ++j) {
            Idx column = columnsFill ? columnBase + columns[j]
                                     : min(columnBase + columns[j], lastColumn);
            problem.store(batch, row, column,
                          sums[i * tiles.threadColumns + j]);
          }
        }
      },
      blocksPerSm);
}

} // namespace mlir::sezm::microkernels
