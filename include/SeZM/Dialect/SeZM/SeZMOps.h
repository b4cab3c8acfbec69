//===- SeZMOps.h - sezm operations ------------------------------*- C++ -*-===//
#ifndef SEZM_DIALECT_SEZM_SEZMOPS_H
#define SEZM_DIALECT_SEZM_SEZMOPS_H

#include "SeZM/Dialect/SeZM/SeZMDialect.h"
#include "SeZM/Dialect/SeZM/SeZMInterfaces.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "SeZM/Dialect/SeZM/SeZMOps.h.inc"

#endif // SEZM_DIALECT_SEZM_SEZMOPS_H
