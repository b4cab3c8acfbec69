//===- SplitStages.cpp - an energy function cut at its block boundaries ---===//
//
// Under a domain decomposition each rank holds ghost copies of its
// neighbours' atoms, whose features a block cannot compute (their
// neighbourhoods are on other ranks). The model then runs one block at a
// time, the caller exchanging the ghosts' features between blocks; the
// sezm.exchange ops say where.
//
//===----------------------------------------------------------------------===//

#include "SeZM/Transforms/Passes.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/BitVector.h"

namespace mlir::sezm {
#define GEN_PASS_DEF_SPLITSTAGES
#include "SeZM/Transforms/Passes.h.inc"
} // namespace mlir::sezm

using namespace mlir;
using namespace mlir::sezm;

namespace {
constexpr StringLiteral kFeatures = "features";
constexpr StringLiteral kFeaturesOutGrad = "features_out_grad";

SmallVector<ExchangeOp> exchangesOf(func::FuncOp func) {
  return llvm::to_vector(func.getBody().front().getOps<ExchangeOp>());
}

/// Erases the ops whose results nothing reads, the last first (so that
/// their producers follow).
void eraseDead(func::FuncOp func) {
  Operation *op = func.getBody().front().getTerminator()->getPrevNode();
  while (op) {
    Operation *before = op->getPrevNode();
    if (isOpTriviallyDead(op))
      op->erase();
    op = before;
  }
}

void pruneArguments(func::FuncOp func) {
  llvm::BitVector unused(func.getNumArguments());
  for (BlockArgument arg : func.getArguments())
    if (arg.use_empty())
      unused.set(arg.getArgNumber());
  (void)func.eraseArguments(unused);
}

/// Whether `func` reads the positions' values (not only their count).
bool readsPositions(func::FuncOp func) {
  for (BlockArgument arg : func.getArguments())
    if (argumentName(func, arg.getArgNumber()) == "positions")
      return llvm::any_of(arg.getUsers(), [](Operation *user) {
        return !isa<tensor::DimOp>(user);
      });
  return false;
}

/// Appends a node-feature argument named `name` of `type` ((N, ...)).
Value appendFeatures(func::FuncOp func, Type type, StringRef name) {
  Builder b(func.getContext());
  SmallVector<Attribute> extents(cast<RankedTensorType>(type).getRank(),
                                 b.getStringAttr(""));
  extents[0] = b.getStringAttr("N");
  NamedAttribute attrs[] = {
      b.getNamedAttr(kNameAttr, b.getStringAttr(name)),
      b.getNamedAttr(kExtentsAttr, b.getArrayAttr(extents))};
  unsigned index = func.getNumArguments();
  (void)func.insertArgument(index, type, b.getDictionaryAttr(attrs),
                            func.getLoc());
  return func.getArgument(index);
}

/// Takes the node count from `features` wherever `func` takes it from
/// another argument of one row per node (the positions), so that a stage
/// that reads only the features and types (a readout) takes nothing else.
void countNodesBy(func::FuncOp func, Value features) {
  func.walk([&](tensor::DimOp dim) {
    auto arg = dyn_cast<BlockArgument>(dim.getSource());
    std::optional<int64_t> axis = dim.getConstantIndex();
    if (!arg || arg == features || arg.getOwner() != &func.getBody().front() ||
        axis != 0)
      return;
    auto extents =
        func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), kExtentsAttr);
    auto first = extents && !extents.empty() ? dyn_cast<StringAttr>(extents[0])
                                             : StringAttr();
    if (first && first.getValue() == "N")
      dim.getSourceMutable().assign(features);
  });
}

/// Makes `values` the results of `func`, named `names`.
void setResults(func::FuncOp func, ValueRange values,
                ArrayRef<std::string> names) {
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  ret->setOperands(values);
  func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                 values.getTypes()));
  func.setAllResultAttrs(ArrayRef<DictionaryAttr>{});
  Builder b(func.getContext());
  for (auto [i, name] : llvm::enumerate(names))
    func.setResultAttr(i, kNameAttr, b.getStringAttr(name));
}

struct SplitStagesPass : sezm::impl::SplitStagesBase<SplitStagesPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    Base::getDependentDialects(registry);
    // The backward of each stage is sezm-autodiff's.
    registerUpstreamDerivatives(registry);
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto source = module.lookupSymbol<func::FuncOp>(energy);
    if (!source || source.isExternal()) {
      module.emitError() << "sezm-split-stages: no function @" << energy;
      return signalPassFailure();
    }
    unsigned boundaries = exchangesOf(source).size();
    if (boundaries == 0) {
      source.emitError() << "sezm-split-stages: @" << energy
                         << " has no sezm.exchange, so no stages";
      return signalPassFailure();
    }
    for (unsigned k = 0; k <= boundaries; ++k) {
      std::string name = energy + "_stage" + std::to_string(k);
      for (const std::string &taken :
           {name, name + "_backward", name + "_work", name + "_work_forces"})
        if (module.lookupSymbol(taken)) {
          source.emitError()
              << "sezm-split-stages: @" << taken << " exists already";
          return signalPassFailure();
        }
      FailureOr<func::FuncOp> stage = buildStage(source, k, boundaries, name);
      if (failed(stage))
        return signalPassFailure();
      // A stage of the graph alone with no geometry (the type embedding)
      // has nothing to differentiate.
      if ((k > 0 || readsPositions(*stage)) &&
          failed(buildBackward(*stage, k > 0, k == boundaries))) {
        stage->erase();
        return signalPassFailure();
      }
      pruneArguments(*stage);
      module.push_back(*stage);
    }
  }

  /// Stage k of `source` with all of its arguments: the features after
  /// exchange k (k > 0) as the argument `features`, the operand of exchange
  /// k + 1 (or the energy) its result.
  FailureOr<func::FuncOp> buildStage(func::FuncOp source, unsigned k,
                                     unsigned boundaries, StringRef name) {
    func::FuncOp stage = source.clone();
    stage.setSymName(name);
    SmallVector<ExchangeOp> exchanges = exchangesOf(stage);
    if (k > 0) {
      ExchangeOp in = exchanges[k - 1];
      Value features = appendFeatures(stage, in.getType(), kFeatures);
      in.getResult().replaceAllUsesWith(features);
      countNodesBy(stage, features);
    }
    bool last = k == boundaries;
    auto ret = cast<func::ReturnOp>(stage.getBody().front().getTerminator());
    Value result = last ? ret.getOperand(0) : exchanges[k].getFeatures();
    setResults(stage, result, {last ? "energy" : kFeatures.str()});
    eraseDead(stage);
    // What the stage still reads through an exchange is an earlier block's
    // features, which the caller does not pass.
    if (!exchangesOf(stage).empty()) {
      ExchangeOp past = exchangesOf(stage).front();
      mlir::emitError(past.getLoc())
          << "sezm-split-stages: stage " << k << " of @" << source.getSymName()
          << " reads the features at this block boundary past its own "
             "input; only one tensor of node features may cross each "
             "boundary";
      stage.erase();
      return failure();
    }
    return stage;
  }

  /// Adds `<stage>_backward`: sezm-autodiff of sum(result x
  /// features_out_grad) (of the energy, for the last stage), returning the
  /// forces and virial where the stage reads the positions and the
  /// gradient of `features` where it has them.
  LogicalResult buildBackward(func::FuncOp stage, bool hasFeatures, bool last) {
    ModuleOp module = getOperation();
    func::FuncOp work = stage.clone();
    std::string workName = stage.getSymName().str() + "_work";
    work.setSymName(workName);
    work.setPrivate();
    if (!last) {
      Block &body = work.getBody().front();
      auto ret = cast<func::ReturnOp>(body.getTerminator());
      Value result = ret.getOperand(0);
      auto type = cast<RankedTensorType>(result.getType());
      Value seed = appendFeatures(work, type, kFeaturesOutGrad);
      OpBuilder b(ret);
      Location loc = ret.getLoc();
      Value product = arith::MulFOp::create(b, loc, result, seed);
      Type element = type.getElementType();
      Value zero =
          arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0));
      Value empty = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{},
                                            element, ValueRange{});
      Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
      Value sum = linalg::ReduceOp::create(
                      b, loc, ValueRange{product}, ValueRange{init},
                      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank())),
                      [](OpBuilder &nested, Location at, ValueRange args) {
                        Value add =
                            arith::AddFOp::create(nested, at, args[0], args[1]);
                        linalg::YieldOp::create(nested, at, add);
                      })
                      .getResult(0);
      setResults(work, sum, {"work"});
    }
    module.push_back(work);

    OpPassManager pm(ModuleOp::getOperationName());
    AutodiffOptions autodiff;
    autodiff.energy = workName;
    if (hasFeatures)
      autodiff.weights = {kFeatures.str()};
    autodiff.positionsOptional = true;
    autodiff.perAtom = perAtom;
    pm.addPass(createAutodiff(autodiff));
    if (failed(runPipeline(pm, module))) {
      work.erase();
      return failure();
    }

    auto derived = module.lookupSymbol<func::FuncOp>(workName + "_forces");
    work.erase();
    // The work (or the energy, which the stage itself returns) is dropped,
    // and the work's per-node parts: only the readout's are energies.
    auto ret = cast<func::ReturnOp>(derived.getBody().front().getTerminator());
    SmallVector<Value> kept;
    SmallVector<std::string> names;
    for (unsigned i = 0; i < derived.getNumResults(); ++i) {
      std::string name =
          derived.getResultAttrOfType<StringAttr>(i, kNameAttr).str();
      if (name == "energy" || (name == "atom_energy" && !last))
        continue;
      kept.push_back(ret.getOperand(i));
      names.push_back(name);
    }
    setResults(derived, kept, names);
    eraseDead(derived);
    pruneArguments(derived);
    derived.setSymName(stage.getSymName().str() + "_backward");
    derived.setPublic();
    return success();
  }
};
} // namespace
