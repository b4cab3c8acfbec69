//===- ReverseMode.h - what a derivative rule sees of the sweep -*- C++ -*-===//
//
// DerivativeOpInterface::backpropagate adds the cotangents of an op's
// operands through a ReverseMode: sezm-autodiff's reverse sweep implements
// the bookkeeping (which values are active, where each cotangent stands,
// the CSRs of the edge indices); the tensor helpers that rules share are
// here.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_DIALECT_SEZM_REVERSEMODE_H
#define SEZM_DIALECT_SEZM_REVERSEMODE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Value.h"

#include <utility>

namespace mlir::sezm {

class ReverseMode {
public:
  ReverseMode(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}
  virtual ~ReverseMode() = default;

  /// Where the rules build the backward, and the location of what they
  /// build.
  OpBuilder &builder() { return b; }
  Location getLoc() const { return loc; }

  /// Whether `value` depends on what is differentiated.
  virtual bool isActive(Value value) const = 0;
  /// Adds `cotangent` to that of `value` if `value` is active.
  virtual void add(Value value, Value cotangent) = 0;
  /// The CSR (order, rowptr) of the edges by the edge index argument `keys`.
  virtual FailureOr<std::pair<Value, Value>> csrOf(Operation *op,
                                                   Value keys) = 0;
  /// The edge index argument whose CSR `order` is.
  virtual FailureOr<Value> keysOfCsr(Operation *op, Value order) = 0;
  /// Records the edge vectors, their gradient and the edges' CSRs (order,
  /// rowptr) by source and by destination, of which the virial and the
  /// per-atom virial are made.
  virtual void recordEdgeVectors(Value edgeVectors, Value gradient,
                                 std::pair<Value, Value> bySrc,
                                 std::pair<Value, Value> byDst) = 0;

  /// Adds to the features `x`, gathered per edge by `src`, their per-edge
  /// gradient `nodeGrad` summed over each source node's edges (the source
  /// CSR).
  LogicalResult addGathered(Operation *op, Value x, Value src, Value nodeGrad);

  /// An uninitialized tensor of the shape and type of `like`.
  Value emptyLike(Value like);
  /// `matrix` transposed (a rank-2 linalg.transpose).
  Value transposed(Value matrix);
  /// A @ B as linalg.matmul into a zero-filled (rows of a, columns of b).
  Value matmul(Value a, Value bMat);
  /// The sum of `input` over `dimensions` (ascending), of the rank left.
  Value sumOver(Value input, ArrayRef<int64_t> dimensions);
  /// The sum of every element of `input`, as a rank-0 tensor.
  Value fullSum(Value input);
  /// The edge-frame (E, rows, C) tensor of a focus-major (F, E, rows*Cf)
  /// one.
  Value edgeFrameOf(Value focusMajor, int64_t rows);

private:
  OpBuilder &b;
  Location loc;
};

} // namespace mlir::sezm

#endif // SEZM_DIALECT_SEZM_REVERSEMODE_H
