//===- SeZMDialect.cpp - the sezm dialect ---------------------------------===//

#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "SeZM/Dialect/SeZM/SeZMOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::sezm;

#include "SeZM/Dialect/SeZM/SeZMEnums.cpp.inc"
#include "SeZM/Dialect/SeZM/SeZMInterfaces.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "SeZM/Dialect/SeZM/SeZMAttrs.cpp.inc"
#include "SeZM/Dialect/SeZM/SeZMOpsDialect.cpp.inc"

namespace {
/// sezm ops compute values from their operands alone: a call to a function
/// made of them (an energy's forces called by a force loss) can be inlined.
struct SeZMInlinerInterface : DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void SeZMDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "SeZM/Dialect/SeZM/SeZMOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "SeZM/Dialect/SeZM/SeZMAttrs.cpp.inc"
      >();
  addInterfaces<SeZMInlinerInterface>();
}

GemmPrecision KernelConfigAttr::getProductPrecision(unsigned product) const {
  ArrayRef<GemmPrecision> precisions = getPrecision();
  if (precisions.empty())
    return GemmPrecision::IEEE;
  if (precisions.size() == 1)
    return precisions.front();
  return product < precisions.size() ? precisions[product]
                                     : GemmPrecision::IEEE;
}

bool KernelConfigAttr::usesTensorCores() const {
  return llvm::is_contained(getPrecision(), GemmPrecision::TF32x3);
}

ArrayRef<int64_t>
KernelConfigAttr::getProductWorkgroupTile(unsigned product) const {
  ArrayRef<int64_t> tiles = getWorkgroupTile();
  if (tiles.size() < 3 * (product + 1))
    return {};
  return tiles.slice(3 * product, 3);
}

ArrayRef<int64_t>
KernelConfigAttr::getProductInnerTile(unsigned product) const {
  // The products before this one of the same precision come first in its
  // list.
  GemmPrecision precision = getProductPrecision(product);
  unsigned index = 0;
  for (unsigned earlier = 0; earlier < product; ++earlier)
    if (getProductPrecision(earlier) == precision)
      ++index;
  ArrayRef<int64_t> tiles =
      precision == GemmPrecision::TF32x3 ? getWarpTile() : getThreadTile();
  if (tiles.size() < 2 * (index + 1))
    return {};
  return tiles.slice(2 * index, 2);
}

std::string sezm::argumentName(FunctionOpInterface func, unsigned index) {
  if (auto name = func.getArgAttrOfType<StringAttr>(index, kNameAttr))
    return name.getValue().str();
  return "arg" + std::to_string(index);
}

std::optional<ExtentName> sezm::parseExtentName(StringRef text) {
  size_t split = text.find_first_of("+-");
  StringRef symbol = text.take_front(split),
            rest = text.drop_front(symbol.size());
  if (symbol.empty() || !(isalpha(symbol.front()) || symbol.front() == '_') ||
      !llvm::all_of(symbol, [](char c) { return isalnum(c) || c == '_'; }))
    return std::nullopt;
  ExtentName name{symbol.str(), 0};
  if (rest.empty())
    return name;
  bool negative = rest.front() == '-';
  uint64_t magnitude;
  if (rest.drop_front().getAsInteger(10, magnitude) ||
      magnitude > static_cast<uint64_t>(INT64_MAX))
    return std::nullopt;
  name.offset = negative ? -static_cast<int64_t>(magnitude)
                         : static_cast<int64_t>(magnitude);
  return name;
}

/// `sezm.extents` on a function argument: one name (or "") per dimension.
static LogicalResult verifyExtents(Operation *op, NamedAttribute attribute,
                                   unsigned index) {
  auto error = [&]() {
    return op->emitError() << "'" << kExtentsAttr.str() << "' of argument "
                           << index << " ";
  };
  auto entries = dyn_cast<ArrayAttr>(attribute.getValue());
  if (!entries)
    return error() << "must be an array of strings";
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (func && index < func.getNumArguments()) {
    auto type = dyn_cast<ShapedType>(func.getArgumentTypes()[index]);
    if (!type || !type.hasRank() ||
        type.getRank() != static_cast<int64_t>(entries.size()))
      return error() << "must name each of the argument's "
                     << (type && type.hasRank() ? type.getRank() : 0)
                     << " dimensions, but has " << entries.size() << " entries";
  }
  for (Attribute entry : entries) {
    auto text = dyn_cast<StringAttr>(entry);
    if (!text)
      return error() << "must be an array of strings";
    if (!text.getValue().empty() && !parseExtentName(text.getValue()))
      return error() << "has '" << text.getValue()
                     << "', which is not a name, optionally plus or minus an "
                        "integer (like \"N+1\")";
  }
  return success();
}

/// `sezm.name` on a function argument or result (and `sezm.csr_of` on an
/// argument): a non-empty string.
static LogicalResult verifyPortName(Operation *op, NamedAttribute attribute,
                                    StringRef what, unsigned index) {
  bool known = attribute.getName() == kNameAttr ||
               (what == "argument" && attribute.getName() == kCsrOfAttr);
  if (!known)
    return op->emitError() << "unknown sezm attribute '"
                           << attribute.getName().getValue() << "' on " << what
                           << " " << index;
  auto name = dyn_cast<StringAttr>(attribute.getValue());
  if (!name || name.getValue().empty())
    return op->emitError() << "'" << attribute.getName().getValue() << "' of "
                           << what << " " << index
                           << " must be a non-empty string";
  return success();
}

LogicalResult SeZMDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attribute) {
  StringRef name = attribute.getName().getValue();
  if (name == "sezm.schedule") {
    auto value = dyn_cast<StringAttr>(attribute.getValue());
    if (!value ||
        (value.getValue() != "inference" && value.getValue() != "training"))
      return op->emitError()
             << "'sezm.schedule' must be \"inference\" or \"training\"";
    return success();
  }
  if ((name == kTypeMapAttr || name == kRcutAttr) && !isa<ModuleOp>(op))
    return op->emitError() << "'" << name
                           << "' describes the model: it belongs on the module";
  if (name == kTypeMapAttr) {
    auto names = dyn_cast<ArrayAttr>(attribute.getValue());
    if (!names || names.empty())
      return op->emitError()
             << "'" << name << "' must be a non-empty array of species names";
    llvm::StringSet<> seen;
    for (Attribute element : names) {
      auto species = dyn_cast<StringAttr>(element);
      if (!species || species.getValue().empty() ||
          species.getValue().contains(' '))
        return op->emitError() << "'" << name << "' holds " << element
                               << ", which is not a species name";
      if (!seen.insert(species.getValue()).second)
        return op->emitError() << "'" << name << "' names species '"
                               << species.getValue() << "' twice";
    }
    return success();
  }
  if (name == kRcutAttr) {
    auto rcut = dyn_cast<FloatAttr>(attribute.getValue());
    if (!rcut || !(rcut.getValueAsDouble() > 0) ||
        !std::isfinite(rcut.getValueAsDouble()))
      return op->emitError()
             << "'" << name << "' must be a positive cutoff radius in A";
    return success();
  }
  if (name == kKernelConfigAttr) {
    if (!isa<KernelConfigAttr>(attribute.getValue()))
      return op->emitError()
             << "'" << name << "' must be a #sezm.kernel_config";
    return success();
  }
  if (name == kTrainingAttr || name == kCreateGraphAttr) {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError() << "'" << name << "' takes no value";
    return success();
  }
  return op->emitError() << "unknown sezm attribute '" << name << "'";
}

LogicalResult SeZMDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                    unsigned argIndex,
                                                    NamedAttribute attribute) {
  if (attribute.getName() == kExtentsAttr)
    return verifyExtents(op, attribute, argIndex);
  return verifyPortName(op, attribute, "argument", argIndex);
}

LogicalResult SeZMDialect::verifyRegionResultAttribute(
    Operation *op, unsigned, unsigned resultIndex, NamedAttribute attribute) {
  return verifyPortName(op, attribute, "result", resultIndex);
}
