//===- ShapeContract.h - the shape contract of a sezm op --------*- C++ -*-===//
//
// Each sezm op states the shape of every operand and result with named
// dimensions (ShapeContractOpInterface::verifyShapes). The same statement
// serves the verifier, which reports the first mismatch as a diagnostic
// naming the operand, the shape it expected and the type it has, and the
// tools that check run-time inputs, which ask which axes are the graph sizes
// N and E (collectCheckedShapes) rather than restate it.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_DIALECT_SEZM_SHAPECONTRACT_H
#define SEZM_DIALECT_SEZM_SHAPECONTRACT_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>
#include <utility>

namespace mlir::sezm {

/// One expected dimension of an operand.
struct Dim {
  enum class Kind {
    /// A graph size (N or E, with an offset for N+1): may be dynamic.
    Graph,
    /// A channel-like size (C, F, K, ...): must be static, equal across uses.
    Channel,
    /// A size fixed by the op's attributes.
    Fixed,
  };
  Kind kind;
  StringRef name;
  int64_t value; // offset for Graph, extent for Fixed.

  static Dim graph(StringRef name, int64_t offset = 0) {
    return {Kind::Graph, name, offset};
  }
  static Dim channel(StringRef name) { return {Kind::Channel, name, 0}; }
  static Dim fixed(int64_t extent) { return {Kind::Fixed, "", extent}; }
};

/// What an operand's elements must be.
enum class ElementKind {
  /// f32 or f64; every floating-point operand and result of an op agrees.
  Float,
  /// i32 or i64 node or edge indices.
  Index,
};

/// How a shape contract saw one operand or result of an op.
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

class ShapeChecker {
public:
  /// With `log`, every checked operand is also recorded there.
  explicit ShapeChecker(Operation *op, SmallVector<CheckedShape> *log = nullptr)
      : op(op), log(log) {}

  Operation *getOp() const { return op; }

  /// Checks that `value` (named `name` in diagnostics) is a tensor of `kind`
  /// elements with shape `dims`, binding graph and channel symbols on first
  /// sight and requiring later uses to agree.
  LogicalResult check(StringRef name, Value value, ElementKind kind,
                      ArrayRef<Dim> dims);

  /// Checks that `value` (named `name`) has the type of `input`, which was
  /// checked before.
  LogicalResult checkSameType(StringRef name, Value value, StringRef inputName,
                              Value input);

  /// The static extent bound to a symbol, if any.
  std::optional<int64_t> extent(StringRef symbol) const;

  /// Appended to shape diagnostics to say where fixed extents come from,
  /// e.g. "for lmax = 3"; replaces the one before.
  void setContext(std::string newContext) { context = std::move(newContext); }

private:
  InFlightDiagnostic shapeError(StringRef name, Type type, ArrayRef<Dim> dims);

  Operation *op;
  SmallVector<CheckedShape> *log;
  std::string context;
  struct Binding {
    int64_t extent;
    std::string source;
  };
  llvm::StringMap<Binding> bindings;
  Type floatType;
  std::string floatSource;
};

/// Checks that lmax lies in the supported range.
LogicalResult verifyLmax(Operation *op, int64_t lmax);

/// The verifier of ShapeContractOpInterface: runs the op's contract with a
/// checker that reports the first mismatch.
LogicalResult verifyShapeContract(Operation *op);

/// Runs the shape contract of `op` and returns what it checked, in order;
/// empty when `op` has no contract or does not satisfy it.
SmallVector<CheckedShape> collectCheckedShapes(Operation *op);

} // namespace mlir::sezm

#endif // SEZM_DIALECT_SEZM_SHAPECONTRACT_H
