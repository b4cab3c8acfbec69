//===- EntrySignature.h - the inputs and outputs of an entry ----*- C++ -*-===//
//
// What a caller must pass to an entry function and what it gets back: each
// argument and result with its name (the `sezm.name` attribute, else
// arg<i> / result<i>), element type and shape (-1 for a dynamic extent),
// and the run-time contracts that the sezm ops place on the inputs (graph
// sizes that must agree, index arrays that must stay in range).
//
//===----------------------------------------------------------------------===//
#ifndef SEZM_EXECUTION_ENTRYSIGNATURE_H
#define SEZM_EXECUTION_ENTRYSIGNATURE_H

#include "SeZM/Support/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace mlir::sezm {

/// The attribute that names a function argument or result.
constexpr llvm::StringLiteral kNameAttr = "sezm.name";

struct TensorPort {
  std::string name;
  ::sezm::ElementType type;
  std::vector<int64_t> shape; // -1: dynamic
  std::string describe() const;
};

/// One dimension of a value, as an op's verifier names it: the graph size
/// `symbol` (N or E) plus `offset`.
struct GraphExtent {
  /// The value's position: an argument index, or -1 for an intermediate.
  int argument;
  unsigned axis;
  int64_t offset;
};

/// What one sezm op requires of its inputs at run time.
struct OpContract {
  std::string op;       // "sezm.rotate at model.mlir:12:8"
  /// Dimensions that must agree, per graph symbol.
  std::vector<std::pair<std::string, std::vector<GraphExtent>>> extents;
  /// Index arrays passed straight from arguments, with their role: "node"
  /// (below N), "order" (a permutation of 0..E-1) or "rowptr" (0 up to E,
  /// non-decreasing).
  struct IndexInput {
    int argument;
    std::string operand;
    std::string role;
  };
  std::vector<IndexInput> indices;
};

struct EntrySignature {
  std::string function;
  std::vector<TensorPort> arguments, results;
  std::vector<OpContract> contracts;

  /// Checks inputs (in argument order) against the ports and the contracts;
  /// the error names the argument and what it expected.
  llvm::Error checkInputs(const std::vector<::sezm::HostTensor> &inputs) const;
};

/// Reads the signature of the public function `entry` (or of the only
/// public function when `entry` is empty).
llvm::Expected<EntrySignature> getEntrySignature(ModuleOp module,
                                                 StringRef entry);

} // namespace mlir::sezm

#endif // SEZM_EXECUTION_ENTRYSIGNATURE_H
