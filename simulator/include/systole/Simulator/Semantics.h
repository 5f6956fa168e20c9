//===- Semantics.h - THE integer semantics of every instruction --*- C++
//-*-===//
//
// The one place that says what an instruction does to the machine state
// (docs/isa.md, "Semantics"). The functional executor and every unit of the
// cycle-accurate model call executeInstruction(), so the two backends cannot
// compute different values. Also the per-instruction action counts that feed
// statistics and the energy model.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SIMULATOR_SEMANTICS_H
#define SYSTOLE_SIMULATOR_SEMANTICS_H

#include "systole/ISA/Arithmetic.h"
#include "systole/Simulator/Machine.h"

#include <cstdint>
#include <optional>

namespace systole::sim {

/// Counts of the actions an energy model prices (docs/simulator.md).
struct ActionCounts {
  uint64_t macs = 0;       ///< int8 MACs on the systolic array (M*K*N)
  uint64_t vectorMacs = 0; ///< int8 MACs on the vector unit (DWCONV)
  uint64_t vectorOps = 0;  ///< element operations of REQUANT/VADD/VMUL/POOL
  uint64_t spReadBytes = 0;
  uint64_t spWriteBytes = 0;
  uint64_t accReadWords = 0;
  uint64_t accWriteWords = 0;
  uint64_t dramReadBytes = 0;
  uint64_t dramWriteBytes = 0;
  /// Host segments of a run (the runtime adds them): the host's elementary
  /// operations and the bytes it reads and writes through the NPU's DRAM
  /// interface (isa::hostTiming).
  uint64_t hostOps = 0;
  uint64_t hostBytes = 0;
  ActionCounts &operator+=(const ActionCounts &o);
};

/// What `inst` will do, counted from its fields alone (no state needed).
ActionCounts countActions(const isa::Instruction &inst,
                          const isa::HwConfig &cfg);

/// Checks every operand of `inst` against the memories of `state` (the exact
/// footprints of isa::accessRanges) and, for a WS matmul without preload,
/// that compatible weights are loaded. The returned fault has kind and
/// detail set; the caller fills instruction index, queue and cycle.
std::optional<Fault> checkInstruction(const isa::Instruction &inst,
                                      const MachineState &state);

/// What issuing `inst` changes before it completes: a WS preload latches
/// the shape of its K x N weight block, an OS matmul clears it. The weight-
/// reuse check of checkInstruction() reads that shape, and with
/// array.matmul_inflight > 1 a MATMUL issues before the previous one has
/// completed, so every executor calls this at issue (after the check) and
/// executeInstruction() only moves the weight values.
void noteIssue(const isa::Instruction &inst, MachineState &state);

/// Applies `inst` to `state`. Precondition: checkInstruction() passed.
/// Token pushes/pops are not part of this (the queues own them).
void executeInstruction(const isa::Instruction &inst, MachineState &state);

// The element arithmetic lives in the ISA library (systole/ISA/Arithmetic.h),
// shared with the compiler's table folding.
using isa::addValue;
using isa::requantizeValue;
using isa::roundHalfEven;

} // namespace systole::sim

#endif // SYSTOLE_SIMULATOR_SEMANTICS_H
