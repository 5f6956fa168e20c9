//===- NPUDialect.h - The npu dialect ---------------------------*- C++ -*-===//
#ifndef SYSTOLE_DIALECT_NPU_NPUDIALECT_H
#define SYSTOLE_DIALECT_NPU_NPUDIALECT_H

#include "mlir/IR/Dialect.h"

#include "systole/Dialect/NPU/NPUDialect.h.inc"

#endif // SYSTOLE_DIALECT_NPU_NPUDIALECT_H
