//===- RowExtent.cpp - a tensor's rows as a multiple of N or E ------------===//

#include "SeZM/Dialect/SeZM/RowExtent.h"

#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "SeZM/Dialect/SeZM/ShapeContract.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::sezm;

namespace {
/// Enough steps for any chain of views and inits in a model; a longer one
/// ends the trace rather than the compile.
constexpr int kMaxDepth = 64;

std::optional<RowExtent> traceRows(Value tensor, int depth);

/// The extent an index value holds: the first axis of a tensor through
/// tensor.dim.
std::optional<RowExtent> traceIndex(Value index, int depth) {
  if (auto dim = index.getDefiningOp<tensor::DimOp>())
    if (std::optional<int64_t> axis = dim.getConstantIndex(); axis == 0)
      return traceRows(dim.getSource(), depth + 1);
  return std::nullopt;
}

/// `extent` times the static sizes of `axes` of `type`; nullopt where one
/// is dynamic.
std::optional<RowExtent> times(std::optional<RowExtent> extent,
                               RankedTensorType type, ArrayRef<int64_t> axes) {
  if (!extent)
    return std::nullopt;
  for (int64_t axis : axes) {
    if (type.isDynamicDim(axis))
      return std::nullopt;
    extent->factor *= type.getDimSize(axis);
  }
  return extent;
}

std::optional<RowExtent> traceRows(Value tensor, int depth) {
  auto type = dyn_cast<RankedTensorType>(tensor.getType());
  if (!type || type.getRank() == 0 || depth > kMaxDepth)
    return std::nullopt;
  if (!type.isDynamicDim(0))
    return std::nullopt;
  if (auto arg = dyn_cast<BlockArgument>(tensor)) {
    auto func = dyn_cast<FunctionOpInterface>(arg.getOwner()->getParentOp());
    if (!func || arg.getOwner() != &func.getFunctionBody().front())
      return std::nullopt;
    auto extents =
        func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), kExtentsAttr);
    if (!extents || extents.empty())
      return std::nullopt;
    auto entry = dyn_cast<StringAttr>(extents[0]);
    std::optional<ExtentName> name =
        entry ? parseExtentName(entry.getValue()) : std::nullopt;
    if (!name)
      return std::nullopt;
    return RowExtent{name->symbol, 1};
  }
  Operation *def = tensor.getDefiningOp();
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def)) {
    ReassociationIndices group = collapse.getReassociationIndices().front();
    return times(traceRows(collapse.getSrc(), depth + 1), collapse.getSrcType(),
                 ArrayRef(group).drop_front());
  }
  if (auto expand = dyn_cast<tensor::ExpandShapeOp>(def)) {
    OpFoldResult size = expand.getMixedOutputShape().front();
    if (auto value = dyn_cast<Value>(size))
      return traceIndex(value, depth);
    return std::nullopt;
  }
  if (auto empty = dyn_cast<tensor::EmptyOp>(def))
    return traceIndex(empty.getDynamicSizes().front(), depth);
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(def))
    return traceRows(dps.getTiedOpOperand(cast<OpResult>(tensor))->get(),
                     depth + 1);
  if (def->hasTrait<OpTrait::Elementwise>())
    for (Value operand : def->getOperands())
      if (isa<RankedTensorType>(operand.getType()))
        return traceRows(operand, depth + 1);
  if (isa<SeZMDialect>(def->getDialect()))
    for (const CheckedShape &shape : collectCheckedShapes(def))
      if (shape.value == tensor && !shape.axes.empty() &&
          !shape.axes.front().first.empty())
        return RowExtent{shape.axes.front().first, 1};
  return std::nullopt;
}
} // namespace

std::optional<RowExtent> sezm::traceRowExtent(Value tensor) {
  return traceRows(tensor, 0);
}
