//===- EntrySignature.cpp - the inputs and outputs of an entry ------------===//

#include "SeZM/Execution/EntrySignature.h"

#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "SeZM/Dialect/SeZM/ShapeRelations.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <set>
#include <sstream>

using namespace mlir;
using namespace mlir::sezm;
using ::sezm::ElementType;
using ::sezm::HostTensor;

std::string TensorPort::describe() const {
  std::ostringstream os;
  os << "'" << name << "' (" << ::sezm::elementTypeName(type) << " (";
  for (size_t i = 0; i < shape.size(); ++i) {
    os << (i ? ", " : "");
    if (shape[i] < 0)
      os << "?";
    else
      os << shape[i];
  }
  os << (shape.size() == 1 ? ",))" : "))");
  return os.str();
}

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
                                           StringRef fallback,
                                           StringRef what) {
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
        if (!isa<OpResult>(shape.value) ||
            shape.value.getDefiningOp() != op)
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
      std::string role = name.ends_with("rowptr") ? "rowptr"
                         : name.ends_with("order") ? "order"
                                                   : "node";
      contract.indices.push_back({argument, shape.name, role});
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
  return signature;
}

//===----------------------------------------------------------------------===//
// Checking inputs
//===----------------------------------------------------------------------===//

llvm::Error
EntrySignature::checkInputs(const std::vector<HostTensor> &inputs) const {
  if (inputs.size() != arguments.size())
    return llvm::createStringError(
        "@" + function + " takes " + std::to_string(arguments.size()) +
        " inputs, but " + std::to_string(inputs.size()) + " were given");
  for (size_t i = 0; i < inputs.size(); ++i) {
    const TensorPort &port = arguments[i];
    const HostTensor &input = inputs[i];
    bool shapeOk = input.shape.size() == port.shape.size();
    for (size_t axis = 0; shapeOk && axis < port.shape.size(); ++axis)
      shapeOk = port.shape[axis] < 0 || port.shape[axis] == input.shape[axis];
    if (input.type != port.type || !shapeOk)
      return llvm::createStringError("input " + port.describe() +
                                     " was given " + input.describe());
  }

  for (const OpContract &contract : contracts) {
    std::map<std::string, int64_t> sizes;
    for (const auto &[symbol, extents] : contract.extents) {
      std::optional<std::pair<int64_t, const GraphExtent *>> first;
      for (const GraphExtent &extent : extents) {
        int64_t value =
            inputs[extent.argument].shape[extent.axis] - extent.offset;
        if (!first) {
          first = {value, &extent};
          continue;
        }
        if (value != first->first) {
          auto name = [&](const GraphExtent &e) {
            return "'" + arguments[e.argument].name + "' (dimension " +
                   std::to_string(e.axis) + " is " +
                   std::to_string(inputs[e.argument].shape[e.axis]) + ")";
          };
          return llvm::createStringError(
              "inputs disagree on the graph size " + symbol + " of " +
              contract.op + ": " + name(*first->second) + " gives " + symbol +
              " = " + std::to_string(first->first) + ", " + name(extent) +
              " gives " + symbol + " = " + std::to_string(value));
        }
      }
      if (first)
        sizes[symbol] = first->first;
    }
    for (const OpContract::IndexInput &index : contract.indices) {
      const HostTensor &tensor = inputs[index.argument];
      std::string where = "input '" + arguments[index.argument].name +
                          "' (operand '" + index.operand + "' of " +
                          contract.op + ")";
      int64_t count = tensor.numElements();
      if (index.role == "node") {
        auto nodes = sizes.find("N");
        if (nodes == sizes.end())
          continue;
        for (int64_t i = 0; i < count; ++i) {
          int64_t v = tensor.indexAt(i);
          if (v < 0 || v >= nodes->second)
            return llvm::createStringError(
                where + ": entry " + std::to_string(i) + " is " +
                std::to_string(v) + ", not a node index in [0, " +
                std::to_string(nodes->second) + ")");
        }
      } else if (index.role == "order") {
        std::vector<bool> used(count, false);
        for (int64_t i = 0; i < count; ++i) {
          int64_t v = tensor.indexAt(i);
          if (v < 0 || v >= count || used[v])
            return llvm::createStringError(
                where + ": entry " + std::to_string(i) + " is " +
                std::to_string(v) + "; a CSR order must list each edge 0.." +
                std::to_string(count - 1) + " exactly once");
          used[v] = true;
        }
      } else {
        auto edges = sizes.find("E");
        int64_t last = count == 0 ? 0 : tensor.indexAt(count - 1);
        if (count == 0 || tensor.indexAt(0) != 0 ||
            (edges != sizes.end() && last != edges->second))
          return llvm::createStringError(
              where + ": row pointers must start at 0 and end at the edge "
                      "count" +
              (edges != sizes.end() ? " E = " + std::to_string(edges->second)
                                    : std::string()));
        for (int64_t i = 1; i < count; ++i)
          if (tensor.indexAt(i) < tensor.indexAt(i - 1))
            return llvm::createStringError(
                where + ": row pointers must not decrease, but entry " +
                std::to_string(i) + " is " + std::to_string(tensor.indexAt(i)) +
                " after " + std::to_string(tensor.indexAt(i - 1)));
      }
    }
  }
  return llvm::Error::success();
}
