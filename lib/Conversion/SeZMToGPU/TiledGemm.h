//===- TiledGemm.h - the register-tiled GEMM schedule -----------*- C++ -*-===//
//
// One schedule for every dense product over rows (edges or atoms): the
// per-edge and per-node matmuls, and the m-blocked products of
// sezm.so2_linear and of its input gradient. The ops read their operands
// through loaders, so that a product over a strided view (one focus
// stream's m = 0 rows, say) needs no copy.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_LIB_CONVERSION_SEZMTOGPU_TILEDGEMM_H
#define SEZM_LIB_CONVERSION_SEZMTOGPU_TILEDGEMM_H

#include "KernelBuilder/KernelBuilder.h"
#include "SeZM/Dialect/SeZM/SeZMAttrs.h"

namespace mlir::sezm {
class KernelIO;
} // namespace mlir::sezm

namespace mlir::sezm::microkernels {
using namespace ::mlir::sezm::kernel;

/// The tiles of a GEMM kernel: a block computes blockRows x blockColumns
/// outputs, staging depthStep of the depth at a time in workgroup memory;
/// each thread keeps threadRows x threadColumns sums in registers.
struct GemmTiles {
  int64_t blockRows, blockColumns, depthStep, threadRows, threadColumns;
  /// The blocks per multiprocessor the tiles are for; 0: the microkernel's.
  int64_t blocksPerSm = 0;
  /// Whether the split-precision schedule may take the product: one over
  /// many rows for which splitPrecisionPays (chooseGemmTiles(depth,
  /// columns)); the few-rows and streaming tiles never take it.
  bool tensorCoresPay = false;

  int64_t threadsAcross() const { return blockColumns / threadColumns; }
  int64_t threadsDown() const { return blockRows / threadRows; }
  int64_t threads() const { return threadsAcross() * threadsDown(); }
};

/// The tiles for a product with that many columns (and many rows).
GemmTiles chooseGemmTiles(int64_t columns);

/// chooseGemmTiles' tiles for a product over many rows of that depth and
/// those columns, which the split-precision schedule takes where
/// splitPrecisionPays.
GemmTiles chooseGemmTiles(int64_t depth, int64_t columns);

/// The tiles for a product with that many columns over few rows (one per
/// atom, thousands): chooseGemmTiles' columns on 64-row blocks, so that the
/// launch has blocks for every multiprocessor.
GemmTiles chooseGemmTilesForFewRows(int64_t columns);

/// Whether memory bounds a product over the edges of that depth and those
/// columns: under 16 FLOP a byte of a row read and written (2 K N over
/// 4 (K + N)), where an H100 does 20 at its FP32 and DRAM peaks.
bool gemmStreams(int64_t depth, int64_t columns);

/// Whether the split-precision (tensor-core) schedule is faster than the
/// CUDA cores for a product over many rows of that depth and those columns:
/// from 48 FLOP a byte of a row read and written (2 K N over 4 (K + N)),
/// three times gemmStreams' line. DPA4-Mini's 96 x 96 and 128 x 128 and the
/// default DPA4's 192 x 64 products ran slower on it, 256 x 256 and
/// 384 x 384 faster (docs/performance.md, stops 64 and 66).
bool splitPrecisionPays(int64_t depth, int64_t columns);

/// The tiles for such a product: chooseGemmTiles' columns on half its rows
/// of sums per thread, so that the registers leave room for more blocks
/// per multiprocessor, and so more loads in flight.
GemmTiles chooseGemmTilesForStreaming(int64_t columns);

/// The tiles of each product shape a GEMM microkernel launches, in launch
/// order: an SO(2) linear's m = 0 and m = +-1 products have different
/// widths, and tiles that divide both (their common divisor) would read
/// each row of A once per narrow column block.
using ProductTiles = SmallVector<GemmTiles, 2>;

/// `tiles` with its depth step halved until a block's staged slices of
/// operands of `elementBytes` a word fit the static workgroup memory a
/// kernel may have (48 KB): fp64 products stage 8 depths where fp32 ones
/// stage 16.
GemmTiles fitWorkgroupMemory(GemmTiles tiles, int64_t elementBytes);

/// Whether the schedule takes products with that many columns: from half a
/// block's threads across (on one 16-column block). Narrower ones (logits,
/// a few axes) waste most of a block and take a warp or a thread per row.
bool gemmTakesColumns(int64_t columns);

/// The tiles of the split-precision (tensor-core) GEMM: a block computes
/// blockRows x blockColumns outputs, staging depthStep of the depth at a
/// time in workgroup memory, and each warp a warpRows x warpColumns part of
/// them as m16n8k8 products.
struct MmaTiles {
  int64_t blockRows, blockColumns, depthStep, warpRows, warpColumns;

  int64_t warpsAcross() const { return blockColumns / warpColumns; }
  int64_t warpsDown() const { return blockRows / warpRows; }
  int64_t threads() const { return warpsAcross() * warpsDown() * 32; }
};

/// The tensor-core tiles for a product the CUDA-core schedule would tile as
/// `tiles` (the same block of outputs).
MmaTiles chooseMmaTiles(const GemmTiles &tiles);

/// The blocks per multiprocessor the tensor-core GEMM is tuned for: a
/// warp's running sums and A's parts fit 128 registers a thread.
constexpr int64_t kMmaBlocksPerSm = 2;

/// An operand of a product, read in place: element (batch, i, j) of it is
/// memref[at(batch, i, j)]. The schedule copies operands into workgroup
/// memory asynchronously, so it takes places, not values.
struct GemmOperand {
  Value memref;
  llvm::function_ref<SmallVector<Idx>(Idx batch, Idx i, Idx j)> at;
  /// Elements along the operand's last axis (A's depth, B's columns) lie in
  /// groups of this many consecutive words, each group 16-byte aligned (see
  /// alignedGroup): with 4, the staging copies a group as one access. 1
  /// claims nothing.
  int64_t group = 1;
};

/// The group a GemmOperand may claim for `memref` when its last axis is read
/// in runs of `run` consecutive elements from multiples of `run`: 4 where
/// the layout keeps every such run 16-byte aligned (unit inner stride, the
/// other strides and the offset multiples of 4, `run` too), else 1.
int64_t alignedGroup(Value memref, int64_t run);

/// Batches of products C[b] = init[b] + A[b] B[b], b < batches, each A
/// (rows x depth) and B (depth x columns), read from the places below
/// (rows < `rows`, k < depth, column < columns). Each output is summed over
/// k in order, from its init value.
struct GemmProblem {
  Idx rows;
  int64_t batches, depth, columns;
  GemmOperand a, b;
  /// The value a sum starts from; zero where null.
  llvm::function_ref<Num(Idx batch, Idx row, Idx column)> loadInit;
  llvm::function_ref<void(Idx batch, Idx row, Idx column, Num value)> store;
  /// The rows of each batch where they differ (`rows` is then the most);
  /// every batch has `rows` where null.
  llvm::function_ref<Idx(Idx batch)> batchRows = nullptr;
};

/// Each stream's B of a product, (F, depth, columns) row-major, written once
/// per call by the kernel `name` from weight(f, k, n): the GEMM then reads
/// B slices as consecutive words, where transposed or structured weights
/// would cost a scattered load (or more) per element.
Value assembleWeights(KernelIO &io, StringRef name, int64_t focus,
                      int64_t depth, int64_t columns,
                      llvm::function_ref<Num(Idx, Idx, Idx)> weight);

/// Launches the kernel `name` that computes `problem` with the tiles that
/// `config` records for its `product`-th product shape: on the CUDA cores
/// with its thread tiles, or, with `precision = tf32x3`, in split precision
/// on the tensor cores with its warp tiles, after a kernel `name`_split
/// that splits B into its TF32 parts.
void emitTiledGemm(KernelIO &io, StringRef name, const GemmProblem &problem,
                   KernelConfigAttr config, unsigned product);

} // namespace mlir::sezm::microkernels

#endif // SEZM_LIB_CONVERSION_SEZMTOGPU_TILEDGEMM_H
