//===- Autodiff.cpp - forces and virial from an energy, by reverse mode ---===//

#include "SeZM/Transforms/Passes.h"

#include "SeZM/Dialect/SeZM/SO2Layout.h"
#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AffineMap.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_AUTODIFF
#include "SeZM/Transforms/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;

namespace {
/// The reverse sweep over one function body: the bookkeeping the derivative
/// rules (DerivativeOpInterface) add their cotangents through.
class ReverseSweep : public ReverseMode {
public:
  ReverseSweep(func::FuncOp func, OpBuilder &builder)
      : ReverseMode(builder, func.getLoc()), func(func) {}

  /// The argument named `name` (sezm.name, else arg<i>).
  Value argument(StringRef name) {
    for (BlockArgument arg : func.getArguments())
      if (argumentName(func, arg.getArgNumber()) == name)
        return arg;
    return Value();
  }

  /// The CSR (order, rowptr) of the edges by the key argument `keys`.
  FailureOr<std::pair<Value, Value>> csrOf(Operation *op, Value keys) override {
    auto keyArg = dyn_cast<BlockArgument>(keys);
    if (!keyArg)
      return op->emitError() << "sezm-autodiff: the edge indices must be an "
                                "argument, to find their CSR";
    std::string key = argumentName(func, keyArg.getArgNumber());
    Value order, rowptr;
    for (BlockArgument arg : func.getArguments()) {
      auto of =
          func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), kCsrOfAttr);
      if (!of || of.getValue() != key)
        continue;
      std::string name = argumentName(func, arg.getArgNumber());
      if (StringRef(name).ends_with("order"))
        order = arg;
      else if (StringRef(name).ends_with("rowptr"))
        rowptr = arg;
    }
    if (!order || !rowptr)
      return op->emitError()
             << "sezm-autodiff: no CSR of '" << key
             << "' among the arguments (mark its order and rowptr with "
                "sezm.csr_of = \""
             << key << "\")";
    return std::make_pair(order, rowptr);
  }

  /// The edge index argument whose CSR `order` is (its sezm.csr_of).
  FailureOr<Value> keysOfCsr(Operation *op, Value order) override {
    auto orderArg = dyn_cast<BlockArgument>(order);
    StringAttr of = orderArg ? func.getArgAttrOfType<StringAttr>(
                                   orderArg.getArgNumber(), kCsrOfAttr)
                             : StringAttr();
    if (of)
      if (Value keys = argument(of.getValue()))
        return keys;
    return op->emitError() << "sezm-autodiff: the CSR order must be an "
                              "argument marked sezm.csr_of with the name of "
                              "its edge index argument";
  }

  /// Marks what depends on the seeds. A value that does, read inside an
  /// op's body rather than as its operand, is an error: no rule would see
  /// that dependence, and the derivative would silently miss it.
  LogicalResult markActive(ArrayRef<Value> seeds) {
    active.insert(seeds.begin(), seeds.end());
    for (Operation &op : func.getBody().front()) {
      WalkResult captured = op.walk([&](Operation *nested) {
        if (nested == &op)
          return WalkResult::advance();
        for (Value v : nested->getOperands())
          if (active.contains(v)) {
            op.emitError() << "sezm-autodiff: reads a value that depends on "
                              "what is differentiated inside its body "
                              "(pass it as an operand instead)";
            return WalkResult::interrupt();
          }
        return WalkResult::advance();
      });
      if (captured.wasInterrupted())
        return failure();
      if (llvm::any_of(op.getOperands(),
                       [&](Value v) { return active.contains(v); }))
        for (Value result : op.getResults())
          if (isa<FloatType>(getElementTypeOrSelf(result.getType())))
            active.insert(result);
    }
    return success();
  }

  void seed(Value value, Value cotangent) { cotangents[value] = cotangent; }
  Value cotangentOf(Value value) const { return cotangents.lookup(value); }

  void add(Value value, Value g) override {
    if (!active.contains(value) || !g)
      return;
    auto [it, inserted] = cotangents.try_emplace(value, g);
    if (!inserted)
      it->second = arith::AddFOp::create(builder(), getLoc(), it->second, g);
  }
  bool isActive(Value value) const override { return active.contains(value); }
  void recordEdgeVectors(Value vectors, Value gradient,
                         std::pair<Value, Value> bySrc,
                         std::pair<Value, Value> byDst) override {
    edgeVectors = vectors;
    edgeGrad = gradient;
    srcCsr = bySrc;
    dstCsr = byDst;
  }

  LogicalResult backpropagate(Operation *op);

  /// virial[k][j] = -sum_e dE/dv[e][k] v[e][j] = -(g^T v)[k][j], of
  /// differentiable ops; null when no edge vectors were differentiated.
  Value virial() {
    if (!edgeGrad)
      return Value();
    return arith::NegFOp::create(builder(), getLoc(),
                                 matmul(transposed(edgeGrad), edgeVectors));
  }

  /// Each atom's virial (N, 3, 3): every edge's term -g[e][k] v[e][j] half
  /// to its source and half to its destination, each sum over a CSR in
  /// order; null when no edge vectors were differentiated.
  Value atomVirial() {
    if (!edgeGrad)
      return Value();
    OpBuilder &b = builder();
    Location loc = getLoc();
    auto vectorType = cast<RankedTensorType>(edgeVectors.getType());
    Type element = vectorType.getElementType();
    Value edges = tensor::DimOp::create(b, loc, edgeVectors, 0);
    auto termType =
        RankedTensorType::get({ShapedType::kDynamic, 3, 3}, element);
    Value empty = tensor::EmptyOp::create(b, loc, termType.getShape(), element,
                                          ValueRange{edges});
    MLIRContext *context = b.getContext();
    AffineExpr e = getAffineDimExpr(0, context),
               k = getAffineDimExpr(1, context),
               j = getAffineDimExpr(2, context);
    SmallVector<AffineMap> maps = {AffineMap::get(3, 0, {e, k}, context),
                                   AffineMap::get(3, 0, {e, j}, context),
                                   AffineMap::get(3, 0, {e, k, j}, context)};
    SmallVector<utils::IteratorType> iterators(3,
                                               utils::IteratorType::parallel);
    Value half =
        arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.5));
    Value terms =
        linalg::GenericOp::create(
            b, loc, termType, ValueRange{edgeGrad, edgeVectors},
            ValueRange{empty}, maps, iterators,
            [&](OpBuilder &nested, Location at, ValueRange args) {
              Value product =
                  arith::MulFOp::create(nested, at, args[0], args[1]);
              Value scaled = arith::MulFOp::create(nested, at, product, half);
              linalg::YieldOp::create(
                  nested, at,
                  ValueRange{arith::NegFOp::create(nested, at, scaled)});
            })
            .getResult(0);
    auto nodeType =
        RankedTensorType::get({ShapedType::kDynamic, 3, 3}, element);
    Value fromSrc = SegmentReduceOp::create(b, loc, nodeType, terms,
                                            srcCsr.first, srcCsr.second);
    Value fromDst = SegmentReduceOp::create(b, loc, nodeType, terms,
                                            dstCsr.first, dstCsr.second);
    return arith::AddFOp::create(b, loc, fromSrc, fromDst);
  }

private:
  func::FuncOp func;
  /// The edge-vector gradient and edge vectors, for the virial, and the
  /// edges' CSRs, for the per-atom virial.
  Value edgeGrad, edgeVectors;
  std::pair<Value, Value> srcCsr, dstCsr;
  llvm::DenseSet<Value> active;
  llvm::DenseMap<Value, Value> cotangents;
};

LogicalResult ReverseSweep::backpropagate(Operation *op) {
  SmallVector<Value> gs;
  bool any = false;
  for (Value result : op->getResults()) {
    gs.push_back(cotangentOf(result));
    any |= static_cast<bool>(gs.back());
  }
  if (!any)
    return success();
  auto rule = dyn_cast<DerivativeOpInterface>(op);
  if (!rule)
    return op->emitError() << "sezm-autodiff: no derivative rule for "
                           << op->getName();
  builder().setInsertionPoint(func.getBody().front().getTerminator());
  return rule.backpropagate(*this, gs);
}

/// Each atom's energy (N) of an energy that is a sum over atoms: a
/// linalg.reduce adding every element of an (N, ...) tensor from zero (an
/// atom's energy is the sum of its elements); null for any other energy.
static Value atomEnergyOf(OpBuilder &b, Value energy) {
  auto reduce = energy.getDefiningOp<linalg::ReduceOp>();
  if (!reduce || reduce.getInputs().size() != 1)
    return Value();
  Value atoms = reduce.getInputs().front();
  auto type = cast<RankedTensorType>(atoms.getType());
  if (type.getRank() < 1 ||
      reduce.getDimensions().size() != static_cast<size_t>(type.getRank()))
    return Value();
  Block &body = reduce.getCombiner().front();
  auto add = dyn_cast<arith::AddFOp>(&body.front());
  if (!add || body.getOperations().size() != 2)
    return Value();
  auto fill = reduce.getInits().front().getDefiningOp<linalg::FillOp>();
  auto zero = fill ? fill.getInputs().front().getDefiningOp<arith::ConstantOp>()
                   : arith::ConstantOp();
  auto zeroValue = zero ? dyn_cast<FloatAttr>(zero.getValue()) : FloatAttr();
  if (!zeroValue || !zeroValue.getValue().isZero())
    return Value();
  if (type.getRank() == 1)
    return atoms;
  Location loc = energy.getLoc();
  // Trailing extents of one: (N, 1, ...) is (N).
  if (llvm::all_of(type.getShape().drop_front(),
                   [](int64_t extent) { return extent == 1; })) {
    SmallVector<ReassociationIndices> all = {
        llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()))};
    return tensor::CollapseShapeOp::create(b, loc, atoms, all);
  }
  // Else each atom's elements summed, as the energy sums them.
  Value atomCount = tensor::DimOp::create(b, loc, atoms, 0);
  Type element = type.getElementType();
  Value empty = tensor::EmptyOp::create(b, loc, {ShapedType::kDynamic}, element,
                                        ValueRange{atomCount});
  Value zeros =
      linalg::FillOp::create(b, loc, zero.getResult(), empty).getResult(0);
  return linalg::ReduceOp::create(
             b, loc, ValueRange{atoms}, ValueRange{zeros},
             llvm::to_vector(llvm::seq<int64_t>(1, type.getRank())),
             [](OpBuilder &nested, Location at, ValueRange args) {
               Value sum = arith::AddFOp::create(nested, at, args[0], args[1]);
               linalg::YieldOp::create(nested, at, sum);
             })
      .getResult(0);
}

struct AutodiffPass : sezm::impl::AutodiffBase<AutodiffPass> {
  using sezm::impl::AutodiffBase<AutodiffPass>::AutodiffBase;

  void getDependentDialects(DialectRegistry &registry) const override {
    AutodiffBase::getDependentDialects(registry);
    registerUpstreamDerivatives(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto source = module.lookupSymbol<func::FuncOp>(energy);
    if (!source) {
      module.emitError() << "sezm-autodiff: no function @" << energy;
      return signalPassFailure();
    }
    if (source.getNumResults() != 1 ||
        cast<ShapedType>(source.getResultTypes()[0]).getRank() != 0) {
      source.emitError() << "sezm-autodiff: @" << energy
                         << " must return one scalar energy (a rank-0 tensor)";
      return signalPassFailure();
    }
    // A declaration of the derived function (so that other functions can
    // call it before it exists, e.g. a force loss) is replaced by it.
    std::string derivedName = energy + "_forces";
    auto declared = module.lookupSymbol<func::FuncOp>(derivedName);
    if (declared && !declared.isDeclaration()) {
      declared.emitError() << "sezm-autodiff: @" << derivedName
                           << " exists already";
      return signalPassFailure();
    }
    func::FuncOp derived = source.clone();
    derived.setSymName(derivedName);
    module.push_back(derived);

    OpBuilder b(derived.getContext());
    ReverseSweep sweep(derived, b);
    Value positions = sweep.argument("positions");
    if (!positions) {
      source.emitError() << "sezm-autodiff: @" << energy
                         << " has no argument named \"positions\"";
      return signalPassFailure();
    }
    // The arguments whose gradients are returned too (training).
    SmallVector<Value> seeds = {positions};
    for (const std::string &name : weights) {
      Value weight = sweep.argument(name);
      if (!weight || weight == positions) {
        source.emitError() << "sezm-autodiff: @" << energy
                           << " has no weight argument named \"" << name
                           << "\"";
        return signalPassFailure();
      }
      seeds.push_back(weight);
    }
    if (failed(sweep.markActive(seeds)))
      return signalPassFailure();

    auto returnOp =
        cast<func::ReturnOp>(derived.getBody().front().getTerminator());
    Value energyValue = returnOp.getOperand(0);
    b.setInsertionPoint(returnOp);
    Location loc = derived.getLoc();
    auto energyType = cast<RankedTensorType>(energyValue.getType());
    Value one = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(
            energyType, b.getFloatAttr(energyType.getElementType(), 1.0)));
    sweep.seed(energyValue, one);

    SmallVector<Operation *> forward;
    for (Operation &op : derived.getBody().front().without_terminator())
      forward.push_back(&op);
    for (Operation *op : llvm::reverse(forward))
      if (failed(sweep.backpropagate(op)))
        return signalPassFailure();

    b.setInsertionPoint(returnOp);
    Value gradient = sweep.cotangentOf(positions);
    if (!gradient && !(positionsOptional && !weights.empty())) {
      source.emitError() << "sezm-autodiff: the energy of @" << energy
                         << " does not depend on the positions";
      return signalPassFailure();
    }
    SmallVector<Value> results = {energyValue};
    SmallVector<std::string> names = {"energy"};
    if (gradient) {
      Value forces = arith::NegFOp::create(b, loc, gradient);
      Type element = energyType.getElementType();
      auto virialType = RankedTensorType::get({3, 3}, element);
      Value virial = sweep.virial();
      if (!virial)
        virial = arith::ConstantOp::create(
            b, loc,
            DenseElementsAttr::get(virialType, b.getFloatAttr(element, 0.0)));
      results.append({forces, virial});
      names.append({"forces", "virial"});
    }
    if (perAtom) {
      Value atomEnergy = atomEnergyOf(b, energyValue);
      if (!atomEnergy) {
        source.emitError()
            << "sezm-autodiff: per-atom: the energy of @" << energy
            << " is not a sum over atoms (a linalg.reduce adding every "
               "element of an (N, ...) tensor from zero)";
        return signalPassFailure();
      }
      results.push_back(atomEnergy);
      names.push_back("atom_energy");
      // An energy of no positions (positions-optional) has no virial.
      if (gradient) {
        Value atomVirial = sweep.atomVirial();
        if (!atomVirial) {
          source.emitError() << "sezm-autodiff: per-atom: @" << energy
                             << " has no sezm.edge_vectors to split the "
                                "virial over";
          return signalPassFailure();
        }
        results.push_back(atomVirial);
        names.push_back("atom_virial");
      }
    }
    for (auto [name, weight] :
         llvm::zip(weights, ArrayRef(seeds).drop_front())) {
      Value weightGrad = sweep.cotangentOf(weight);
      if (!weightGrad) {
        source.emitError() << "sezm-autodiff: the energy of @" << energy
                           << " does not depend on \"" << name << "\"";
        return signalPassFailure();
      }
      results.push_back(weightGrad);
      names.push_back(name + "_grad");
    }
    func::ReturnOp::create(b, loc, results);
    returnOp.erase();
    derived.setType(FunctionType::get(derived.getContext(),
                                      derived.getArgumentTypes(),
                                      ValueRange(results).getTypes()));
    derived.setAllResultAttrs(ArrayRef<DictionaryAttr>{});
    for (auto [i, name] : llvm::enumerate(names))
      derived.setResultAttr(i, kNameAttr, b.getStringAttr(name));

    if (createGraph) {
      // Everything after the forward ops is the backward: each op of it must
      // be differentiable again.
      for (Operation &op : llvm::make_range(
               std::next(forward.back()->getIterator()),
               derived.getBody().front().without_terminator().end()))
        if (!isa<DerivativeOpInterface>(op)) {
          op.emitError() << "sezm-autodiff: create-graph: the backward of @"
                         << energy << " uses " << op.getName()
                         << ", which has no derivative rule yet";
          return signalPassFailure();
        }
      derived->setAttr(kCreateGraphAttr, b.getUnitAttr());
    }
    if (declared) {
      if (declared.getFunctionType() != derived.getFunctionType()) {
        declared.emitError() << "sezm-autodiff: @" << derivedName
                             << " is declared as " << declared.getFunctionType()
                             << ", but it is " << derived.getFunctionType();
        return signalPassFailure();
      }
      declared.erase();
    }
  }
};
} // namespace
