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
