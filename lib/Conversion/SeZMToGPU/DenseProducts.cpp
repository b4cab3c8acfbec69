//===- DenseProducts.cpp - matmuls and SO(2) linears as tiled GEMMs -------===//
//
// The ops whose work is dense products over rows, on the GEMM schedule of
// TiledGemm.cpp: linalg.matmul over per-edge or per-node rows, the
// m-blocked products of sezm.so2_linear and of its input gradient, per
// focus stream (the batch of the launch), read in place from the
// (E, 3*lmax+1, C) tensor, and sezm.degree_linear, one product per degree.
//
//===----------------------------------------------------------------------===//

#include "Microkernels.h"
#include "TiledGemm.h"
#include "WarpSchedules.h"

#include "KernelBuilder/KernelIO.h"
#include "SeZM/Dialect/SeZM/FillValue.h"
#include "SeZM/Dialect/SeZM/RowExtent.h"
#include "SeZM/Dialect/SeZM/SO2Layout.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::sezm;

namespace mlir::sezm::microkernels {

//===----------------------------------------------------------------------===//
// linalg.matmul
//===----------------------------------------------------------------------===//

namespace {
/// The depth and columns of `op` where it multiplies rows (a dynamic or
/// static count) of a static depth by a static float matrix: the matmuls
/// that the three row kernels below divide by width and depth.
std::optional<std::pair<int64_t, int64_t>>
rowsProductShape(linalg::MatmulOp op) {
  if (op.hasUserDefinedMaps() || !op.hasPureTensorSemantics())
    return std::nullopt;
  auto lhs = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
  auto rhs = dyn_cast<RankedTensorType>(op.getInputs()[1].getType());
  auto out = dyn_cast<RankedTensorType>(op.getOutputs()[0].getType());
  if (!lhs || !rhs || !out || lhs.isDynamicDim(1) || !rhs.hasStaticShape() ||
      out.isDynamicDim(1) || !isa<FloatType>(out.getElementType()))
    return std::nullopt;
  return std::pair{rhs.getDimSize(0), rhs.getDimSize(1)};
}
} // namespace

/// Whether `op` multiplies rows by a static matrix of at least
/// gemmTakesColumns columns.
bool isRowsMatmul(linalg::MatmulOp op) {
  auto shape = rowsProductShape(op);
  return shape && gemmTakesColumns(shape->second);
}

/// Products over fewer rows than this many times the atoms take the
/// few-rows tiles: at 4096 atoms, 256-row blocks of 8 N rows would be 128
/// blocks of one column block, under one per multiprocessor.
constexpr int64_t kFewRowsPerAtom = 8;

ProductTiles rowsMatmulTiles(linalg::MatmulOp op) {
  auto rhs = cast<RankedTensorType>(op.getInputs()[1].getType());
  std::optional<RowExtent> rows = traceRowExtent(op.getOutputs()[0]);
  if (rows && rows->graphSize == "N" && rows->factor < kFewRowsPerAtom)
    return {chooseGemmTilesForFewRows(rhs.getDimSize(1))};
  if (rows && rows->graphSize == "E" &&
      gemmStreams(rhs.getDimSize(0), rhs.getDimSize(1)))
    return {chooseGemmTilesForStreaming(rhs.getDimSize(1))};
  return {chooseGemmTiles(rhs.getDimSize(0), rhs.getDimSize(1))};
}

SmallVector<Idx> indicesOf(AffineMap map, ArrayRef<Idx> loops) {
  SmallVector<Idx> indices;
  for (AffineExpr result : map.getResults())
    indices.push_back(loops[cast<AffineDimExpr>(result).getPosition()]);
  return indices;
}

bool isScalarPayload(linalg::GenericOp op) {
  Block &body = op.getRegion().front();
  for (Operation &inner : body) {
    if (inner.getNumRegions() != 0 ||
        (!isa<linalg::YieldOp>(inner) &&
         (!isMemoryEffectFree(&inner) ||
          !isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()))))
      return false;
    for (Value value : inner.getOperands())
      if (value.getParentBlock() != &body &&
          !value.getDefiningOp<arith::ConstantOp>())
        return false;
  }
  return true;
}

void mapPayloadInputs(linalg::GenericOp op, KernelIO &io, ArrayRef<Idx> loops,
                      std::pair<Value, Num> given, IRMapping &payload) {
  Emitter &em = io.emitter();
  Block &body = op.getRegion().front();
  for (auto [arg, input] :
       llvm::zip(body.getArguments(), op.getDpsInputOperands())) {
    if (given.first && input->get() == given.first) {
      payload.map(arg, given.second.in(em));
      continue;
    }
    // A scalar (a constant the elementwise conversion made an input).
    if (!isa<ShapedType>(input->get().getType())) {
      payload.map(arg, input->get());
      continue;
    }
    payload.map(arg, em.load(io.in(input->get()),
                             indicesOf(op.getMatchingIndexingMap(input), loops))
                         .in(em));
  }
}

SmallVector<Num> emitPayloadAt(linalg::GenericOp op, KernelIO &io,
                               ArrayRef<Idx> loops,
                               std::pair<Value, Num> given) {
  Emitter &em = io.emitter();
  Block &body = op.getRegion().front();
  IRMapping payload;
  mapPayloadInputs(op, io, loops, given, payload);
  for (Operation &inner : body.without_terminator())
    em.builder.clone(inner, payload);
  SmallVector<Num> results;
  for (Value result : body.getTerminator()->getOperands())
    results.push_back(em.num(payload.lookupOrDefault(result)));
  return results;
}

namespace {

/// Launches `op`'s product of rows by a static matrix from its init (a
/// constant fill folded in), handing each output to `store`.
void emitRowsProduct(linalg::MatmulOp op, KernelIO &io, KernelConfigAttr config,
                     llvm::function_ref<void(Idx, Idx, Num)> store) {
  Emitter &em = io.emitter();
  auto rhsType = cast<RankedTensorType>(op.getInputs()[1].getType());
  Value lhs = io.in(op.getInputs()[0]), rhs = io.in(op.getInputs()[1]);
  std::optional<double> filled = getConstantFillValue(op.getOutputs()[0]);
  Value init = filled ? Value() : io.in(op.getOutputs()[0]);
  auto placeA = [&](Idx, Idx row, Idx k) -> SmallVector<Idx> {
    return {row, k};
  };
  auto placeB = [&](Idx, Idx k, Idx column) -> SmallVector<Idx> {
    return {k, column};
  };
  auto loadInit = [&](Idx, Idx row, Idx column) {
    return filled ? Num(*filled) : em.load(init, {row, column});
  };
  auto storeOut = [&](Idx, Idx row, Idx column, Num value) {
    store(row, column, value);
  };
  GemmOperand a{lhs, placeA, alignedGroup(lhs, rhsType.getDimSize(0))},
      b{rhs, placeB, alignedGroup(rhs, rhsType.getDimSize(1))};
  GemmProblem problem{em.dim(lhs, 0),
                      /*batches=*/1,
                      rhsType.getDimSize(0),
                      rhsType.getDimSize(1),
                      a,
                      b,
                      loadInit,
                      storeOut};
  emitTiledGemm(io, config.getKernel().getValue(), problem, config,
                /*product=*/0);
}
} // namespace

void emitRowsMatmul(linalg::MatmulOp op, KernelIO &io,
                    KernelConfigAttr config) {
  Emitter &em = io.emitter();
  auto rhsType = cast<RankedTensorType>(op.getInputs()[1].getType());
  Value out = io.allocate(
      0, {em.dim(io.in(op.getInputs()[0]), 0), Idx(rhsType.getDimSize(1))});
  emitRowsProduct(op, io, config, [&](Idx row, Idx column, Num value) {
    em.store(value, out, {row, column});
  });
}

//===----------------------------------------------------------------------===//
// A tiled matmul's elementwise consumer as its epilogue
//===----------------------------------------------------------------------===//

linalg::MatmulOp epilogueProducer(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumLoops() != 2 ||
      op.getNumParallelLoops() != 2)
    return {};
  // Each result over the product's rows and columns; scalar arithmetic of
  // the inputs and constants, not of the inits.
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, op.getContext());
  for (OpOperand &init : op.getDpsInitsMutable())
    if (op.getMatchingIndexingMap(&init) != identity ||
        !op.getMatchingBlockArgument(&init).use_empty())
      return {};
  if (!isScalarPayload(op))
    return {};
  linalg::MatmulOp producer;
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!isa<FloatType>(getElementTypeOrSelf(input->get().getType())) ||
        !map.isProjectedPermutation())
      return {};
    // The product, read in place and by nothing else (an init, whose value
    // the payload does not read, may be it), where the strategy room would
    // give it the tiled GEMM.
    auto matmul = input->get().getDefiningOp<linalg::MatmulOp>();
    if (producer || !matmul ||
        llvm::any_of(op.getDpsInputOperands(),
                     [&](OpOperand *other) {
                       return other->get() == input->get() &&
                              op.getMatchingIndexingMap(other) != identity;
                     }) ||
        llvm::any_of(matmul->getUsers(),
                     [&](Operation *user) { return user != op; }))
      continue;
    const Microkernel *chosen = firstMicrokernelFor(matmul);
    if (chosen && chosen->name == "tiled_matmul")
      producer = matmul;
  }
  return producer;
}

bool isMatmulEpilogue(linalg::GenericOp op) {
  return static_cast<bool>(epilogueProducer(op));
}

ProductTiles matmulEpilogueTiles(linalg::GenericOp op) {
  return rowsMatmulTiles(epilogueProducer(op));
}

/// The product's GEMM, each output finished by `op`'s payload, with its
/// other inputs read at the output's place, before the one store: the same
/// arithmetic as the two kernels, without writing and reading the product.
void emitMatmulEpilogue(linalg::GenericOp op, KernelIO &io,
                        KernelConfigAttr config) {
  Emitter &em = io.emitter();
  // The product the strategy room fused (its buffer, which the kernel does
  // not read, is a second use of it now).
  linalg::MatmulOp matmul;
  for (Value input : op.getDpsInputs())
    if (auto producer = input.getDefiningOp<linalg::MatmulOp>();
        producer && isFusedIntoUser(producer))
      matmul = producer;
  Value product = matmul.getResult(0);
  Idx rows = em.dim(io.in(matmul.getInputs()[0]), 0);
  SmallVector<Value> outs;
  for (auto [index, type] : llvm::enumerate(op.getResultTypes()))
    outs.push_back(io.allocate(
        index, {rows, Idx(cast<RankedTensorType>(type).getDimSize(1))}));
  emitRowsProduct(matmul, io, config, [&](Idx row, Idx column, Num value) {
    for (auto [out, result] : llvm::zip_equal(
             outs, emitPayloadAt(op, io, {row, column}, {product, value})))
      em.store(result, out, {row, column});
  });
}

linalg::GenericOp computableOperand(Value operand) {
  auto producer = operand.getDefiningOp<linalg::GenericOp>();
  if (!producer || !producer.hasPureTensorSemantics() ||
      producer->getNumResults() != 1 || !operand.hasOneUse() ||
      producer.getNumParallelLoops() != producer.getNumLoops() ||
      llvm::any_of(
          cast<RankedTensorType>(operand.getType()).getShape().drop_front(),
          ShapedType::isDynamic) ||
      !isScalarPayload(producer))
    return {};
  // A GEMM's epilogue computes it where the GEMM stores its sums (the
  // strategy room fuses the product into it): it is that kernel's.
  if (isMatmulEpilogue(producer))
    return {};
  OpOperand &init = producer.getDpsInitsMutable()[0];
  if (!producer.getMatchingIndexingMap(&init).isIdentity() ||
      !producer.getMatchingBlockArgument(&init).use_empty())
    return {};
  for (OpOperand *input : producer.getDpsInputOperands())
    if (!producer.getMatchingIndexingMap(input).isProjectedPermutation())
      return {};
  return producer;
}

StringRef kernelComputingOperand(OpOperand &use) {
  if (!computableOperand(use.get()))
    return {};
  Operation *user = use.getOwner();
  if (auto reduce = dyn_cast<SegmentReduceOp>(user);
      reduce && use.get() == reduce.getValues())
    return "segment_reduce";
  if (auto product = dyn_cast<linalg::GenericOp>(user);
      product && isMiddleAxisProduct(product) && use.getOperandNumber() == 0)
    return "middle_axis_product";
  return {};
}

Value shapeOf(KernelIO &io, Value operand) {
  Operation *producer = operand.getDefiningOp();
  if (!producer || !isFusedIntoUser(producer))
    return io.in(operand);
  return io.in(cast<linalg::GenericOp>(producer).getDpsInits()[0]);
}

Num loadOrCompute(KernelIO &io, Value operand, ArrayRef<Idx> indices) {
  Operation *producer = operand.getDefiningOp();
  if (!producer || !isFusedIntoUser(producer))
    return io.emitter().load(io.in(operand), indices);
  // The producer's loops are its result's axes (written in place).
  return emitPayloadAt(cast<linalg::GenericOp>(producer), io, indices,
                       {Value(), Num(0.0)})
      .front();
}

/// The operands of a narrow or small matmul (rows by a static matrix of a
/// few columns) and its result, allocated; its init a constant fill's value
/// or read.
struct RowsProduct {
  int64_t depth, columns;
  Value lhs, rhs, init, out;
  std::optional<double> filled;
  Idx rows;

  static RowsProduct of(linalg::MatmulOp op, KernelIO &io) {
    Emitter &em = io.emitter();
    auto rhsType = cast<RankedTensorType>(op.getInputs()[1].getType());
    RowsProduct p{rhsType.getDimSize(0),
                  rhsType.getDimSize(1),
                  io.in(op.getInputs()[0]),
                  io.in(op.getInputs()[1]),
                  Value(),
                  Value(),
                  getConstantFillValue(op.getOutputs()[0]),
                  Idx(0)};
    if (!p.filled)
      p.init = io.in(op.getOutputs()[0]);
    p.rows = em.dim(p.lhs, 0);
    p.out = io.allocate(0, {p.rows, Idx(p.columns)});
    return p;
  }

  /// The value output (row, column) starts from.
  Num initAt(Idx row, Idx column) const {
    return filled ? Num(*filled) : row.getEmitter().load(init, {row, column});
  }
};

/// Whether `op` multiplies rows of a depth of whole warps by a static
/// matrix of fewer columns than the tiled GEMM takes: a logit or a
/// projection onto a few axes per edge.
bool isNarrowMatmul(linalg::MatmulOp op) {
  auto shape = rowsProductShape(op);
  return shape && !gemmTakesColumns(shape->second) &&
         shape->first % kernel::kWarpSize == 0;
}

/// A narrow matmul as one warp per row: lane L reads depths L, L + 32, ...
/// of the row (one coalesced access per 32 depths, where the loop kernel's
/// thread per output read its row alone, 32 rows apart in a warp) and sums
/// its products for every column; the warp's butterfly adds the lanes'
/// sums, the same order on every run, and the init is added last.
void emitNarrowMatmul(linalg::MatmulOp op, KernelIO &io,
                      KernelConfigAttr config) {
  Emitter &em = io.emitter();
  RowsProduct p = RowsProduct::of(op, io);
  em.launchKernel(
      config.getKernel().getValue(),
      {ceilDiv(p.rows, kWarpsPerBlock), Idx(1), Idx(1)},
      {Idx(kernel::kWarpSize), Idx(kWarpsPerBlock), Idx(1)}, {},
      [&](const LaunchIds &ids) {
        Idx row = ids.block[0] * Idx(kWarpsPerBlock) + ids.thread[1];
        Idx lane = ids.thread[0];
        SpreadSlots slots = em.spreadSlots(p.columns, lane);
        // The warp takes a row or skips it whole (its shuffles need every
        // lane).
        em.ifThen(row < p.rows, [&] {
          SmallVector<Num> partial(p.columns, Num(0.0));
          for (int64_t k0 = 0; k0 < p.depth; k0 += kernel::kWarpSize) {
            Idx k = Idx(k0) + lane;
            Num a = em.load(p.lhs, {row, k});
            for (int64_t c = 0; c < p.columns; ++c)
              partial[c] = partial[c] + a * em.load(p.rhs, {k, Idx(c)});
          }
          em.storeWarpSums(partial, lane, slots, [&](Idx c, Num total) {
            em.store(total + p.initAt(row, c), p.out, {row, c});
          });
        });
      });
}

/// Whether `op` multiplies rows by a static matrix too narrow for the tiled
/// GEMM over a depth too shallow, or ragged, for a warp per row.
bool isSmallMatmul(linalg::MatmulOp op) {
  auto shape = rowsProductShape(op);
  return shape && !gemmTakesColumns(shape->second) &&
         shape->first % kernel::kWarpSize != 0;
}

/// A small matmul as one thread per output, summed over k in order from its
/// init, as the loop kernel does, but with a constant fill of the init
/// folded in: its kernel, which wrote every output once more (an (E*64, 10)
/// product's zeros, 1.9 ms at 4096 atoms), goes.
void emitSmallMatmul(linalg::MatmulOp op, KernelIO &io,
                     KernelConfigAttr config) {
  Emitter &em = io.emitter();
  RowsProduct p = RowsProduct::of(op, io);
  Idx outputs = p.rows * Idx(p.columns);
  em.launchKernel(config.getKernel().getValue(),
                  {ceilDiv(outputs, kBlockThreads), Idx(1), Idx(1)},
                  {Idx(kBlockThreads), Idx(1), Idx(1)}, {},
                  [&](const LaunchIds &ids) {
                    Idx i = ids.block[0] * Idx(kBlockThreads) + ids.thread[0];
                    em.ifThen(i < outputs, [&] {
                      Idx row = i / Idx(p.columns), column = i % Idx(p.columns);
                      Num initial = p.initAt(row, column);
                      SmallVector<Num> sum = em.foldRangeStep(
                          Idx(0), Idx(p.depth), Idx(1), {initial},
                          [&](Idx k, ArrayRef<Num> partial) {
                            return SmallVector<Num>{
                                partial[0] + em.load(p.lhs, {row, k}) *
                                                 em.load(p.rhs, {k, column})};
                          });
                      em.store(sum[0], p.out, {row, column});
                    });
                  });
}

/// The most elements of w a middle-axis product unrolls (DPA4's mixings
/// into grid directions are 4 x 10 and 3 x 7).
constexpr int64_t kMaxMiddleAxisWeights = 256;

/// Whether `op` is a product over the middle axis as sezm-fuse-elementwise
/// writes it: out[e, a, b] = init + sum_i x[e, ..] w[..] over loops (e, a,
/// b, i), x 3-D and w a static 2-D matrix read through projections, the
/// body a multiply of the two inputs added to the output.
bool isMiddleAxisProduct(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.getNumLoops() != 4 ||
      op.getNumReductionLoops() != 1 ||
      op.getIteratorTypesArray().back() != utils::IteratorType::reduction)
    return false;
  auto w = dyn_cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  // out[e, a, b]: the loops but the last.
  MLIRContext *context = op.getContext();
  AffineMap outMap = AffineMap::get(4, 0,
                                    {getAffineDimExpr(0, context),
                                     getAffineDimExpr(1, context),
                                     getAffineDimExpr(2, context)},
                                    context);
  if (!w || w.getRank() != 2 || !w.hasStaticShape() ||
      op.getMatchingIndexingMap(op.getDpsInitOperand(0)) != outMap)
    return false;
  for (OpOperand *input : op.getDpsInputOperands())
    if (!op.getMatchingIndexingMap(input).isProjectedPermutation())
      return false;
  // x's rows are out's (its first axis e), w's are the depth i.
  AffineMap xMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap wMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  if (xMap.getNumResults() != 3 ||
      xMap.getResult(0) != getAffineDimExpr(0, context) ||
      !wMap.getResultPosition(getAffineDimExpr(3, context)))
    return false;
  // x reads the depth and one output loop c, w the depth and the other, j:
  // a thread sums every j of its (e, c) from x's depth row, loaded once
  // (and unrolled: w is small).
  bool xReadsA = xMap.isFunctionOfDim(1), xReadsB = xMap.isFunctionOfDim(2);
  unsigned kept = xReadsA ? 1 : 2;
  if (xReadsA == xReadsB || !xMap.isFunctionOfDim(3) ||
      wMap.isFunctionOfDim(0) || wMap.isFunctionOfDim(kept) ||
      w.getNumElements() > kMaxMiddleAxisWeights)
    return false;
  // yield(addf(out, mulf(in0, in1))), the add's operands in either order.
  Block &body = op.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  if (!add || (add.getLhs() != body.getArgument(2) &&
               add.getRhs() != body.getArgument(2)))
    return false;
  Value product =
      add.getLhs() == body.getArgument(2) ? add.getRhs() : add.getLhs();
  auto mul = product.getDefiningOp<arith::MulFOp>();
  return mul && mul.getLhs() == body.getArgument(0) &&
         mul.getRhs() == body.getArgument(1) &&
         body.getOperations().size() == 3;
}

/// A product over the middle axis as one thread per row e and output axis c
/// that x reads, consecutive c across a warp (x's contiguous axis: coalesced
/// reads, and coalesced stores where c is out's last axis); each output
/// summed over i in order from the init, a constant fill of which is folded
/// in (no fill kernel, no read of the init).
void emitMiddleAxisProduct(linalg::GenericOp op, KernelIO &io,
                           KernelConfigAttr config) {
  Emitter &em = io.emitter();
  auto outType = cast<RankedTensorType>(op.getResultTypes()[0]);
  Value x = op.getDpsInputs()[0], w = io.in(op.getDpsInputs()[1]);
  std::optional<double> filled = getConstantFillValue(op.getDpsInits()[0]);
  Value init = filled ? Value() : io.in(op.getDpsInits()[0]);
  AffineMap xMap = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  AffineMap wMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1));
  MLIRContext *context = op.getContext();
  // The reduction's extent: w's axis that loop 3 indexes.
  auto wType = cast<RankedTensorType>(op.getDpsInputs()[1].getType());
  int64_t depth =
      wType.getDimSize(*wMap.getResultPosition(getAffineDimExpr(3, context)));
  Idx rows = em.dim(shapeOf(io, x), 0);
  Value out = io.allocate(
      0, {rows, Idx(outType.getDimSize(1)), Idx(outType.getDimSize(2))});
  // A thread per (e, c), c the output loop x reads, sums every output j of
  // its mixing: x's depth row is loaded (or computed) once for them all,
  // and there are `mixed` times fewer threads, whose blocks the GPU started
  // at a rate that bound the thread-per-output kernel.
  unsigned mixedLoop = xMap.isFunctionOfDim(1) ? 2 : 1;
  unsigned keptLoop = 3 - mixedLoop;
  int64_t kept = outType.getDimSize(keptLoop);
  int64_t mixed = outType.getDimSize(mixedLoop);
  Idx owners = rows * Idx(kept);
  em.launchKernel(
      config.getKernel().getValue(),
      {ceilDiv(owners, kBlockThreads), Idx(1), Idx(1)},
      {Idx(kBlockThreads), Idx(1), Idx(1)}, {}, [&](const LaunchIds &ids) {
        Idx flat = ids.block[0] * Idx(kBlockThreads) + ids.thread[0];
        em.ifThen(flat < owners, [&] {
          SmallVector<Idx> loops = {flat / Idx(kept), Idx(0), Idx(0), Idx(0)};
          loops[keptLoop] = flat % Idx(kept);
          SmallVector<Num> xs;
          for (int64_t i = 0; i < depth; ++i) {
            loops[3] = Idx(i);
            xs.push_back(loadOrCompute(io, x, indicesOf(xMap, loops)));
          }
          for (int64_t j = 0; j < mixed; ++j) {
            loops[mixedLoop] = Idx(j);
            SmallVector<Idx> at = {loops[0], loops[1], loops[2]};
            // From the init, over i in order: the thread-per-output sums.
            Num sum = filled ? Num(*filled) : em.load(init, at);
            for (int64_t i = 0; i < depth; ++i) {
              loops[3] = Idx(i);
              sum = sum + xs[i] * em.load(w, indicesOf(wMap, loops));
            }
            em.store(sum, out, at);
          }
        });
      });
}

//===----------------------------------------------------------------------===//
// sezm.so2_linear and its input gradient
//===----------------------------------------------------------------------===//

namespace {
/// One focus stream's rows of an (E, 3*lmax+1, C) tensor as the two
/// operands of its products: the m = 0 part, M0 = (lmax+1)*Cf wide, and the
/// m = -1 part followed by the m = +1 part, 2 * M1 = 2*lmax*Cf wide.
struct StreamRows {
  int64_t lmax, width;

  int64_t zeroWidth() const { return (lmax + 1) * width; }
  int64_t oddWidth() const { return lmax * width; }

  /// The (row, channel) of element i of the m = 0 part of stream f.
  std::array<Idx, 2> zero(Idx f, Idx i) const {
    return {i / Idx(width), f * Idx(width) + i % Idx(width)};
  }
  /// The (row, channel) of element k of the m = -1, +1 parts of stream f.
  std::array<Idx, 2> odd(Idx f, Idx k) const {
    Idx half = k / Idx(oddWidth()), i = k % Idx(oddWidth());
    return {Idx(lmax + 1) + half * Idx(lmax) + i / Idx(width),
            f * Idx(width) + i % Idx(width)};
  }
};

/// The complex-structured weight [[wu, wv], [-wv, wu]] of stream f at
/// (k, n), over inputs (m = -1, then +1) and outputs (the same).
Num oddWeight(Value wu, Value wv, int64_t half, Idx f, Idx k, Idx n) {
  Emitter &em = f.getEmitter();
  Idx kHalf = k / Idx(half), nHalf = n / Idx(half);
  Idx kIn = k % Idx(half), nIn = n % Idx(half);
  Num u = em.load(wu, {f, kIn, nIn}), v = em.load(wv, {f, kIn, nIn});
  return select(equal(kHalf, nHalf), u, select(equal(kHalf, Idx(0)), v, -v));
}

/// The two launches of an SO(2) linear (or, `transposed`, of its input
/// gradient, whose weights are the transposes) from x into out, each sum
/// starting from acc's element where there is an addend.
void emitSO2Products(KernelIO &io, StringRef name, Value x, Value acc,
                     Value out, Value w0, Value wu, Value wv, int64_t lmax,
                     int64_t focus, bool transposed, KernelConfigAttr config) {
  Emitter &em = io.emitter();
  int64_t channels = cast<MemRefType>(x.getType()).getDimSize(2);
  StreamRows stream{lmax, channels / focus};
  Idx edges = em.dim(x, 0);
  int64_t zeroWidth = stream.zeroWidth(), oddWidth = 2 * stream.oddWidth();
  Value zeroWeights = transposed
                          ? assembleWeights(io, (name + "_weights").str(),
                                            focus, zeroWidth, zeroWidth,
                                            [&](Idx f, Idx k, Idx n) {
                                              return em.load(w0, {f, n, k});
                                            })
                          : w0;
  // One product of stream rows: A read and C written in place through
  // `place` (the m = 0 part or the m = -1, +1 parts), B from `weights`.
  auto product = [&](StringRef suffix, unsigned shape, int64_t width,
                     Value weights,
                     std::array<Idx, 2> (StreamRows::*place)(Idx, Idx) const) {
    auto placeA = [&](Idx f, Idx e, Idx k) -> SmallVector<Idx> {
      auto [row, channel] = (stream.*place)(f, k);
      return {e, row, channel};
    };
    auto placeB = [&](Idx f, Idx k, Idx n) -> SmallVector<Idx> {
      return {f, k, n};
    };
    auto loadInit = [&](Idx f, Idx e, Idx n) {
      auto [row, channel] = (stream.*place)(f, n);
      return em.load(acc, {e, row, channel});
    };
    auto storeC = [&](Idx f, Idx e, Idx n, Num value) {
      auto [row, channel] = (stream.*place)(f, n);
      em.store(value, out, {e, row, channel});
    };
    GemmProblem problem{edges,
                        focus,
                        width,
                        width,
                        {x, placeA, alignedGroup(x, stream.width)},
                        {weights, placeB, alignedGroup(weights, width)},
                        acc ? llvm::function_ref<Num(Idx, Idx, Idx)>(loadInit)
                            : nullptr,
                        storeC};
    emitTiledGemm(io, (name + suffix).str(), problem, config, shape);
  };
  product("_m0", 0, zeroWidth, zeroWeights, &StreamRows::zero);
  if (lmax == 0)
    return;
  Value oddWeights = assembleWeights(
      io, (name + "_weights").str(), focus, oddWidth, oddWidth,
      [&](Idx f, Idx k, Idx n) {
        return transposed ? oddWeight(wu, wv, stream.oddWidth(), f, n, k)
                          : oddWeight(wu, wv, stream.oddWidth(), f, k, n);
      });
  product("_m1", 1, oddWidth, oddWeights, &StreamRows::odd);
}

/// The tiles of a stream's m = 0 product (M0 columns) and, where lmax > 0,
/// of its m = +-1 product (2 * M1 columns), each on the widest block that
/// divides its columns (docs/performance.md, stops 50 and 51), except that
/// an m = +-1 product one 8 x 8 block wide takes 8 x 4 sums on two column
/// blocks: DPA4-Mini's 128 columns ran 6 % faster so, where the default
/// DPA4's 384 ran 3-5 % slower on 8 x 4 (stop 63).
ProductTiles so2Tiles(Value x, int64_t lmax, int64_t focus) {
  int64_t width = cast<RankedTensorType>(x.getType()).getDimSize(2) / focus;
  // Each product is square: its depth is its columns.
  const int64_t even = (lmax + 1) * width, oddColumns = 2 * lmax * width;
  ProductTiles tiles = {chooseGemmTiles(even, even)};
  if (lmax == 0)
    return tiles;
  GemmTiles odd = chooseGemmTiles(oddColumns, oddColumns);
  if (odd.blockColumns == oddColumns && odd.threadRows == 8 &&
      odd.threadColumns == 8) {
    odd.blockColumns /= 2;
    odd.threadColumns /= 2;
  }
  tiles.push_back(odd);
  return tiles;
}

bool so2ShapesTaken(Value x, int64_t lmax, int64_t focus) {
  auto type = cast<RankedTensorType>(x.getType());
  if (type.isDynamicDim(1) || type.isDynamicDim(2) ||
      type.getDimSize(2) % focus != 0)
    return false;
  int64_t width = type.getDimSize(2) / focus;
  return gemmTakesColumns((lmax + 1) * width) &&
         (lmax == 0 || gemmTakesColumns(2 * lmax * width));
}
} // namespace

bool so2LinearApplies(SO2LinearOp op) {
  return so2ShapesTaken(op.getU(), op.getLmax(), op.getFocus());
}

ProductTiles so2LinearTiles(SO2LinearOp op) {
  return so2Tiles(op.getU(), op.getLmax(), op.getFocus());
}

void emitSO2Linear(SO2LinearOp op, KernelIO &io, KernelConfigAttr config) {
  Emitter &em = io.emitter();
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  Value u = io.in(op.getU());
  int64_t channels = cast<RankedTensorType>(op.getU().getType()).getDimSize(2);
  Value out =
      io.allocate(0, {em.dim(u, 0), Idx(layout.reducedRows()), Idx(channels)});
  Value acc = op.getAcc() ? io.in(op.getAcc()) : Value();
  emitSO2Products(io, config.getKernel().getValue(), u, acc, out,
                  io.in(op.getW0()), io.in(op.getWu()), io.in(op.getWv()),
                  layout.lmax, op.getFocus(), /*transposed=*/false, config);
}

/// The input gradient alone: the weight gradients, sums over every edge,
/// are training's and stay loop kernels.
bool so2LinearGradApplies(SO2LinearGradOp op) {
  return op.getW0Grad().use_empty() && op.getWuGrad().use_empty() &&
         op.getWvGrad().use_empty() &&
         so2ShapesTaken(op.getU(), op.getLmax(), op.getFocus());
}

ProductTiles so2LinearGradTiles(SO2LinearGradOp op) {
  return so2Tiles(op.getU(), op.getLmax(), op.getFocus());
}

void emitSO2LinearGrad(SO2LinearGradOp op, KernelIO &io,
                       KernelConfigAttr config) {
  Emitter &em = io.emitter();
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  Value g = io.in(op.getGrad());
  int64_t channels = cast<RankedTensorType>(op.getU().getType()).getDimSize(2);
  Value out =
      io.allocate(0, {em.dim(g, 0), Idx(layout.reducedRows()), Idx(channels)});
  Value acc = op.getAcc() ? io.in(op.getAcc()) : Value();
  emitSO2Products(io, config.getKernel().getValue(), g, acc, out,
                  io.in(op.getW0()), io.in(op.getWu()), io.in(op.getWv()),
                  layout.lmax, op.getFocus(), /*transposed=*/true, config);
}

//===----------------------------------------------------------------------===//
// sezm.degree_linear
//===----------------------------------------------------------------------===//

/// Whether the GEMM takes `op`: static rows and channels, at least
/// gemmTakesColumns output channels.
bool degreeLinearApplies(DegreeLinearOp op) {
  auto x = cast<RankedTensorType>(op.getX().getType());
  auto out = cast<RankedTensorType>(op.getResult().getType());
  return !x.isDynamicDim(1) && !x.isDynamicDim(2) && !out.isDynamicDim(2) &&
         gemmTakesColumns(out.getDimSize(2));
}

/// Every degree's product has the same shape, over the 2l+1 rows of each
/// atom: few rows.
ProductTiles degreeLinearTiles(DegreeLinearOp op) {
  auto out = cast<RankedTensorType>(op.getResult().getType());
  return {chooseGemmTilesForFewRows(out.getDimSize(2))};
}

/// One product per degree l, all in one launch (batch l): the 2l+1 rows of
/// degree l of every node are the rows of A (N * (2l+1) of them, read in
/// place), w[l] its B (or, with `transposed`, w[l] read transposed,
/// assembled once per call). One launch per degree left the first
/// degree's N rows on a fraction of the multiprocessors while the others
/// waited behind it.
void emitDegreeLinear(DegreeLinearOp op, KernelIO &io,
                      KernelConfigAttr config) {
  Emitter &em = io.emitter();
  SO2Layout layout{static_cast<int64_t>(op.getLmax())};
  auto xType = cast<RankedTensorType>(op.getX().getType());
  int64_t rows = xType.getDimSize(1), in = xType.getDimSize(2);
  int64_t out = cast<RankedTensorType>(op.getResult().getType()).getDimSize(2);
  Value x = io.in(op.getX()), w = io.in(op.getW());
  Idx nodes = em.dim(x, 0);
  Value result = io.allocate(0, {nodes, Idx(rows), Idx(out)});
  StringRef name = config.getKernel().getValue();
  Value weights = op.getTransposed()
                      ? assembleWeights(io, (name + "_weights").str(),
                                        layout.lmax + 1, in, out,
                                        [&](Idx l, Idx k, Idx n) {
                                          return em.load(w, {l, n, k});
                                        })
                      : w;
  // Row r of degree l: node r / (2l+1), packed row l^2 + r % (2l+1).
  auto packedRow = [](Idx l, Idx row) -> std::array<Idx, 2> {
    Idx order = Idx(2) * l + Idx(1);
    return {row / order, l * l + row % order};
  };
  auto placeA = [&](Idx l, Idx row, Idx k) -> SmallVector<Idx> {
    auto [node, packed] = packedRow(l, row);
    return {node, packed, k};
  };
  auto placeB = [&](Idx l, Idx k, Idx n) -> SmallVector<Idx> {
    return {l, k, n};
  };
  auto store = [&](Idx l, Idx row, Idx n, Num value) {
    auto [node, packed] = packedRow(l, row);
    em.store(value, result, {node, packed, n});
  };
  auto degreeRows = [&](Idx l) { return nodes * (Idx(2) * l + Idx(1)); };
  GemmOperand a{x, placeA, alignedGroup(x, in)},
      b{weights, placeB, alignedGroup(weights, out)};
  GemmProblem problem{nodes * Idx(2 * layout.lmax + 1),
                      layout.lmax + 1,
                      in,
                      out,
                      a,
                      b,
                      nullptr,
                      store,
                      degreeRows};
  emitTiledGemm(io, name, problem, config, /*product=*/0);
}

/// Threads per block of the kernel that assembles a product's weights.
static constexpr int64_t kAssembleThreads = 256;

Value assembleWeights(KernelIO &io, StringRef name, int64_t focus,
                      int64_t depth, int64_t columns,
                      llvm::function_ref<Num(Idx, Idx, Idx)> weight) {
  Emitter &em = io.emitter();
  Value assembled = io.scratch({focus, depth, columns},
                               {Idx(focus), Idx(depth), Idx(columns)});
  int64_t count = focus * depth * columns;
  em.launchKernel(
      name, {Idx(llvm::divideCeil(count, kAssembleThreads)), Idx(1), Idx(1)},
      {Idx(kAssembleThreads), Idx(1), Idx(1)}, {}, [&](const LaunchIds &ids) {
        Idx flat = ids.block[0] * Idx(kAssembleThreads) + ids.thread[0];
        em.ifThen(flat < Idx(count), [&] {
          Idx f = flat / Idx(depth * columns);
          Idx k = flat / Idx(columns) % Idx(depth);
          Idx n = flat % Idx(columns);
          em.store(weight(f, k, n), assembled, {f, k, n});
        });
      });
  return assembled;
}

} // namespace mlir::sezm::microkernels
