//===- Estimate.h - Timing-only estimate of an NPU segment ------*- C++ -*-===//
//
// The "estimate" simulation level of the architecture: the timing of an
// instruction stream without values and without SystemC. It replays the
// cycle model's rules (docs/simulator.md: in-order fetch into cmd_depth-deep
// queues, token pops at issue and pushes at retirement, one shared DRAM
// channel granted in request order with ties to the load path, in-order
// retirement) as a discrete-event model over isa::computeCycles and
// isa::dmaTiming, so sweeps get cycle counts, per-instruction records, busy
// and stall cycles and action counts at a fraction of the cost.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SIMULATOR_ESTIMATE_H
#define SYSTOLE_SIMULATOR_ESTIMATE_H

#include "systole/Simulator/Simulator.h"

namespace systole::sim {

/// Runs the timing model of one NPU segment (ends with END). The returned
/// statistics have the same fields as runCycleAccurate's; no memory is
/// read or written. Faults: token deadlock, token overflow, cycle limit.
/// SRAM/DRAM operand ranges are not checked (verified programs only).
RunResult runEstimate(llvm::ArrayRef<isa::Instruction> stream,
                      const isa::HwConfig &cfg, const RunOptions &options = {});

} // namespace systole::sim

#endif // SYSTOLE_SIMULATOR_ESTIMATE_H
