//===- SeZMDialect.cpp - the sezm dialect ---------------------------------===//

#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "SeZM/Dialect/SeZM/SeZMOps.h"

using namespace mlir;
using namespace mlir::sezm;

#include "SeZM/Dialect/SeZM/SeZMOpsDialect.cpp.inc"

void SeZMDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "SeZM/Dialect/SeZM/SeZMOps.cpp.inc"
      >();
}

std::string sezm::argumentName(FunctionOpInterface func, unsigned index) {
  if (auto name = func.getArgAttrOfType<StringAttr>(index, kNameAttr))
    return name.getValue().str();
  return "arg" + std::to_string(index);
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
  if (name == "sezm.training" || name == "sezm.create_graph") {
    if (!isa<UnitAttr>(attribute.getValue()))
      return op->emitError() << "'" << name << "' takes no value";
    return success();
  }
  return op->emitError() << "unknown sezm attribute '" << name << "'";
}

LogicalResult SeZMDialect::verifyRegionArgAttribute(Operation *op, unsigned,
                                                    unsigned argIndex,
                                                    NamedAttribute attribute) {
  return verifyPortName(op, attribute, "argument", argIndex);
}

LogicalResult SeZMDialect::verifyRegionResultAttribute(
    Operation *op, unsigned, unsigned resultIndex, NamedAttribute attribute) {
  return verifyPortName(op, attribute, "result", resultIndex);
}
