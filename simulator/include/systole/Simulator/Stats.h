//===- Stats.h - Statistics of one simulated NPU segment --------*- C++ -*-===//
//
// What a run of either backend reports: cycles, per-instruction timing,
// per-unit busy cycles, stall cycles by cause, action counts, and the
// per-layer aggregation over the binary's layer debug ranges.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SIMULATOR_STATS_H
#define SYSTOLE_SIMULATOR_STATS_H

#include "systole/ISA/Program.h"
#include "systole/Simulator/Semantics.h"

#include <cstdint>
#include <string>
#include <vector>

namespace systole::sim {

/// The hardware blocks of docs/isa.md that statistics and traces name.
enum class Unit : uint8_t {
  Fetch,
  LoadQueue,
  ComputeQueue,
  StoreQueue,
  DmaLoad,
  DmaStore,
  DramChannel,
  SystolicArray,
  PostProcessor,
  VectorUnit,
};
constexpr unsigned kNumUnits = 10;
const char *unitName(Unit u);
/// The unit that executes `op` (FENCE: its queue, END: fetch).
Unit executingUnit(const isa::Instruction &inst);

enum class StallCause : uint8_t {
  TokenWait,
  DramContention,
  BankConflict,
  QueueFull
};
constexpr unsigned kNumStallCauses = 4;
const char *stallCauseName(StallCause c);

/// Timing of one instruction. Cycle backend: `fetch` is the cycle it was
/// dispatched into its queue, [start, end) the cycles it occupied its unit
/// (for a DMA: channel grant to last data written, latency included), and
/// [channelStart, channelEnd) its bursts on the DRAM channel. Functional
/// backend: all equal the position in execution order.
struct InstructionRecord {
  uint64_t fetch = 0;
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t channelStart = 0;
  uint64_t channelEnd = 0;
  uint64_t tokenWait = 0;      ///< cycles the head waited for tokens
  uint64_t dramContention = 0; ///< cycles it waited for the channel
  bool executed = false;
};

struct LayerStats {
  std::string name;
  uint32_t segment = 0;
  uint32_t firstInstruction = 0;
  uint32_t instructionCount = 0;
  uint64_t startCycle = 0; ///< first start of its instructions
  uint64_t endCycle = 0;   ///< last end of its instructions
  uint64_t cycles() const { return endCycle - startCycle; }
  uint64_t computeBusyCycles =
      0; ///< cycles with a compute instruction in flight
  ActionCounts actions;
};

struct RunStats {
  bool cycleAccurate = false;
  uint64_t totalCycles = 0;
  uint64_t instructionsRetired = 0;
  ActionCounts actions;
  uint64_t unitBusy[kNumUnits] = {};
  uint64_t stalls[kNumStallCauses] = {};
  uint64_t tokenWaitByQueue[3] = {};
  std::vector<InstructionRecord> instructions; ///< indexed like the segment
  std::vector<LayerStats> layers;

  /// Array peak MACs over the run: totalCycles * rows * cols.
  uint64_t peakMacs(const isa::HwConfig &cfg) const;
  /// macs / peakMacs (0 when no cycles).
  double macUtilization(const isa::HwConfig &cfg) const;
  /// Energy from the action counts and the config's per-action prices (pJ).
  double energyPj(const isa::HwConfig &cfg) const;
  /// Adds another segment's totals (cycles, actions, busy, stalls; layers
  /// appended). Instruction records are not merged.
  void accumulate(const RunStats &o);
};

/// Fills stats.layers from the debug ranges of `segment`.
void aggregateLayers(RunStats &stats,
                     llvm::ArrayRef<isa::LayerDebugInfo> layers,
                     uint32_t segment, llvm::ArrayRef<isa::Instruction> stream,
                     const isa::HwConfig &cfg);

} // namespace systole::sim

#endif // SYSTOLE_SIMULATOR_STATS_H
