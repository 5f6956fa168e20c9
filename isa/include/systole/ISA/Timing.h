//===- Timing.h - THE timing reference of every instruction -----*- C++ -*-===//
//
// The simulator, the compiler's cost model and objdump all call these
// functions; docs/isa.md derives each formula. Memory footprints and their
// overlaps are in Footprint.h (included here for the users of both).
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_ISA_TIMING_H
#define SYSTOLE_ISA_TIMING_H

#include "systole/ISA/Footprint.h"
#include "systole/ISA/HwConfig.h"
#include "systole/ISA/Instruction.h"

#include <vector>

namespace systole::isa {

/// DMA timing: each contiguous run of n0*elem_bytes bytes occupies the aligned
/// bursts it touches, burst_bytes/bytes_per_cycle beats per burst. A LOAD's
/// padding runs (same length, no DRAM traffic) are written by the DMA's
/// padding writer alongside, ceil(run bytes / bytes_per_cycle) cycles each.
/// The channel is held until both are done; completion is latency_cycles
/// after that.
struct DmaTiming {
  uint64_t runs = 0;
  uint64_t bursts = 0;
  uint64_t burstCycles = 0; ///< bursts x beats per burst
  uint64_t padRuns = 0;
  uint64_t padCycles = 0;
  uint64_t channelCycles = 0; ///< max(burstCycles, padCycles)
  uint64_t latencyCycles = 0;
  uint64_t bytes = 0; ///< DRAM bytes moved (padding excluded)
};
DmaTiming dmaTiming(const Instruction &inst, const HwConfig &cfg);

/// Cycles VLAYERNORM spends per group of rows between its two passes: the
/// row statistics (s / n, s2 / n, mean * mean, ms - mean^2, + eps, sqrt),
/// one fp32 operation per cycle.
constexpr uint64_t kLayerNormStatCycles = 6;

/// Cycles VREDUCE spends per group of rows after its n0 additions: the two
/// packet accumulators combined, Eigen's predux (two levels) and the
/// division of the mean, one fp32 operation per cycle.
constexpr uint64_t kReduceFinishCycles = 4;

/// Cycles a compute-queue instruction occupies its unit (MATMUL, REQUANT,
/// VADD, VMUL, VLUT, VSOFTMAX, VLAYERNORM, VBINARY, VREDUCE, POOL,
/// DWCONV; FENCE = 1). 0 for
/// LOAD/STORE/END.
uint64_t computeCycles(const Instruction &inst, const HwConfig &cfg);

/// Whether `inst` runs on the post-processor beside the array
/// (vector.requant_overlap, docs/isa.md §3): REQUANT and the vector unit's
/// elementwise instructions (VADD, VMUL, VLUT), which read and write the
/// scratchpad (and REQUANT the accumulator) but never what a MATMUL writes.
bool onPostProcessor(const Instruction &inst, const HwConfig &cfg);

/// Latency of the instruction alone on an idle machine: computeCycles, or for
/// DMA channelCycles + latencyCycles.
uint64_t predictedCycles(const Instruction &inst, const HwConfig &cfg);

/// A host segment's time on the run's cycle axis (NPU clock cycles): the
/// host reads and writes its tensors through the NPU's DRAM interface
/// (`bytes` at dram.bytes_per_cycle, plus dram.latency_cycles per tensor),
/// and computes `ops` elementary operations at host.ops_per_cycle.
struct HostTiming {
  uint64_t transferCycles = 0;
  uint64_t computeCycles = 0;
  uint64_t total() const { return transferCycles + computeCycles; }
};
HostTiming hostTiming(uint64_t bytes, uint64_t tensors, uint64_t ops,
                      const HwConfig &cfg);

/// OS MATMUL: do A's and B's scratchpad footprints share a bank?
bool matmulBankConflict(const Instruction &inst, const HwConfig &cfg);
/// VADD/VMUL: do A's and B's footprints share a bank?
bool vectorBankConflict(const Instruction &inst, const HwConfig &cfg);
/// Sets the bank_conflict field of an OS MATMUL, VADD or VMUL to what the
/// footprint rule above gives (WS MATMULs: 0). The hardware reads the field
/// instead of computing bank sets at issue; the verifier checks it, so on a
/// verified program the field and the rule agree.
void setBankConflictFlag(Instruction &inst, const HwConfig &cfg);

} // namespace systole::isa

#endif // SYSTOLE_ISA_TIMING_H
