//===- ShapeContract.cpp - the shape contract of a sezm op ----------------===//

#include "SeZM/Dialect/SeZM/ShapeContract.h"

#include "SeZM/Dialect/SeZM/SO2Layout.h"
#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using namespace mlir::sezm;

LogicalResult mlir::sezm::verifyShapeContract(Operation *op) {
  ShapeChecker shapes(op);
  return cast<ShapeContractOpInterface>(op).verifyShapes(shapes);
}

SmallVector<CheckedShape> mlir::sezm::collectCheckedShapes(Operation *op) {
  SmallVector<CheckedShape> log;
  auto contract = dyn_cast<ShapeContractOpInterface>(op);
  if (!contract)
    return log;
  ShapeChecker shapes(op, &log);
  if (failed(contract.verifyShapes(shapes)))
    log.clear();
  return log;
}

static std::string formatDims(ArrayRef<Dim> dims) {
  std::string text = "(";
  llvm::raw_string_ostream os(text);
  llvm::interleaveComma(dims, os, [&](const Dim &dim) {
    if (dim.kind == Dim::Kind::Fixed) {
      os << dim.value;
      return;
    }
    os << dim.name;
    if (dim.value > 0)
      os << "+" << dim.value;
  });
  os << ")";
  return text;
}

InFlightDiagnostic ShapeChecker::shapeError(StringRef name, Type type,
                                            ArrayRef<Dim> dims) {
  InFlightDiagnostic diag = op->emitOpError()
                            << "'" << name << "' must have shape "
                            << formatDims(dims);
  if (!context.empty())
    diag << " " << context;
  diag << ", but has type " << type;
  return diag;
}

LogicalResult ShapeChecker::check(StringRef name, Value value, ElementKind kind,
                                  ArrayRef<Dim> dims) {
  // ODS has already required a ranked tensor.
  auto type = cast<RankedTensorType>(value.getType());
  if (log) {
    CheckedShape &entry = log->emplace_back();
    entry.value = value;
    entry.name = name.str();
    entry.isIndex = kind == ElementKind::Index;
    for (const Dim &dim : dims)
      entry.axes.emplace_back(dim.kind == Dim::Kind::Graph ? dim.name.str()
                                                           : std::string(),
                              dim.kind == Dim::Kind::Graph ? dim.value : 0);
  }

  Type elementType = type.getElementType();
  if (kind == ElementKind::Index) {
    if (!elementType.isSignlessInteger(32) &&
        !elementType.isSignlessInteger(64))
      return op->emitOpError()
             << "'" << name << "' must hold i32 or i64 indices, but has type "
             << type;
  } else {
    if (!elementType.isF32() && !elementType.isF64())
      return op->emitOpError()
             << "'" << name << "' must hold f32 or f64 values, but has type "
             << type;
    if (!floatType) {
      floatType = elementType;
      floatSource = name.str();
    } else if (floatType != elementType) {
      return op->emitOpError()
             << "'" << name << "' has element type " << elementType << ", but '"
             << floatSource << "' has " << floatType
             << "; all floating-point operands and results must agree";
    }
  }

  if (type.getRank() != static_cast<int64_t>(dims.size()))
    return shapeError(name, type, dims);

  for (auto [axis, dim] : llvm::enumerate(dims)) {
    int64_t actual = type.getDimSize(axis);
    if (dim.kind == Dim::Kind::Fixed) {
      if (actual != dim.value)
        return shapeError(name, type, dims);
      continue;
    }
    if (ShapedType::isDynamic(actual)) {
      if (dim.kind == Dim::Kind::Channel)
        return op->emitOpError()
               << "dimension " << axis << " (" << dim.name << ") of '" << name
               << "' must be static, but has type " << type;
      continue;
    }
    int64_t symbolExtent = actual - dim.value;
    auto [it, inserted] =
        bindings.try_emplace(dim.name, Binding{symbolExtent, name.str()});
    if (inserted || it->second.extent == symbolExtent)
      continue;
    InFlightDiagnostic diag =
        op->emitOpError() << "dimension " << axis << " of '" << name << "' is "
                          << actual << ", but '" << it->second.source
                          << "' has " << dim.name << " = " << it->second.extent;
    if (dim.value > 0)
      diag << " (expected " << dim.name << "+" << dim.value << " = "
           << it->second.extent + dim.value << ")";
    return diag;
  }
  return success();
}

std::optional<int64_t> ShapeChecker::extent(StringRef symbol) const {
  auto it = bindings.find(symbol);
  if (it == bindings.end())
    return std::nullopt;
  return it->second.extent;
}

LogicalResult mlir::sezm::verifyLmax(Operation *op, int64_t lmax) {
  if (lmax < 0 || lmax > kMaxLmax)
    return op->emitOpError()
           << "lmax = " << lmax << " is outside the supported range 0.."
           << kMaxLmax;
  return success();
}

LogicalResult ShapeChecker::checkSameType(StringRef name, Value value,
                                          StringRef inputName, Value input) {
  if (value.getType() != input.getType())
    return op->emitOpError()
           << "'" << name << "' must have the type of '" << inputName << "', "
           << input.getType() << ", but has type " << value.getType();
  if (log) {
    auto it = llvm::find_if(
        *log, [&](const CheckedShape &entry) { return entry.value == input; });
    if (it != log->end()) {
      CheckedShape copy = *it;
      copy.value = value;
      copy.name = name.str();
      log->push_back(std::move(copy));
    }
  }
  return success();
}
