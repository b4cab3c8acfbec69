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

/// `sezm.name` on a function argument or result: a non-empty string.
static LogicalResult verifyPortName(Operation *op, NamedAttribute attribute,
                                    StringRef what, unsigned index) {
  if (attribute.getName() != "sezm.name")
    return op->emitError() << "unknown sezm attribute '"
                           << attribute.getName().getValue() << "' on " << what
                           << " " << index;
  auto name = dyn_cast<StringAttr>(attribute.getValue());
  if (!name || name.getValue().empty())
    return op->emitError() << "'sezm.name' of " << what << " " << index
                           << " must be a non-empty string";
  return success();
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
