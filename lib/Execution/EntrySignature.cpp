//===- EntrySignature.cpp - the inputs and outputs of an entry ------------===//

#include "SeZM/Execution/EntrySignature.h"

#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "SeZM/Dialect/SeZM/ShapeContract.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace mlir;
using namespace mlir::sezm;
using sezmrt::ElementType;
using sezmrt::EntrySignature;
using sezmrt::GraphExtent;
using sezmrt::OpContract;
using sezmrt::TensorPort;

static std::optional<ElementType> elementTypeOf(Type type) {
  if (type.isF32())
    return ElementType::F32;
  if (type.isF64())
    return ElementType::F64;
  if (type.isSignlessInteger(32))
    return ElementType::I32;
  if (type.isSignlessInteger(64))
    return ElementType::I64;
  return std::nullopt;
}

static llvm::Expected<TensorPort> makePort(Type type, StringAttr nameAttr,
                                           StringRef fallback, StringRef what) {
  TensorPort port;
  port.name = nameAttr ? nameAttr.getValue().str() : fallback.str();
  auto tensorType = dyn_cast<RankedTensorType>(type);
  std::optional<ElementType> element =
      tensorType ? elementTypeOf(tensorType.getElementType()) : std::nullopt;
  if (!element) {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << what << " '" << port.name << "' has type " << type
       << "; entry functions take and return ranked tensors of f32, f64, "
          "i32 or i64";
    return llvm::createStringError(text);
  }
  port.type = *element;
  for (int64_t size : tensorType.getShape())
    port.shape.push_back(ShapedType::isDynamic(size) ? -1 : size);
  return port;
}

static std::string describeOp(Operation *op) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << op->getName();
  if (auto loc = dyn_cast<FileLineColLoc>(op->getLoc()))
    os << " at " << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
       << loc.getColumn();
  return text;
}

namespace {
/// Tracks which argument dimension each graph-sized dimension of a value
/// equals: extent(value, axis) = extent(argument, argAxis) + delta.
struct Provenance {
  int argument;
  unsigned axis;
  int64_t delta;
};
} // namespace

/// Derives the run-time contracts of every sezm op of `func`.
static std::vector<OpContract> collectContracts(func::FuncOp func) {
  llvm::DenseMap<std::pair<Value, unsigned>, Provenance> provenance;
  for (BlockArgument arg : func.getArguments()) {
    auto type = cast<RankedTensorType>(arg.getType());
    for (unsigned axis = 0; axis < type.getRank(); ++axis)
      if (type.isDynamicDim(axis))
        provenance[{arg, axis}] = {static_cast<int>(arg.getArgNumber()), axis,
                                   0};
  }
  auto argumentOf = [&](Value v) -> int {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == &func.getBody().front()
               ? static_cast<int>(arg.getArgNumber())
               : -1;
  };

  std::vector<OpContract> contracts;
  func.walk([&](Operation *op) {
    if (!isa<SeZMDialect>(op->getDialect()))
      return;
    SmallVector<CheckedShape> shapes = collectCheckedShapes(op);
    OpContract contract;
    contract.op = describeOp(op);
    for (StringRef symbol : {"N", "E"}) {
      std::vector<GraphExtent> known;
      std::optional<GraphExtent> anchor;
      for (const CheckedShape &shape : shapes) {
        for (auto [axis, dim] : llvm::enumerate(shape.axes)) {
          if (dim.first != symbol)
            continue;
          auto it = provenance.find({shape.value, axis});
          if (it == provenance.end())
            continue;
          // symbol = extent(arg, argAxis) + delta - offset.
          GraphExtent extent{it->second.argument, it->second.axis,
                             dim.second - it->second.delta};
          known.push_back(extent);
          if (!anchor)
            anchor = extent;
        }
      }
      if (!anchor)
        continue;
      // The op's results take their graph sizes from its operands.
      for (const CheckedShape &shape : shapes) {
        if (!isa<OpResult>(shape.value) || shape.value.getDefiningOp() != op)
          continue;
        for (auto [axis, dim] : llvm::enumerate(shape.axes))
          if (dim.first == symbol)
            provenance.try_emplace({shape.value, axis},
                                   Provenance{anchor->argument, anchor->axis,
                                              dim.second - anchor->offset});
      }
      contract.extents.emplace_back(symbol.str(), std::move(known));
    }
    std::set<int> seen;
    for (const CheckedShape &shape : shapes) {
      int argument = argumentOf(shape.value);
      if (!shape.isIndex || argument < 0 || !seen.insert(argument).second)
        continue;
      StringRef name = shape.name;
      std::string role = name.ends_with("rowptr")  ? "rowptr"
                         : name.ends_with("order") ? "order"
                                                   : "node";
      contract.indices.push_back({argument, shape.name, role});
    }
    // CSR arrays marked as the segmentation by a key argument.
    auto csrOf = [&](int argument) -> std::optional<int> {
      auto key = func.getArgAttrOfType<StringAttr>(argument, kCsrOfAttr);
      if (!key)
        return std::nullopt;
      for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i)
        if (argumentName(func, i) == key.getValue())
          return static_cast<int>(i);
      return std::nullopt;
    };
    for (const OpContract::IndexInput &order : contract.indices) {
      if (order.role != "order")
        continue;
      for (const OpContract::IndexInput &rowptr : contract.indices) {
        if (rowptr.role != "rowptr")
          continue;
        std::optional<int> keys = csrOf(order.argument);
        if (keys && keys == csrOf(rowptr.argument))
          contract.segments.push_back({*keys, order.argument, rowptr.argument});
      }
    }
    contracts.push_back(std::move(contract));
  });
  return contracts;
}

llvm::Expected<EntrySignature> mlir::sezm::getEntrySignature(ModuleOp module,
                                                             StringRef entry) {
  func::FuncOp func;
  SmallVector<StringRef> publicNames;
  for (auto candidate : module.getOps<func::FuncOp>()) {
    if (candidate.isPublic() && !candidate.isExternal())
      publicNames.push_back(candidate.getSymName());
    if (!entry.empty() && candidate.getSymName() == entry)
      func = candidate;
  }
  if (entry.empty()) {
    if (publicNames.size() != 1)
      return llvm::createStringError(
          "the module has " + std::to_string(publicNames.size()) +
          " public functions (" + llvm::join(publicNames, ", ") +
          "); name the entry function with --entry");
    func = *llvm::find_if(module.getOps<func::FuncOp>(), [&](func::FuncOp f) {
      return f.getSymName() == publicNames.front();
    });
  }
  if (!func)
    return llvm::createStringError("no function '" + entry.str() +
                                   "' in the module (public functions: " +
                                   llvm::join(publicNames, ", ") + ")");
  if (func.isExternal())
    return llvm::createStringError("function '" + entry.str() +
                                   "' has no body");

  EntrySignature signature;
  signature.function = func.getSymName().str();
  for (unsigned i = 0; i < func.getNumArguments(); ++i) {
    auto port = makePort(func.getArgument(i).getType(),
                         func.getArgAttrOfType<StringAttr>(i, kNameAttr),
                         "arg" + std::to_string(i), "argument");
    if (!port)
      return port.takeError();
    signature.arguments.push_back(std::move(*port));
  }
  for (unsigned i = 0; i < func.getNumResults(); ++i) {
    auto port = makePort(func.getResultTypes()[i],
                         func.getResultAttrOfType<StringAttr>(i, kNameAttr),
                         "result" + std::to_string(i), "result");
    if (!port)
      return port.takeError();
    signature.results.push_back(std::move(*port));
  }
  signature.contracts = collectContracts(func);
  if (auto typeMap = module->getAttrOfType<ArrayAttr>(kTypeMapAttr))
    for (Attribute species : typeMap)
      signature.typeMap.push_back(cast<StringAttr>(species).str());
  if (auto rcut = module->getAttrOfType<FloatAttr>(kRcutAttr))
    signature.rcut = rcut.getValueAsDouble();
  return signature;
}
