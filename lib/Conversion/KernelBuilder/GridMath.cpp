//===- GridMath.cpp - what the grid products' kernels share ---------------===//

#include "GridMath.h"

using namespace mlir;
using namespace mlir::sezm::kernel;

namespace {
/// sum_j values[j] * row[j], in order from the first product.
Num dotInOrder(ArrayRef<Num> values, ArrayRef<Num> row) {
  Num sum = values[0] * row[0];
  for (size_t j = 1; j < values.size(); ++j)
    sum = sum + values[j] * row[j];
  return sum;
}
} // namespace

SmallVector<Num> mlir::sezm::kernel::loadGridCoefficients(Emitter &em,
                                                          Value field,
                                                          int64_t count, Idx n,
                                                          Idx c) {
  SmallVector<Num> values;
  for (int64_t j = 0; j < count; ++j)
    values.push_back(em.load(field, {n, Idx(j), c}));
  return values;
}

Num mlir::sezm::kernel::gridValue(ArrayRef<Num> a, ArrayRef<Num> b,
                                  ArrayRef<Num> to) {
  return dotInOrder(a, to) * dotInOrder(b, to);
}

SmallVector<Num> mlir::sezm::kernel::addGridPoint(ArrayRef<Num> partial,
                                                  Num value,
                                                  ArrayRef<Num> from) {
  SmallVector<Num> next;
  for (auto [sum, weight] : llvm::zip_equal(partial, from))
    next.push_back(sum + value * weight);
  return next;
}

SmallVector<Num> mlir::sezm::kernel::addGridPointGradient(
    ArrayRef<Num> partial, ArrayRef<Num> grad, ArrayRef<Num> a, ArrayRef<Num> b,
    ArrayRef<Num> to, ArrayRef<Num> from) {
  Num onGrid = dotInOrder(grad, from);
  Num toA = onGrid * dotInOrder(b, to), toB = onGrid * dotInOrder(a, to);
  size_t count = a.size();
  SmallVector<Num> next;
  for (size_t i = 0; i < count; ++i)
    next.push_back(partial[i] + toA * to[i]);
  for (size_t i = 0; i < count; ++i)
    next.push_back(partial[count + i] + toB * to[i]);
  return next;
}
