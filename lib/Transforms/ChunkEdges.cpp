//===- ChunkEdges.cpp - per-edge chains in chunks of edges ----------------===//
//
// The per-edge values of a block (the mixing stack's activations and their
// gradients) are what a model's memory grows with. The ops that make them
// compute each edge on its own (EdgeRowwiseOpInterface), so a chain of them
// can run over ranges of edges, its values living one chunk at a time.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Transforms/Passes.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "SeZM/Dialect/SeZM/ShapeContract.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_CHUNKEDGES
#include "SeZM/Transforms/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;

namespace {
/// Whether `type` is a tensor whose first axis alone is dynamic: the edges.
bool isEdgeRowType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() == 0 || !tensor.isDynamicDim(0))
    return false;
  return llvm::count_if(tensor.getShape(), ShapedType::isDynamic) == 1;
}

/// Whether `op` makes its tensor from no input (an empty tensor, or one
/// filled with a value): a loop makes such a row again per chunk for free,
/// so it may be a sliced init and is never imported from an earlier loop.
bool makesRowFromNothing(Operation *op) {
  return isa<tensor::EmptyOp, linalg::FillOp>(op);
}

/// Which ops of a function body compute each edge on their own, and which
/// of their operands hold one row per edge.
class RowwiseFacts {
public:
  explicit RowwiseFacts(func::FuncOp func) {
    for (BlockArgument arg : func.getArguments()) {
      auto extents =
          func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), kExtentsAttr);
      if (extents && !extents.empty())
        if (auto first = dyn_cast<StringAttr>(extents[0]))
          if (first.getValue() == "E" && isEdgeRowType(arg.getType()))
            edgeRows.insert(arg);
    }
    for (Operation &op : func.getBody().front())
      classify(&op);
  }

  bool isChunkable(Operation *op) const { return slicedOperands.count(op); }
  /// Whether `value` is the node sum of a chunkable op that sums a range of
  /// edges (EdgeRangeSumOpInterface): a loop adds its chunks' parts.
  bool isNodeSum(Value value) const { return nodeSums.contains(value); }
  /// The operand indices of a chunkable op that are sliced by edge.
  ArrayRef<unsigned> sliced(Operation *op) const {
    return slicedOperands.find(op)->second;
  }
  bool isEdgeRow(Value value) const { return edgeRows.contains(value); }
  /// Whether `value` is the edge count: the extent of an edge row's first
  /// axis, as the function states it before any loop is built (a loop's
  /// result then takes the place of the row it measures). In a loop it is
  /// the chunk's count.
  bool isEdgeCount(Value value) const { return edgeCounts.contains(value); }

private:
  void classify(Operation *op) {
    if (isa<ShapeContractOpInterface>(op)) {
      // The contract names the edge axes of operands and results.
      SmallVector<unsigned> operands;
      bool edgeResults = true;
      for (const CheckedShape &shape : collectCheckedShapes(op)) {
        bool edge = !shape.axes.empty() && shape.axes[0].first == "E" &&
                    shape.axes[0].second == 0 &&
                    isEdgeRowType(shape.value.getType());
        auto result = dyn_cast<OpResult>(shape.value);
        if (result && result.getOwner() == op) {
          if (edge)
            edgeRows.insert(result);
          continue;
        }
        for (OpOperand &use : op->getOpOperands())
          if (use.get() == shape.value && edge &&
              !llvm::is_contained(operands, use.getOperandNumber()))
            operands.push_back(use.getOperandNumber());
      }
      if (auto rangeSum = dyn_cast<EdgeRangeSumOpInterface>(op)) {
        classifyRangeSum(rangeSum, operands);
        return;
      }
      auto rowwise = dyn_cast<EdgeRowwiseOpInterface>(op);
      if (!rowwise || !rowwise.isRowwiseNow() || operands.empty())
        return;
      SmallVector<unsigned> sums = rowwise.getEdgeSumResults();
      for (OpResult result : op->getResults())
        edgeResults &= edgeRows.contains(result) ||
                       llvm::is_contained(sums, result.getResultNumber());
      if (edgeResults) {
        llvm::sort(operands);
        slicedOperands[op] = std::move(operands);
      }
      return;
    }
    if (classifyStructured(op))
      return;
    // Elementwise arith and math on tensors: every operand has the result's
    // shape, so each is sliced as the result is.
    if (!op->hasTrait<OpTrait::Elementwise>() ||
        !isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
        op->getNumResults() != 1 || !isEdgeRowType(op->getResult(0).getType()))
      return;
    if (!llvm::all_of(op->getOperandTypes(), [&](Type type) {
          return type == op->getResult(0).getType() ||
                 (isa<RankedTensorType>(type) &&
                  cast<RankedTensorType>(type).getShape() ==
                      cast<RankedTensorType>(op->getResult(0).getType())
                          .getShape());
        }))
      return;
    if (llvm::none_of(op->getOperands(),
                      [&](Value operand) { return isEdgeRow(operand); }))
      return;
    edgeRows.insert(op->getResult(0));
    slicedOperands[op] =
        llvm::to_vector(llvm::seq<unsigned>(0, op->getNumOperands()));
  }

  /// Records `value` as the edge count where it measures an edge row.
  bool noteEdgeCount(Value value) {
    auto dim = value.getDefiningOp<tensor::DimOp>();
    std::optional<int64_t> axis = dim ? dim.getConstantIndex() : std::nullopt;
    if (axis != 0 || !isEdgeRow(dim.getSource()))
      return false;
    edgeCounts.insert(value);
    return true;
  }

  /// The tensor and linalg ops that compute each edge row on its own: an
  /// empty edge row, a reshape that keeps the edge axis alone in its group,
  /// and a linalg op whose first loop is parallel and indexes exactly the
  /// edge axis of the operands it reads per edge (and no other operand): a
  /// radial network's matmuls against weights, its fills and activations.
  /// Returns whether `op` is one of them.
  bool classifyStructured(Operation *op) {
    if (op->getNumResults() != 1 || !isEdgeRowType(op->getResult(0).getType()))
      return false;
    Value result = op->getResult(0);
    if (auto empty = dyn_cast<tensor::EmptyOp>(op)) {
      if (!llvm::all_of(empty.getDynamicSizes(),
                        [&](Value size) { return noteEdgeCount(size); }))
        return false;
      edgeRows.insert(result);
      slicedOperands[op] = {};
      return true;
    }
    auto keepsEdgeAxis = [](RankedTensorType type,
                            ArrayRef<ReassociationIndices> groups) {
      return llvm::all_of(groups.front(), [&](int64_t axis) {
        return axis == 0 || type.getDimSize(axis) == 1;
      });
    };
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op)) {
      if (!isEdgeRow(expand.getSrc()) ||
          !keepsEdgeAxis(expand.getResultType(),
                         expand.getReassociationIndices()) ||
          !llvm::all_of(expand.getOutputShape(),
                        [&](Value size) { return noteEdgeCount(size); }))
        return false;
      edgeRows.insert(result);
      slicedOperands[op] = {0};
      return true;
    }
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op)) {
      if (!isEdgeRow(collapse.getSrc()) ||
          !keepsEdgeAxis(collapse.getSrcType(),
                         collapse.getReassociationIndices()))
        return false;
      edgeRows.insert(result);
      slicedOperands[op] = {0};
      return true;
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp || !linalgOp.hasPureTensorSemantics() ||
        linalgOp.getNumLoops() == 0 ||
        linalgOp.getIteratorTypesArray()[0] != utils::IteratorType::parallel)
      return false;
    SmallVector<unsigned> operands;
    for (OpOperand &use : op->getOpOperands()) {
      bool edge = isEdgeRow(use.get());
      if (!isa<RankedTensorType>(use.get().getType())) {
        if (edge)
          return false;
        continue;
      }
      AffineMap map = linalgOp.getMatchingIndexingMap(&use);
      bool indexed = map.isFunctionOfDim(0);
      if (!indexed) {
        // Read whole: it must not hold a row per edge.
        if (edge)
          return false;
        continue;
      }
      // The edge loop indexes axis 0 of a per-edge operand, and nothing else.
      if (!edge || map.getNumResults() == 0 ||
          map.getResult(0) != getAffineDimExpr(0, op->getContext()) ||
          llvm::any_of(map.getResults().drop_front(),
                       [](AffineExpr expr) { return expr.isFunctionOfDim(0); }))
        return false;
      // Its init is made in the chain (an empty or filled edge row), not
      // a slice of a value the loop reads whole.
      if (linalgOp.isDpsInit(&use)) {
        Operation *init = use.get().getDefiningOp();
        if (!init || !isChunkable(init) || !makesRowFromNothing(init))
          return false;
      }
      operands.push_back(use.getOperandNumber());
    }
    // The body must not read the edge index or a per-edge value whole.
    bool absolute = false;
    op->getRegion(0).walk([&](Operation *inner) {
      if (auto index = dyn_cast<linalg::IndexOp>(inner))
        absolute |= index.getDim() == 0;
      for (Value operand : inner->getOperands())
        absolute |= isEdgeRow(operand);
    });
    if (operands.empty() || absolute)
      return false;
    edgeRows.insert(result);
    slicedOperands[op] = std::move(operands);
    return true;
  }

  /// An op whose first result sums its edges into nodes runs on chunks
  /// where its other results are edge rows and no chunkable op reads the
  /// sum (the loop holds it whole only at its end). Its CSR is read whole.
  void classifyRangeSum(EdgeRangeSumOpInterface op,
                        SmallVector<unsigned> operands) {
    Value sum = op->getResult(0);
    if (op.getRangeStart() || !isEdgeRowType(sum.getType()) ||
        llvm::any_of(sum.getUsers(), [](Operation *user) {
          return isa<EdgeRowwiseOpInterface, EdgeRangeSumOpInterface>(user);
        }))
      return;
    for (OpResult result : op->getResults().drop_front())
      if (!edgeRows.contains(result))
        return;
    llvm::erase_if(operands, [&](unsigned index) {
      return op->getOperand(index) == op.getSumOrder();
    });
    if (operands.empty())
      return;
    llvm::sort(operands);
    slicedOperands[op] = std::move(operands);
    nodeSums.insert(sum);
  }

  DenseSet<Value> edgeRows;
  DenseSet<Value> edgeCounts;
  DenseSet<Value> nodeSums;
  DenseMap<Operation *, SmallVector<unsigned>> slicedOperands;
};

/// A result of at most this many elements per edge (an envelope or Wigner-D
/// gradient, a norm term) that an earlier loop computes is read from that
/// loop, written whole, rather than computed again with the chain behind it
/// (a mixing stack); the stack's own rows, (3*lmax+1)*C elements, are what
/// the loops exist not to keep.
constexpr int64_t kKeptRowElements = 64;

bool isSmallRow(Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t elements = 1;
  for (int64_t size : type.getShape().drop_front())
    elements *= size;
  return elements <= kKeptRowElements;
}

/// `accumulator` + `part`, elementwise, written over the accumulator: the
/// loop's node sums add each chunk's part in chunk order.
Value addInPlace(OpBuilder &b, Location loc, Value part, Value accumulator) {
  auto type = cast<RankedTensorType>(accumulator.getType());
  AffineMap identity = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> iterators(type.getRank(),
                                             utils::IteratorType::parallel);
  auto add = linalg::GenericOp::create(
      b, loc, type, ValueRange{part}, ValueRange{accumulator},
      ArrayRef<AffineMap>{identity, identity}, iterators,
      [](OpBuilder &nested, Location loc, ValueRange args) {
        Value sum = arith::AddFOp::create(nested, loc, args[1], args[0]);
        linalg::YieldOp::create(nested, loc, sum);
      });
  return add.getResult(0);
}

/// An operand of a chain's op that an earlier chain's loop provides.
struct Import {
  OpOperand *use;
  /// The index of the chain that computes it.
  unsigned from;
};

/// One chunk loop: its roots (the ops whose results leave it), the
/// chunkable ops it computes (the roots and the producers pulled in), the
/// small results it takes from earlier loops, and where it goes.
struct Chain {
  SmallVector<Operation *> roots;
  llvm::SetVector<Operation *> ops;
  SmallVector<Import> imports;
  Operation *insertionPoint = nullptr;
};

struct ChunkEdgesPass : sezm::impl::ChunkEdgesBase<ChunkEdgesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (rows < 1) {
      func.emitError() << "sezm-chunk-edges: rows must be at least 1, got "
                       << static_cast<int64_t>(rows);
      return signalPassFailure();
    }
    auto schedule = func->getAttrOfType<StringAttr>(kScheduleAttr);
    if (func.isExternal() || !func.getBody().hasOneBlock() || !schedule ||
        schedule.getValue() != kInference)
      return;
    Block &body = func.getBody().front();
    RowwiseFacts facts(func);

    // The roots: chunkable ops with a user that is not chunkable.
    SmallVector<Operation *> roots;
    for (Operation &op : body)
      if (facts.isChunkable(&op) &&
          llvm::any_of(op.getUsers(), [&](Operation *user) {
            return !facts.isChunkable(user);
          }))
        roots.push_back(&op);

    SmallVector<Chain> chains;
    // The chain that first computes each op.
    DenseMap<Operation *, unsigned> claimed;
    auto claim = [&](unsigned index) {
      for (Operation *op : chains[index].ops)
        claimed.try_emplace(op, index);
    };
    for (Operation *root : roots) {
      // Joined to the last loop where that computes nothing another loop
      // computes already: then each op runs once and nothing is imported.
      Chain plain;
      plain.roots.push_back(root);
      collect(root, facts, plain, /*claimed=*/nullptr);
      unsigned last = chains.size() - 1;
      if (!chains.empty() && llvm::none_of(plain.ops, [&](Operation *op) {
            auto owner = claimed.find(op);
            return owner != claimed.end() && owner->second != last;
          }))
        if (std::optional<Chain> joined = tryMerge(chains.back(), plain, facts);
            joined && importsBefore(*joined, chains)) {
          chains.back() = std::move(*joined);
          claim(last);
          continue;
        }
      Chain chain;
      chain.roots.push_back(root);
      collect(root, facts, chain, &claimed);
      if (!chains.empty())
        if (std::optional<Chain> joined = tryMerge(chains.back(), chain, facts);
            joined && importsBefore(*joined, chains)) {
          chains.back() = std::move(*joined);
          claim(chains.size() - 1);
          continue;
        }
      chain.insertionPoint = firstOutsideUser(chain, facts);
      // An import needs its loop before this one; else compute it again.
      if (chain.insertionPoint && !importsBefore(chain, chains)) {
        chain.ops.clear();
        chain.imports.clear();
        collect(root, facts, chain, /*claimed=*/nullptr);
        chain.insertionPoint = firstOutsideUser(chain, facts);
      }
      if (!chain.insertionPoint || !inputsBefore(chain))
        continue;
      chains.push_back(std::move(chain));
      claim(chains.size() - 1);
    }
    // What each chain's loop gives later loops.
    DenseMap<unsigned, SmallVector<Import>> exports;
    for (const Chain &chain : chains)
      for (const Import &import : chain.imports)
        exports[import.from].push_back(import);

    OpBuilder builder(&getContext());
    // The values exported so far, and the loop results that hold them.
    DenseMap<Value, Value> fromLoops;
    for (auto [index, chain] : llvm::enumerate(chains)) {
      sortInBlockOrder(chain.ops);
      SmallVector<Value> outputs = outputsOf(chain, facts);
      for (const Import &import : exports.lookup(index))
        if (!llvm::is_contained(outputs, import.use->get()))
          outputs.push_back(import.use->get());
      // Nothing to save where every value of the chain leaves it.
      bool internal = llvm::any_of(chain.ops, [&](Operation *op) {
        return llvm::any_of(op->getResults(), [&](Value result) {
          return facts.isEdgeRow(result) && !result.use_empty() &&
                 !llvm::is_contained(outputs, result);
        });
      });
      // Chains of elementwise ops alone stay as they are: their per-edge
      // values are a few floats each. One that imports runs in a loop too,
      // after the loops it reads from.
      bool heavy =
          !chain.imports.empty() || llvm::any_of(chain.ops, [&](Operation *op) {
            return isa<EdgeRowwiseOpInterface, EdgeRangeSumOpInterface>(op) ||
                   llvm::any_of(op->getResults(), [&](Value result) {
                     return facts.isEdgeRow(result) && !isSmallRow(result);
                   });
          });
      internal |= !chain.imports.empty();
      if (!internal || !heavy || !edgeSourceOf(chain, facts) ||
          llvm::any_of(outputs, [](Value value) {
            return !isEdgeRowType(value.getType());
          }))
        continue;
      // The imports read the loops they come from, built before this one
      // (the ops stay as they are: another loop may compute them again).
      DenseMap<Value, Value> imported;
      for (const Import &import : chain.imports)
        if (Value result = fromLoops.lookup(import.use->get()))
          imported.try_emplace(import.use->get(), result);
      scf::ForOp loop = buildLoop(chain, outputs, imported, facts, builder);
      for (const Import &import : exports.lookup(index)) {
        Value exported = import.use->get();
        fromLoops.try_emplace(
            exported,
            loop.getResult(llvm::find(outputs, exported) - outputs.begin()));
      }
      ++chunkedChains;
    }

    // The originals that no one reads any more.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (facts.isChunkable(&op) && op.use_empty())
        op.erase();
  }

  /// `op` and, recursively, the chunkable producers of its sliced operands;
  /// with `claimed`, a small result of a producer that an earlier chain
  /// computes (an empty tensor or a fill excepted) is imported from that
  /// chain's loop instead.
  static void collect(Operation *op, const RowwiseFacts &facts, Chain &chain,
                      const DenseMap<Operation *, unsigned> *claimed) {
    if (!chain.ops.insert(op))
      return;
    for (unsigned index : facts.sliced(op)) {
      OpOperand &use = op->getOpOperand(index);
      Operation *def = use.get().getDefiningOp();
      if (!def || !facts.isChunkable(def) || def->getBlock() != op->getBlock())
        continue;
      auto earlier = claimed
                         ? claimed->find(def)
                         : DenseMap<Operation *, unsigned>::const_iterator();
      // Importing a row made from nothing would keep a whole (E, ...)
      // tensor alive between the loops.
      if (claimed && earlier != claimed->end() && isSmallRow(use.get()) &&
          !makesRowFromNothing(def)) {
        chain.imports.push_back({&use, earlier->second});
        continue;
      }
      collect(def, facts, chain, claimed);
    }
  }

  static void sortInBlockOrder(llvm::SetVector<Operation *> &ops) {
    SmallVector<Operation *> sorted = ops.takeVector();
    llvm::sort(sorted, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    ops.insert(sorted.begin(), sorted.end());
  }

  /// The results of the chain's roots that ops other than chunkable ones
  /// read: those of chunkable ops compute them again themselves.
  static SmallVector<Value> outputsOf(const Chain &chain,
                                      const RowwiseFacts &facts) {
    SmallVector<Value> outputs;
    for (Operation *root : chain.roots)
      for (Value result : root->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !facts.isChunkable(user);
            }))
          outputs.push_back(result);
    return outputs;
  }

  /// The first op of the block that reads an output of the chain: the loop
  /// goes there.
  static Operation *firstOutsideUser(const Chain &chain,
                                     const RowwiseFacts &facts) {
    Operation *first = nullptr;
    for (Value output : outputsOf(chain, facts))
      for (Operation *user : output.getUsers()) {
        if (facts.isChunkable(user))
          continue;
        Operation *holder =
            output.getParentBlock()->findAncestorOpInBlock(*user);
        if (holder && (!first || holder->isBeforeInBlock(first)))
          first = holder;
      }
    return first;
  }

  /// Whether every value the chain reads from outside it is defined before
  /// its insertion point.
  static bool inputsBefore(const Chain &chain) {
    for (Operation *op : chain.ops)
      for (Value operand : op->getOperands()) {
        Operation *def = operand.getDefiningOp();
        if (!def || chain.ops.contains(def))
          continue;
        if (def->getBlock() != chain.insertionPoint->getBlock() ||
            !def->isBeforeInBlock(chain.insertionPoint))
          return false;
      }
    return true;
  }

  /// Whether the loops that `chain` imports from come before its own.
  static bool importsBefore(const Chain &chain, ArrayRef<Chain> chains) {
    return llvm::all_of(chain.imports, [&](const Import &import) {
      Operation *source = chains[import.from].insertionPoint;
      return source == chain.insertionPoint ||
             source->isBeforeInBlock(chain.insertionPoint);
    });
  }

  /// `next` joined to `chain` where they share ops and one loop can hold
  /// both: the ops computed once for both.
  static std::optional<Chain> tryMerge(const Chain &chain, const Chain &next,
                                       const RowwiseFacts &facts) {
    if (llvm::none_of(next.ops,
                      [&](Operation *op) { return chain.ops.contains(op); }))
      return std::nullopt;
    Chain joined = chain;
    llvm::append_range(joined.roots, next.roots);
    joined.ops.insert(next.ops.begin(), next.ops.end());
    // What `next` imports from `chain` the joined loop computes itself.
    for (const Import &import : next.imports)
      if (!chain.ops.contains(import.use->get().getDefiningOp()))
        joined.imports.push_back(import);
    joined.insertionPoint = firstOutsideUser(joined, facts);
    if (!joined.insertionPoint || !inputsBefore(joined))
      return std::nullopt;
    return joined;
  }

  /// The first per-edge operand the chain reads from outside (whose rows
  /// the loop counts), or null where it makes all its edge rows itself.
  static Value edgeSourceOf(const Chain &chain, const RowwiseFacts &facts) {
    for (Operation *op : chain.ops)
      for (unsigned index : facts.sliced(op)) {
        Value operand = op->getOperand(index);
        Operation *def = operand.getDefiningOp();
        if (!def || !chain.ops.contains(def))
          return operand;
      }
    return Value();
  }

  /// Replaces the chain's outputs with the results of an scf.for over
  /// ranges of `rows` edges that computes the chain on slices; an operand in
  /// `imported` is sliced from the earlier loop's result that holds it.
  scf::ForOp buildLoop(const Chain &chain, ArrayRef<Value> outputs,
                       const DenseMap<Value, Value> &imported,
                       const RowwiseFacts &facts, OpBuilder &builder) {
    auto sourceOf = [&](Value operand) {
      Value result = imported.lookup(operand);
      return result ? result : operand;
    };
    Location loc = chain.ops.back()->getLoc();
    builder.setInsertionPoint(chain.insertionPoint);
    Value edgeSource = sourceOf(edgeSourceOf(chain, facts));
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value step = arith::ConstantIndexOp::create(builder, loc, rows);
    Value edges = tensor::DimOp::create(builder, loc, edgeSource, 0);
    SmallVector<Value> inits;
    for (Value output : outputs) {
      auto type = cast<RankedTensorType>(output.getType());
      if (!facts.isNodeSum(output)) {
        inits.push_back(
            tensor::EmptyOp::create(builder, loc, type, ValueRange{edges}));
        continue;
      }
      // A node sum starts from zeros, one row per node of its CSR.
      auto rangeSum = cast<EdgeRangeSumOpInterface>(output.getDefiningOp());
      Value rowptr = rangeSum.getSumRowptr();
      Value nodes = arith::SubIOp::create(
          builder, loc, tensor::DimOp::create(builder, loc, rowptr, 0),
          arith::ConstantIndexOp::create(builder, loc, 1));
      Value empty =
          tensor::EmptyOp::create(builder, loc, type, ValueRange{nodes});
      Value zero = arith::ConstantOp::create(
          builder, loc, builder.getZeroAttr(type.getElementType()));
      inits.push_back(
          linalg::FillOp::create(builder, loc, zero, empty).getResult(0));
    }

    auto loop = scf::ForOp::create(
        builder, loc, zero, edges, step, inits,
        [&](OpBuilder &b, Location loc, Value lo, ValueRange accumulators) {
          Value left = arith::SubIOp::create(b, loc, edges, lo);
          Value count = arith::MinSIOp::create(b, loc, step, left);
          IRMapping mapping;
          DenseMap<Value, Value> slices;
          auto offsets = [&](int64_t rank) {
            SmallVector<OpFoldResult> at(rank, b.getIndexAttr(0));
            at[0] = lo;
            return at;
          };
          auto sizes = [&](RankedTensorType type) {
            SmallVector<OpFoldResult> extent;
            extent.push_back(count);
            for (int64_t size : type.getShape().drop_front())
              extent.push_back(b.getIndexAttr(size));
            return extent;
          };
          for (Operation *op : chain.ops) {
            // The edge count, where an op reads it (an empty edge row's
            // extent), is the chunk's.
            for (Value operand : op->getOperands())
              if (facts.isEdgeCount(operand))
                mapping.map(operand, count);
            for (unsigned index : facts.sliced(op)) {
              Value operand = op->getOperand(index);
              if (mapping.contains(operand))
                continue;
              Value &slice = slices[operand];
              if (!slice) {
                auto type = cast<RankedTensorType>(operand.getType());
                SmallVector<OpFoldResult> ones(type.getRank(),
                                               b.getIndexAttr(1));
                slice = tensor::ExtractSliceOp::create(
                    b, loc, type, sourceOf(operand), offsets(type.getRank()),
                    sizes(type), ones);
              }
              mapping.map(operand, slice);
            }
            // Whole operands (weights, node tensors) are read as they are;
            // the sliced ones are mapped above.
            Operation *clone = b.clone(*op, mapping);
            if (auto rangeSum = dyn_cast<EdgeRangeSumOpInterface>(clone))
              rangeSum.setRangeStart(lo);
            mapping.map(op->getResults(), clone->getResults());
          }
          SmallVector<Value> updated;
          for (auto [output, accumulator] :
               llvm::zip_equal(outputs, accumulators)) {
            auto type = cast<RankedTensorType>(output.getType());
            if (facts.isNodeSum(output)) {
              updated.push_back(
                  addInPlace(b, loc, mapping.lookup(output), accumulator));
              continue;
            }
            SmallVector<OpFoldResult> ones(type.getRank(), b.getIndexAttr(1));
            updated.push_back(tensor::InsertSliceOp::create(
                b, loc, mapping.lookup(output), accumulator,
                offsets(type.getRank()), sizes(type), ones));
          }
          scf::YieldOp::create(b, loc, updated);
        });
    // Chunkable ops keep reading the originals: they are computed again
    // in the loops that need them (none reads a node sum).
    for (auto [output, result] : llvm::zip_equal(outputs, loop.getResults()))
      Value(output).replaceUsesWithIf(result, [&](OpOperand &use) {
        return !facts.isChunkable(use.getOwner());
      });
    mlir::emitRemark(loop.getLoc())
        << "sezm-chunk-edges: " << chain.ops.size() << " row-wise ops in "
        << "chunks of " << static_cast<int64_t>(rows) << " edges";
    return loop;
  }
};
} // namespace
