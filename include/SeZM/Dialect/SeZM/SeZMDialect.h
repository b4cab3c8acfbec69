//===- SeZMDialect.h - the sezm dialect -------------------------*- C++ -*-===//
#ifndef SEZM_DIALECT_SEZM_SEZMDIALECT_H
#define SEZM_DIALECT_SEZM_SEZMDIALECT_H

#include "mlir/IR/Dialect.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <optional>
#include <string>

#include "SeZM/Dialect/SeZM/SeZMAttrs.h"
#include "SeZM/Dialect/SeZM/SeZMOpsDialect.h.inc"

namespace mlir::sezm {

/// The module attributes of a model: the species its type indices stand
/// for (DeePMD-kit's type_map, an array of names) and its cutoff radius in
/// A (a float). Tools map a structure's species by name and take the
/// cutoff from these.
constexpr llvm::StringLiteral kTypeMapAttr = "sezm.type_map";
constexpr llvm::StringLiteral kRcutAttr = "sezm.rcut";

/// The attribute that names a function argument or result.
constexpr llvm::StringLiteral kNameAttr = "sezm.name";
/// The argument attribute that marks a CSR array (order or rowptr) as the
/// segmentation of the edges by the key argument it names.
constexpr llvm::StringLiteral kCsrOfAttr = "sezm.csr_of";

/// The function attributes of a function whose gradient is differentiated
/// again: one being trained, and a backward built by sezm-autodiff with
/// create-graph. sezm-select-schedule gives both the training schedule.
constexpr llvm::StringLiteral kTrainingAttr = "sezm.training";
constexpr llvm::StringLiteral kCreateGraphAttr = "sezm.create_graph";

/// The argument attribute that names the extents of an argument, one string
/// per dimension ("" for none): a symbol, optionally plus or minus a
/// constant, e.g. ["E"] for edge indices or ["N+1"] for a rowptr.
constexpr llvm::StringLiteral kExtentsAttr = "sezm.extents";

/// One entry of sezm.extents: `symbol` + `offset`.
struct ExtentName {
  std::string symbol;
  int64_t offset = 0;
};
/// Parses "E", "N+1" or "N-1"; nullopt for anything else (including "").
std::optional<ExtentName> parseExtentName(llvm::StringRef text);

/// The name argument `index` of `func` goes by: its sezm.name, else arg<i>.
std::string argumentName(FunctionOpInterface func, unsigned index);

} // namespace mlir::sezm

#endif // SEZM_DIALECT_SEZM_SEZMDIALECT_H
