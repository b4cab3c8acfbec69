//===- SeZMDialect.h - the sezm dialect -------------------------*- C++ -*-===//
#ifndef SEZM_DIALECT_SEZM_SEZMDIALECT_H
#define SEZM_DIALECT_SEZM_SEZMDIALECT_H

#include "mlir/IR/Dialect.h"

#include "SeZM/Dialect/SeZM/SeZMOpsDialect.h.inc"

#endif // SEZM_DIALECT_SEZM_SEZMDIALECT_H
