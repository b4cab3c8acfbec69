//===- ReverseMode.cpp - the tensor helpers derivative rules share --------===//

#include "SeZM/Dialect/SeZM/ReverseMode.h"

#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::sezm;

LogicalResult ReverseMode::addGathered(Operation *op, Value x, Value src,
                                       Value nodeGrad) {
  if (!isActive(x))
    return success();
  auto bySrc = csrOf(op, src);
  if (failed(bySrc))
    return failure();
  add(x, SegmentReduceOp::create(b, loc, x.getType(), nodeGrad, bySrc->first,
                                 bySrc->second));
  return success();
}

Value ReverseMode::emptyLike(Value like) {
  return tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, like),
                                 getElementTypeOrSelf(like.getType()));
}

Value ReverseMode::edgeFrameOf(Value focusMajor, int64_t rows) {
  auto type = cast<RankedTensorType>(focusMajor.getType());
  int64_t streams = type.getDimSize(0), streamWidth = type.getDimSize(2) / rows;
  Type element = type.getElementType();
  OpFoldResult edges = tensor::getMixedSize(b, loc, focusMajor, 1);
  // (F, E, Dm*Cf) -> (F, E, Dm, Cf) -> (E, Dm, F, Cf) -> (E, Dm, C).
  Value split = tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get({streams, type.getDimSize(1), rows, streamWidth},
                            element),
      focusMajor, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}},
      SmallVector<OpFoldResult>{b.getIndexAttr(streams), edges,
                                b.getIndexAttr(rows),
                                b.getIndexAttr(streamWidth)});
  Value init = tensor::EmptyOp::create(
      b, loc,
      SmallVector<OpFoldResult>{edges, b.getIndexAttr(rows),
                                b.getIndexAttr(streams),
                                b.getIndexAttr(streamWidth)},
      element);
  Value edgeMajor = linalg::TransposeOp::create(b, loc, split, init,
                                                ArrayRef<int64_t>{1, 2, 0, 3})
                        .getResult()[0];
  return tensor::CollapseShapeOp::create(
      b, loc, edgeMajor, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
}

Value ReverseMode::transposed(Value matrix) {
  OpFoldResult rows = tensor::getMixedSize(b, loc, matrix, 0);
  OpFoldResult columns = tensor::getMixedSize(b, loc, matrix, 1);
  Value init = tensor::EmptyOp::create(b, loc, {columns, rows},
                                       getElementTypeOrSelf(matrix.getType()));
  return linalg::TransposeOp::create(b, loc, matrix, init,
                                     ArrayRef<int64_t>{1, 0})
      .getResult()[0];
}

Value ReverseMode::matmul(Value a, Value bMat) {
  Type element = getElementTypeOrSelf(a.getType());
  Value empty = tensor::EmptyOp::create(b, loc,
                                        {tensor::getMixedSize(b, loc, a, 0),
                                         tensor::getMixedSize(b, loc, bMat, 1)},
                                        element);
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0));
  Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  return linalg::MatmulOp::create(b, loc, ValueRange{a, bMat}, ValueRange{init})
      .getResult(0);
}

Value ReverseMode::sumOver(Value input, ArrayRef<int64_t> dimensions) {
  Type element = getElementTypeOrSelf(input.getType());
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  SmallVector<OpFoldResult> kept;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(dimensions, d))
      kept.push_back(tensor::getMixedSize(b, loc, input, d));
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(element, 0.0));
  Value empty = tensor::EmptyOp::create(b, loc, kept, element);
  Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  return linalg::ReduceOp::create(
             b, loc, ValueRange{input}, ValueRange{init}, dimensions,
             [](OpBuilder &nested, Location l, ValueRange args) {
               Value sum = arith::AddFOp::create(nested, l, args[0], args[1]);
               linalg::YieldOp::create(nested, l, sum);
             })
      .getResult(0);
}

Value ReverseMode::fullSum(Value input) {
  int64_t rank = cast<RankedTensorType>(input.getType()).getRank();
  return sumOver(input, llvm::to_vector(llvm::seq<int64_t>(0, rank)));
}
