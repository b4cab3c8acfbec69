//===- SeZMShapes.h - shape checks for sezm op verifiers --------*- C++ -*-===//
//
// Verifiers describe each operand's expected shape with named dimensions;
// ShapeChecker reports the first mismatch as a diagnostic that names the
// operand, the shape it expected and the type it has.
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_LIB_DIALECT_SEZM_SEZMSHAPES_H
#define SEZM_LIB_DIALECT_SEZM_SEZMSHAPES_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"

#include <optional>
#include <string>

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

class ShapeChecker {
public:
  /// `context` is appended to shape diagnostics to say where fixed extents
  /// come from, e.g. "for lmax = 3".
  ShapeChecker(Operation *op, std::string context = "")
      : op(op), context(std::move(context)) {}

  /// Checks that `value` (named `name` in diagnostics) is a tensor of `kind`
  /// elements with shape `dims`, binding graph and channel symbols on first
  /// sight and requiring later uses to agree.
  LogicalResult check(StringRef name, Value value, ElementKind kind,
                      ArrayRef<Dim> dims);

  /// The static extent bound to a symbol, if any.
  std::optional<int64_t> extent(StringRef symbol) const;

  /// Replaces the context used by later diagnostics.
  void setContext(std::string newContext) { context = std::move(newContext); }

private:
  InFlightDiagnostic shapeError(StringRef name, Type type, ArrayRef<Dim> dims);

  Operation *op;
  std::string context;
  struct Binding {
    int64_t extent;
    std::string source;
  };
  llvm::StringMap<Binding> bindings;
  Type floatType;
  std::string floatSource;
};

/// Checks that `value` (named `name`) has the type of `input`, which a
/// ShapeChecker has checked before.
LogicalResult checkSameType(Operation *op, StringRef name, Value value,
                            StringRef inputName, Value input);

/// Checks that lmax lies in the supported range.
LogicalResult verifyLmax(Operation *op, int64_t lmax);

} // namespace mlir::sezm

#endif // SEZM_LIB_DIALECT_SEZM_SEZMSHAPES_H
