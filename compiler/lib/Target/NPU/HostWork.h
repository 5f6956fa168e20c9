//===- HostWork.h - Elementary operations of host ops -----------*- C++ -*-===//
//
// Internal to the NPU target. The count the compiler records per host
// segment (isa::HostSegment::ops) for its compute time in a run
// (isa::hostTiming, docs/hwconfig.md "host").
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_LIB_TARGET_NPU_HOSTWORK_H
#define SYSTOLE_LIB_TARGET_NPU_HOSTWORK_H

#include "mlir/IR/Operation.h"

#include <cstdint>

namespace systole::npu {

/// Elementary operations (a float add, multiply, compare, ...) the host
/// performs for graph op `op`: an estimate per op kind, documented in
/// docs/hwconfig.md.
uint64_t hostOps(mlir::Operation *op);

} // namespace systole::npu

#endif // SYSTOLE_LIB_TARGET_NPU_HOSTWORK_H
