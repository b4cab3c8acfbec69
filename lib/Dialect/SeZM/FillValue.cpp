//===- FillValue.cpp - the constant a tensor is filled with ---------------===//

#include "SeZM/Dialect/SeZM/FillValue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

std::optional<double> sezm::getConstantFillValue(Value value) {
  auto fill = value.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return std::nullopt;
  auto constant = fill.getInputs()[0].getDefiningOp<arith::ConstantFloatOp>();
  if (!constant)
    return std::nullopt;
  return constant.value().convertToDouble();
}
