//===- Passes.h - npu dialect passes ----------------------------*- C++ -*-===//
#ifndef SYSTOLE_DIALECT_NPU_PASSES_H
#define SYSTOLE_DIALECT_NPU_PASSES_H

#include "systole/Dialect/NPU/NPUOps.h"

#include "mlir/Pass/Pass.h"

namespace systole::npu {

#define GEN_PASS_DECL
#include "systole/Dialect/NPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "systole/Dialect/NPU/Passes.h.inc"

/// Schedules every segment of `program` (the pass's work, for drivers that
/// call it directly). Fails with a diagnostic on the op at fault.
mlir::LogicalResult schedulePipeline(ProgramOp program);

} // namespace systole::npu

#endif // SYSTOLE_DIALECT_NPU_PASSES_H
