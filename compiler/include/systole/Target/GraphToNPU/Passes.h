//===- Passes.h - Graph dialect -> npu dialect ------------------*- C++ -*-===//
#ifndef SYSTOLE_TARGET_GRAPHTONPU_PASSES_H
#define SYSTOLE_TARGET_GRAPHTONPU_PASSES_H

#include "systole/Dialect/NPU/NPUDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace systole::conversion {

#define GEN_PASS_DECL
#include "systole/Target/GraphToNPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "systole/Target/GraphToNPU/Passes.h.inc"

} // namespace systole::conversion

#endif // SYSTOLE_TARGET_GRAPHTONPU_PASSES_H
