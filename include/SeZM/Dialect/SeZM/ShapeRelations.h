//===- ShapeRelations.h - the shape relations a verifier checks -*- C++ -*-===//
//
// The verifiers of sezm ops are the single statement of which dimensions
// of which operands are the graph sizes N and E. Tools that check inputs at
// run time (where N and E are known) ask the verifier rather than restate it.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_DIALECT_SEZM_SHAPERELATIONS_H
#define SEZM_DIALECT_SEZM_SHAPERELATIONS_H

#include "mlir/IR/Operation.h"

#include <string>
#include <utility>

namespace mlir::sezm {

/// How a verifier saw one operand or result of an op.
struct CheckedShape {
  Value value;
  /// The operand or result name used in diagnostics.
  std::string name;
  /// Whether it holds node or edge indices.
  bool isIndex;
  /// Per axis: the graph size it is ("N" or "E") and the offset (1 for the
  /// N+1 row pointers), or an empty name for other extents.
  SmallVector<std::pair<std::string, int64_t>> axes;
};

/// Runs the verifier of `op` and returns what it checked, in order; empty
/// when `op` is not a sezm op or does not verify.
SmallVector<CheckedShape> collectCheckedShapes(Operation *op);

} // namespace mlir::sezm

#endif // SEZM_DIALECT_SEZM_SHAPERELATIONS_H
