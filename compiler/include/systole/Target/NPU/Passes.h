//===- Passes.h - NPU lowering passes ---------------------------*- C++ -*-===//
#ifndef SYSTOLE_TARGET_NPU_PASSES_H
#define SYSTOLE_TARGET_NPU_PASSES_H

#include "systole/Dialect/Graph/GraphOps.h"
#include "systole/Dialect/NPU/NPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Pass/Pass.h"

namespace systole::npu {

#define GEN_PASS_DECL
#include "systole/Target/NPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "systole/Target/NPU/Passes.h.inc"

} // namespace systole::npu

#endif // SYSTOLE_TARGET_NPU_PASSES_H
