//===- TiledGemm.cpp - the register-tiled GEMM schedule -------------------===//
//
// A block computes one tile of C, stepping through the depth: each step it
// stages a slice of A (transposed, so that a thread reads the rows it owns
// as one access) and of B in workgroup memory, and every thread adds the
// slice's products into the threadRows x threadColumns sums it keeps in
// registers. A value read from workgroup memory thus feeds threadRows or
// threadColumns fused multiply-adds, where the loop kernel read two values
// from global memory per multiply-add. Slices alternate between two stages
// of workgroup memory, copied there asynchronously (cp.async), so that the
// next slice's loads are in flight during the arithmetic without holding
// registers, and a slice costs one barrier.
//
// Threads own rows and columns in interleaved groups (thread x owns columns
// x*v .. x*v+v-1, then the same plus threadsAcross*v, ...), so that a warp
// reads consecutive workgroup words (no bank conflicts) and its stores of C
// are coalesced.
//
// The split-precision schedule (precision = tf32x3) stages the same slices
// of A, B already split into its TF32 parts, and multiplies them on the
// tensor cores instead (emitMmaGemm).
//
//===----------------------------------------------------------------------===//

#include "TiledGemm.h"

#include "KernelBuilder/KernelIO.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {

namespace {
/// Threads across a block's columns (of 256): 16, or 8 where 16 fit no
/// divisor of the columns.
constexpr int64_t kThreadsAcross = 16;
/// Sums a thread keeps per row of its tile at most: 8 x 8 spill a few
/// words in some kernels at two blocks per multiprocessor, and still ran
/// faster than 8 x 4 once the slices no longer passed through registers.
constexpr int64_t kMaxThreadColumns = 8;
/// Pads each depth row of the staged A, so that the transposing stores of
/// threads with neighbouring k spread over the banks (two to a bank: a
/// half-warp's 16 depths of one row step 4 banks apart); four keeps the rows
/// aligned for 16-byte reads, and conflict-free stores cost more elsewhere
/// (docs/performance.md, stop 51).
constexpr int64_t kStagedRowPad = 4;
/// Words a staging copy moves at once where the operand allows (16 bytes).
constexpr int64_t kGroup = 4;
/// Pads each row of an A slice staged row by row ([row][k], `step` + 4
/// words): a warp's two rows 4 apart then fall 16 banks apart, and the
/// tensor-core fragments' eight rows by four depths in 32 different banks.
constexpr int64_t kRowMajorPad = 4;
/// The slices of the depth in workgroup memory at once: one being added,
/// the next being copied (three were slower on an H100: docs/performance.md,
/// stop 51).
constexpr int64_t kPipelineStages = 2;

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

// A warp per row reads B per lane: 13 columns over 96 depths took 0.40 ms
// per 645,240 rows that way (L1-bound), five times their DRAM time.
bool gemmTakesColumns(int64_t columns) { return columns >= kThreadsAcross / 2; }

GemmTiles chooseGemmTiles(int64_t columns) {
  // Eight rows of sums per thread, 256 threads. A block width that divides
  // the columns wastes no block's work: take the most sums per thread (at
  // least half the bound) for which one does with 16 threads across (128
  // rows), else with 8 across (256 rows: the gates' l = 0 row, 32 columns,
  // on 8 x 4 sums rather than 8 x 2; 16 across first, because SeZM-min's
  // m = +-1 product ran slower on 256 x 64 blocks of 8 x 8 than on 128 x 96
  // of 8 x 6, docs/performance.md stop 51); failing both, one block
  // (rounded up) or the widest.
  constexpr int64_t kThreads = 256, kThreadRows = 8;
  for (int64_t across : {kThreadsAcross, kThreadsAcross / 2}) {
    for (int64_t t = kMaxThreadColumns; 2 * t >= kMaxThreadColumns; --t) {
      if (columns % (across * t) == 0)
        return GemmTiles{kThreads / across * kThreadRows, across * t, 16,
                         kThreadRows, t};
    }
  }
  int64_t blockColumns =
      std::min<int64_t>(kThreadsAcross * kMaxThreadColumns,
                        llvm::alignTo(columns, kThreadsAcross));
  return GemmTiles{kThreads / kThreadsAcross * kThreadRows, blockColumns, 16,
                   kThreadRows, blockColumns / kThreadsAcross};
}

GemmTiles chooseGemmTiles(int64_t depth, int64_t columns) {
  GemmTiles tiles = chooseGemmTiles(columns);
  tiles.tensorCoresPay = splitPrecisionPays(depth, columns);
  return tiles;
}

/// `tiles` with `threadRows` rows of sums a thread, on the same threads
/// (the block's rows follow).
static GemmTiles withThreadRows(GemmTiles tiles, int64_t threadRows) {
  tiles.blockRows = tiles.threadsDown() * threadRows;
  tiles.threadRows = threadRows;
  return tiles;
}

GemmTiles chooseGemmTilesForFewRows(int64_t columns) {
  // 4096 atoms on 256-row blocks were 16 blocks for 132 multiprocessors.
  constexpr int64_t kFewRowsBlock = 64;
  GemmTiles tiles = chooseGemmTiles(columns);
  return withThreadRows(tiles, kFewRowsBlock / tiles.threadsDown());
}

bool gemmStreams(int64_t depth, int64_t columns) {
  constexpr int64_t kStreamingFlopPerByte = 16;
  return 2 * depth * columns < kStreamingFlopPerByte * 4 * (depth + columns);
}

bool splitPrecisionPays(int64_t depth, int64_t columns) {
  // Between DPA4-Mini's 128 x 128 products (32 FLOP a byte), slower split
  // than IEEE, and the default DPA4's 256 x 256 (64), faster.
  constexpr int64_t kSplitFlopPerByte = 48;
  return 2 * depth * columns >= kSplitFlopPerByte * 4 * (depth + columns);
}

GemmTiles chooseGemmTilesForStreaming(int64_t columns) {
  // 4 blocks ran fastest of 2, 3 and 4 on an H100 (docs/performance.md,
  // stop 61).
  constexpr int64_t kStreamingThreadRows = 4, kStreamingBlocksPerSm = 4;
  GemmTiles tiles =
      withThreadRows(chooseGemmTiles(columns), kStreamingThreadRows);
  tiles.blocksPerSm = kStreamingBlocksPerSm;
  return tiles;
}

GemmTiles fitWorkgroupMemory(GemmTiles tiles, int64_t elementBytes) {
  constexpr int64_t kStaticWorkgroupBytes = 48 * 1024;
  // A staged either way (lowering picks by the operand's alignment).
  auto stagedBytes = [&] {
    int64_t a = std::max(tiles.depthStep * (tiles.blockRows + kStagedRowPad),
                         tiles.blockRows * (tiles.depthStep + kRowMajorPad));
    return kPipelineStages * elementBytes *
           (a + tiles.depthStep * tiles.blockColumns);
  };
  while (stagedBytes() > kStaticWorkgroupBytes && tiles.depthStep > 1)
    tiles.depthStep /= 2;
  return tiles;
}

namespace {
/// One block of a GEMM launch: where its tile of outputs lies, and how it
/// copies one slice of the depth (`step` of it) into one stage of
/// workgroup memory, each thread starting its share of the copies
/// (cp.async) and going on without waiting. A is staged transposed
/// ([k][row], so that a thread reads the rows it owns as one access, one
/// word copied at a time) or, where its depth comes in aligned groups
/// (`rowMajorA`), row by row ([row][k], a group copied as one access and
/// read as one per row); B as it is ([k][column], `bWords` words a column,
/// `bDepth` rows), a group of words at a time where `wideB`. Rows and
/// columns past the end read the last one again; depths past the end are
/// read clamped (never added), or as zeros in A where `zeroPastDepth`.
struct GemmBlock {
  const GemmProblem &problem;
  int64_t blockRows, blockColumns, step, stages, threads, bWords, bDepth;
  bool zeroPastDepth, rowMajorA, wideB;
  Idx thread, batch, rowBase, columnBase;
  /// (stages, step, rows) and (stages, step, columns), rows padded.
  Value stagedA, stagedB;
  /// The last row and column of the output (the row computed on the host).
  Idx lastRow, lastColumn;

  /// The output row and column of a tile's row and column, clamped to the
  /// last: rows and columns past the end read and store the last one's
  /// values, which their sums reproduce exactly (their operands were read
  /// there), with no branches, into which the last slice's arithmetic
  /// would be sunk, its operands all live at once.
  Idx clampRow(Idx row) const { return min(rowBase + row, lastRow); }
  Idx clampColumn(Idx column) const {
    return min(columnBase + column, lastColumn);
  }

  /// Stores a sum at output row `outputRow` (clampRow's) and tile column
  /// `column`.
  void storeOutput(Idx outputRow, Idx column, Num value) const {
    problem.store(batch, outputRow,
                  problem.columns % blockColumns == 0 ? columnBase + column
                                                      : clampColumn(column),
                  value);
  }

  /// Where depth `k` of tile row `row` lies in stage `stage` of stagedA.
  SmallVector<Idx> placeA(Idx stage, Idx k, Idx row) const {
    if (rowMajorA)
      return {stage, row, k};
    return {stage, k, row};
  }

  /// body(flat) for flat < count, the block's threads taking turns.
  void forEachShare(int64_t count, llvm::function_ref<void(Idx)> body) const {
    Emitter &em = thread.getEmitter();
    for (int64_t q = 0; q < count; q += threads) {
      Idx flat = thread + Idx(q);
      if (q + threads <= count)
        body(flat);
      else
        em.ifThen(flat < Idx(count), [&] { body(flat); });
    }
  }

  /// Starts copying slice `slice` of A and B into stage `stage`.
  void copySlice(Idx slice, Idx stage) const {
    Emitter &em = thread.getEmitter();
    Idx k0 = slice * Idx(step), lastDepth(problem.depth - 1);
    auto pastDepth = [&](Idx k) {
      return zeroPastDepth ? std::optional<Cond>(k < Idx(problem.depth))
                           : std::nullopt;
    };
    if (rowMajorA) {
      const int64_t groups = step / kGroup;
      forEachShare(blockRows * groups, [&](Idx flat) {
        Idx row = flat / Idx(groups), kk = flat % Idx(groups) * Idx(kGroup);
        Idx k = k0 + kk;
        em.copyAsync(problem.a.memref,
                     problem.a.at(batch, clampRow(row),
                                  min(k, Idx(problem.depth - kGroup))),
                     stagedA, {stage, row, kk}, kGroup, pastDepth(k));
      });
    } else {
      forEachShare(blockRows * step, [&](Idx flat) {
        Idx k = k0 + flat % Idx(step);
        em.copyAsync(
            problem.a.memref,
            problem.a.at(batch, clampRow(flat / Idx(step)), min(k, lastDepth)),
            stagedA, {stage, flat % Idx(step), flat / Idx(step)},
            /*width=*/1, pastDepth(k));
      });
    }
    const int64_t width = wideB ? kGroup : 1;
    const int64_t groups = blockColumns * bWords / width;
    // Word `word` of the block's columns in B: a column past the end reads
    // the last column's words.
    auto wordOfB = [&](Idx word) {
      if (wideB)
        return columnBase * Idx(bWords) + word;
      if (bWords == 1)
        return clampColumn(word);
      return clampColumn(word / Idx(bWords)) * Idx(bWords) + word % Idx(bWords);
    };
    forEachShare(step * groups, [&](Idx flat) {
      Idx kk = flat / Idx(groups), word = flat % Idx(groups) * Idx(width);
      em.copyAsync(
          problem.b.memref,
          problem.b.at(batch, min(k0 + kk, Idx(bDepth - 1)), wordOfB(word)),
          stagedB, {stage, kk, word}, width);
    });
  }
};

/// The sums of every slice, `block.stages` slices in workgroup memory at
/// once: the first stages - 1 copies started, then for each slice: wait for its
/// copies, one barrier (its stage is complete for every thread, and every
/// thread is past the slice before, whose stage the next copies reuse),
/// start the copies of the slice stages - 1 ahead, and `add(sums, stage,
/// depths)` the first `depths` rows of this slice's stage while they fly.
/// The full slices run in a loop, the partial last after it.
SmallVector<Num> sumSlices(
    const GemmBlock &block, ArrayRef<Num> init,
    llvm::function_ref<SmallVector<Num>(ArrayRef<Num>, Idx, int64_t)> add) {
  Emitter &em = block.thread.getEmitter();
  const int64_t fullSteps = block.problem.depth / block.step,
                lastStep = block.problem.depth % block.step;
  const int64_t slices = fullSteps + (lastStep > 0 ? 1 : 0);
  const int64_t stages = block.stages, ahead = stages - 1;
  // Every thread commits one group per slice (empty past the last), so
  // that waiting for all but the newest `ahead - 1` groups is waiting for
  // the slice at hand.
  for (int64_t s = 0; s < ahead; ++s) {
    if (s < slices)
      block.copySlice(Idx(s), Idx(s));
    em.commitAsyncCopies();
  }
  // The partial last slice has no slice `ahead` after it to copy.
  auto addSlice = [&](Idx s, ArrayRef<Num> sums, int64_t depths) {
    em.waitAsyncCopies(ahead - 1);
    em.barrier();
    if (depths == block.step) {
      Idx next = s + Idx(ahead);
      em.ifThen(next < Idx(slices),
                [&] { block.copySlice(next, next % Idx(stages)); });
    }
    em.commitAsyncCopies();
    return add(sums, s % Idx(stages), depths);
  };
  SmallVector<Num> sums = em.foldRangeStep(
      Idx(0), Idx(fullSteps), Idx(1), init, [&](Idx s, ArrayRef<Num> current) {
        return addSlice(s, current, block.step);
      });
  if (lastStep > 0)
    sums = addSlice(Idx(fullSteps), sums, lastStep);
  return sums;
}

/// Launches `name` over the blocks of `problem`'s output, blockRows x
/// blockColumns each (batches on the grid's third axis), `threads` each,
/// with `stages` slices staged at once, their rows padded by `padA` and
/// `padB`: body(block).
/// B has `bWords` words a column (its last axis indexes words) and `bDepth`
/// rows.
void launchGemm(Emitter &em, StringRef name, const GemmProblem &problem,
                int64_t blockRows, int64_t blockColumns, int64_t step,
                int64_t stages, int64_t threads, bool zeroPastDepth,
                int64_t padA, int64_t padB, int64_t bWords, int64_t bDepth,
                int64_t blocksPerSm,
                llvm::function_ref<void(const GemmBlock &)> body) {
  const int64_t columnBlocks = llvm::divideCeil(problem.columns, blockColumns);
  Idx lastColumn(problem.columns - 1);
  // Groups of A's depth and B's columns copied whole where every group lies
  // inside the operand: depths and columns in whole groups, no column block
  // past the end.
  const bool rowMajorA = problem.a.group % kGroup == 0 &&
                         problem.depth % kGroup == 0 && step % kGroup == 0;
  const bool wideB = problem.b.group % kGroup == 0 &&
                     problem.columns % blockColumns == 0 &&
                     blockColumns * bWords % kGroup == 0;
  SmallVector<int64_t> shapeA =
      rowMajorA ? SmallVector<int64_t>{stages, blockRows, step + kRowMajorPad}
                : SmallVector<int64_t>{stages, step, blockRows + padA};
  em.launchKernel(
      name,
      {ceilDiv(problem.rows, blockRows), Idx(columnBlocks),
       Idx(problem.batches)},
      {Idx(threads), Idx(1), Idx(1)},
      {shapeA,
       SmallVector<int64_t>{stages, step, blockColumns * bWords + padB}},
      [&](const LaunchIds &ids) {
        Idx t = ids.thread[0], batch = ids.block[2];
        Idx rowBase = ids.block[0] * Idx(blockRows);
        Idx columnBase = ids.block[1] * Idx(blockColumns);
        auto run = [&](Idx rows) {
          body(GemmBlock{problem, blockRows, blockColumns, step, stages,
                         threads, bWords, bDepth, zeroPastDepth, rowMajorA,
                         wideB, t, batch, rowBase, columnBase, ids.workgroup[0],
                         ids.workgroup[1], rows - Idx(1), lastColumn});
        };
        if (!problem.batchRows)
          return run(problem.rows);
        // A block past its batch's rows has nothing to do (the whole
        // block: no barrier is skipped by some threads only).
        Idx rows = problem.batchRows(batch);
        em.ifThen(rowBase < rows, [&] { run(rows); });
      },
      blocksPerSm);
}

void emitFmaGemm(Emitter &em, StringRef name, const GemmProblem &problem,
                 const GemmTiles &tiles, int64_t blocksPerSm) {
  const int64_t across = tiles.threadsAcross(), down = tiles.threadsDown();
  const int64_t threads = tiles.threads(), step = tiles.depthStep;
  const int64_t rowWidth = vectorWidth(tiles.threadRows);
  const int64_t columnWidth = vectorWidth(tiles.threadColumns);
  assert(tiles.blockRows % kStagedRowPad == 0 && "aligned staged rows");
  launchGemm(
      em, name, problem, tiles.blockRows, tiles.blockColumns, step,
      kPipelineStages, threads, /*zeroPastDepth=*/false, kStagedRowPad,
      /*padB=*/0, /*bWords=*/1,
      /*bDepth=*/problem.depth, blocksPerSm, [&](const GemmBlock &block) {
        Idx t = block.thread;
        SmallVector<Idx> rows =
            ownedOffsets(t / Idx(across), tiles.threadRows, rowWidth, down);
        SmallVector<Idx> columns = ownedOffsets(
            t % Idx(across), tiles.threadColumns, columnWidth, across);

        // The first `depths` rows of stage `stage` added into `sums`: A's
        // values of a row for a group of depths at a time where it is
        // staged row by row, of a depth for a group of rows otherwise.
        auto addSlice = [&](ArrayRef<Num> sums, Idx stage, int64_t depths) {
          SmallVector<Num> next(sums);
          SmallVector<SmallVector<Num>> rowGroups;
          for (int64_t kk = 0; kk < depths; ++kk) {
            SmallVector<Num> a, b;
            if (!block.rowMajorA) {
              for (int64_t i = 0; i < tiles.threadRows; i += rowWidth)
                llvm::append_range(a, em.loadVector(block.stagedA,
                                                    {stage, Idx(kk), rows[i]},
                                                    rowWidth));
            } else {
              if (kk % kGroup == 0) {
                rowGroups.clear();
                for (int64_t i = 0; i < tiles.threadRows; ++i)
                  rowGroups.push_back(em.loadVector(
                      block.stagedA, {stage, rows[i], Idx(kk)}, kGroup));
              }
              for (int64_t i = 0; i < tiles.threadRows; ++i)
                a.push_back(rowGroups[i][kk % kGroup]);
            }
            for (int64_t j = 0; j < tiles.threadColumns; j += columnWidth)
              llvm::append_range(b, em.loadVector(block.stagedB,
                                                  {stage, Idx(kk), columns[j]},
                                                  columnWidth));
            for (int64_t i = 0; i < tiles.threadRows; ++i)
              for (int64_t j = 0; j < tiles.threadColumns; ++j) {
                Num &sum = next[i * tiles.threadColumns + j];
                sum = sum + a[i] * b[j];
              }
          }
          return next;
        };

        SmallVector<Num> init;
        for (int64_t i = 0; i < tiles.threadRows; ++i)
          for (int64_t j = 0; j < tiles.threadColumns; ++j)
            init.push_back(problem.loadInit
                               ? problem.loadInit(block.batch,
                                                  block.clampRow(rows[i]),
                                                  block.clampColumn(columns[j]))
                               : Num(0.0));
        SmallVector<Num> sums = sumSlices(block, init, addSlice);
        for (int64_t i = 0; i < tiles.threadRows; ++i) {
          Idx row = block.clampRow(rows[i]);
          for (int64_t j = 0; j < tiles.threadColumns; ++j)
            block.storeOutput(row, columns[j],
                              sums[i * tiles.threadColumns + j]);
        }
      });
}

/// The shape of one tensor-core product (mma.sync m16n8k8).
constexpr int64_t kMmaRows = 16, kMmaColumns = 8, kMmaDepth = 8;
/// Pads each staged depth row of A (transposed) by 8 words, so that a
/// warp's fragment loads (lane 4g + t reads row g of depth t, as the
/// m16n8k8 layout places them: word 8t + g modulo 32 with rows of 128 + 8)
/// fall in 32 different banks.
constexpr int64_t kMmaRowPad = 8;
/// The slices of the depth in workgroup memory at once: one being added,
/// the next being copied, as in the CUDA-core schedule.
constexpr int64_t kMmaPipelineStages = 2;
/// Pads each staged row of B's pairs by 8 words: a half-warp's 16 pairs
/// (column g < 4 or >= 4, row t) then lie at words 8t + 2g modulo 32 with
/// rows of 2 x columns + 8, 32 different banks.
constexpr int64_t kMmaPairPad = 8;

/// The split-precision GEMM, B given as pairs of TF32 parts (splitWeights),
/// each a lane's operand of one product: B's last axis indexes words. A's
/// slices are staged as by the CUDA-core schedule, B's pairs as they are;
/// each warp keeps its warpRows x warpColumns outputs as m16n8k8
/// fragments, splits A into its TF32 parts as it leaves workgroup memory,
/// and adds each k-step as three products per fragment pair, the small ones
/// first (low x high, high x low, then high x high), into sums that start
/// from zero each slice; the slice's sums are then added to the running
/// sums in IEEE fp32. The tensor cores thus sum at most a slice's depth of
/// products at a time, and the long sum over the depth is rounded as IEEE
/// fp32, in blocks of the slice.
void emitMmaGemm(Emitter &em, StringRef name, const GemmProblem &problem,
                 const MmaTiles &tiles, int64_t blocksPerSm) {
  const int64_t threads = tiles.threads(), step = tiles.depthStep;
  const int64_t rowTiles = tiles.warpRows / kMmaRows,
                columnTiles = tiles.warpColumns / kMmaColumns;
  const int64_t fragments = rowTiles * columnTiles * 4;
  assert(tiles.warpRows % kMmaRows == 0 &&
         tiles.warpColumns % kMmaColumns == 0 && step % kMmaDepth == 0 &&
         "tensor-core tiles");
  launchGemm(
      em, name, problem, tiles.blockRows, tiles.blockColumns, step,
      kMmaPipelineStages, threads,
      /*zeroPastDepth=*/problem.depth % kMmaDepth != 0, kMmaRowPad, kMmaPairPad,
      /*bWords=*/2, llvm::alignTo(problem.depth, kMmaDepth), blocksPerSm,
      [&](const GemmBlock &block) {
        Value stagedA = block.stagedA, stagedB = block.stagedB;
        Idx lane = block.thread % Idx(kWarpSize),
            warp = block.thread / Idx(kWarpSize);
        Idx group = lane / Idx(4), inGroup = lane % Idx(4);
        Idx warpRow = warp / Idx(tiles.warpsAcross()) * Idx(tiles.warpRows);
        Idx warpColumn =
            warp % Idx(tiles.warpsAcross()) * Idx(tiles.warpColumns);

        // The tile row and column of fragment element r of product (i, j).
        auto rowOf = [&](int64_t i, int64_t r) {
          return warpRow + Idx(i * kMmaRows + (r / 2) * 8) + group;
        };
        auto columnOf = [&](int64_t j, int64_t r) {
          return warpColumn + Idx(j * kMmaColumns + r % 2) + inGroup * Idx(2);
        };
        auto fragment = [&](int64_t i, int64_t j, int64_t r) {
          return (i * columnTiles + j) * 4 + r;
        };
        auto addSlice = [&](ArrayRef<Num> sums, Idx stage, int64_t depths) {
          // The (high, low) parts of a staged value of A.
          auto partsOfA = [&](Idx k, Idx row) {
            return em.splitTF32(em.load(stagedA, block.placeA(stage, k, row)));
          };
          SmallVector<Num> next(sums), slice(fragments, Num(0.0));
          for (int64_t k0 = 0; k0 < depths; k0 += kMmaDepth) {
            // The slice's last k-step adds each fragment's products to its
            // running sums as soon as they are done.
            const bool lastStep = k0 + kMmaDepth >= depths;
            Idx kLow = Idx(k0) + inGroup, kHigh = Idx(k0 + 4) + inGroup;
            SmallVector<SmallVector<Num>> aHigh, aLow;
            for (int64_t i = 0; i < rowTiles; ++i) {
              Idx row = warpRow + Idx(i * kMmaRows) + group;
              SmallVector<Num> high, low;
              for (auto [k, place] :
                   {std::pair{kLow, row}, std::pair{kLow, row + Idx(8)},
                    std::pair{kHigh, row}, std::pair{kHigh, row + Idx(8)}}) {
                std::array<Num, 2> pair = partsOfA(k, place);
                high.push_back(pair[0]);
                low.push_back(pair[1]);
              }
              aHigh.push_back(high);
              aLow.push_back(low);
            }
            // B's pairs (splitWeights): the high parts of depths t and
            // t + 4 in row t of the k-step, their low parts in row 4 + t.
            for (int64_t j = 0; j < columnTiles; ++j) {
              Idx word = (warpColumn + Idx(j * kMmaColumns) + group) * Idx(2);
              SmallVector<Num> bHigh =
                  em.loadVector(stagedB, {stage, kLow, word}, 2);
              SmallVector<Num> bLow =
                  em.loadVector(stagedB, {stage, kHigh, word}, 2);
              for (int64_t i = 0; i < rowTiles; ++i) {
                SmallVector<Num> c;
                for (int64_t r = 0; r < 4; ++r)
                  c.push_back(slice[fragment(i, j, r)]);
                c = em.mmaTF32(aLow[i], bHigh, c);
                c = em.mmaTF32(aHigh[i], bLow, c);
                c = em.mmaTF32(aHigh[i], bHigh, c);
                for (int64_t r = 0; r < 4; ++r) {
                  int64_t f = fragment(i, j, r);
                  if (lastStep)
                    next[f] = sums[f] + c[r];
                  else
                    slice[f] = c[r];
                }
              }
            }
          }
          return next;
        };

        SmallVector<Num> init(fragments, Num(0.0));
        if (problem.loadInit)
          for (int64_t i = 0; i < rowTiles; ++i)
            for (int64_t j = 0; j < columnTiles; ++j)
              for (int64_t r = 0; r < 4; ++r)
                init[fragment(i, j, r)] =
                    problem.loadInit(block.batch, block.clampRow(rowOf(i, r)),
                                     block.clampColumn(columnOf(j, r)));
        SmallVector<Num> sums = sumSlices(block, init, addSlice);
        for (int64_t i = 0; i < rowTiles; ++i)
          for (int64_t j = 0; j < columnTiles; ++j)
            for (int64_t r = 0; r < 4; ++r)
              block.storeOutput(block.clampRow(rowOf(i, r)), columnOf(j, r),
                                sums[fragment(i, j, r)]);
      });
}

/// Threads per block of the kernel that splits B.
constexpr int64_t kSplitThreads = 256;

/// B of `problem` split into its TF32 parts by the kernel `name`, each
/// lane's operand of one m16n8k8 product as a pair of words: of k-step
/// [k0, k0 + 8), row k0 + t holds the high parts of depths (k0 + t,
/// k0 + t + 4) of column n at words 2n and 2n + 1, row k0 + 4 + t their low
/// parts; depths past the end are zero. B is a weight (the same for every
/// row), so each value is split once a call instead of once a warp that
/// reads it, and a lane reads each operand as one access.
Value splitWeights(KernelIO &io, StringRef name, const GemmProblem &problem) {
  Emitter &em = io.emitter();
  const int64_t batches = problem.batches, columns = problem.columns;
  const int64_t rows = llvm::alignTo(problem.depth, kMmaDepth);
  Value pairs = io.scratch({batches, rows, 2 * columns},
                           {Idx(batches), Idx(rows), Idx(2 * columns)});
  const int64_t count = batches * rows * columns;
  em.launchKernel(
      name, {Idx(llvm::divideCeil(count, kSplitThreads)), Idx(1), Idx(1)},
      {Idx(kSplitThreads), Idx(1), Idx(1)}, {}, [&](const LaunchIds &ids) {
        Idx flat = ids.block[0] * Idx(kSplitThreads) + ids.thread[0];
        em.ifThen(flat < Idx(count), [&] {
          Idx batch = flat / Idx(rows * columns);
          Idx row = flat / Idx(columns) % Idx(rows);
          Idx n = flat % Idx(columns);
          Idx inStep = row % Idx(kMmaDepth), t = inStep % Idx(4);
          Cond low = Idx(3) < inStep;
          for (int64_t half = 0; half < 2; ++half) {
            Idx k = row - inStep + t + Idx(4 * half);
            Num value =
                em.load(problem.b.memref,
                        problem.b.at(batch, min(k, Idx(problem.depth - 1)), n));
            std::array<Num, 2> parts = em.splitTF32(value);
            Num part = select(low, parts[1], parts[0]);
            em.store(select(k < Idx(problem.depth), part, Num(0.0)), pairs,
                     {batch, row, Idx(2) * n + Idx(half)});
          }
        });
      });
  return pairs;
}

} // namespace

int64_t alignedGroup(Value memref, int64_t run) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || !type.getElementType().isF32() || run % kGroup != 0)
    return 1;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1 || ShapedType::isDynamic(offset) ||
      offset % kGroup != 0)
    return 1;
  for (int64_t stride : ArrayRef(strides).drop_back())
    if (ShapedType::isDynamic(stride) || stride % kGroup != 0)
      return 1;
  return kGroup;
}

MmaTiles chooseMmaTiles(const GemmTiles &tiles) {
  // Eight warps, four down and two across, each 32 x (columns / 2) outputs.
  // Slices of 8 depths: B's (high, low) pairs double its staged words, and
  // two stages of 16 would pass 48 KB; one k-step a slice also keeps only
  // one fragment's slice sums live at a time, so that two blocks fit a
  // multiprocessor's registers.
  return MmaTiles{128, tiles.blockColumns, 8, 32, tiles.blockColumns / 2};
}

void emitTiledGemm(KernelIO &io, StringRef name, const GemmProblem &problem,
                   KernelConfigAttr config, unsigned product) {
  Emitter &em = io.emitter();
  ArrayRef<int64_t> block = config.getProductWorkgroupTile(product);
  ArrayRef<int64_t> inner = config.getProductInnerTile(product);
  assert(block.size() == 3 && inner.size() == 2 &&
         "a product's workgroup tile and thread or warp tile");
  const bool split =
      config.getProductPrecision(product) == GemmPrecision::TF32x3;
  if (split) {
    Value pairs = splitWeights(io, (name + "_split").str(), problem);
    auto placePair = [&](Idx batch, Idx k, Idx word) -> SmallVector<Idx> {
      return {batch, k, word};
    };
    GemmProblem splitProblem = problem;
    splitProblem.b = {pairs, placePair,
                      alignedGroup(pairs, 2 * problem.columns)};
    emitMmaGemm(em, name, splitProblem,
                MmaTiles{block[0], block[1], block[2], inner[0], inner[1]},
                config.getBlocksPerSm());
    return;
  }
  emitFmaGemm(em, name, problem,
              GemmTiles{block[0], block[1], block[2], inner[0], inner[1]},
              config.getBlocksPerSm());
}

} // namespace mlir::sezm::microkernels
