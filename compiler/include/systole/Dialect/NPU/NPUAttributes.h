//===- NPUAttributes.h - npu dialect attributes -----------------*- C++ -*-===//
//
// The npu dialect's attributes without its ops: what the graph-level NPU
// passes write on graph ops (placement, tile plans), for code that includes
// the graph dialect's ops, whose names the instruction ops share.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_DIALECT_NPU_NPUATTRIBUTES_H
#define SYSTOLE_DIALECT_NPU_NPUATTRIBUTES_H

#include "systole/Dialect/NPU/NPUDialect.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"

#include "systole/Dialect/NPU/NPUEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "systole/Dialect/NPU/NPUAttrs.h.inc"

#endif // SYSTOLE_DIALECT_NPU_NPUATTRIBUTES_H
