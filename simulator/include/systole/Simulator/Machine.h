//===- Machine.h - Architectural state of the NPU and its faults -*- C++
//-*-===//
//
// The state every backend mutates through the shared semantics: the DRAM
// image, the scratchpad, the accumulator, the dependency-token FIFOs and the
// weight registers of the systolic array (WS preload persists across
// instructions). Also the fault record both backends report.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SIMULATOR_MACHINE_H
#define SYSTOLE_SIMULATOR_MACHINE_H

#include "systole/ISA/HwConfig.h"
#include "systole/ISA/Instruction.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace systole::sim {

struct MachineState {
  std::vector<uint8_t> dram;
  std::vector<uint8_t> scratchpad;
  std::vector<int32_t> accumulator; ///< word addressed (fp32 scales as bits)
  /// Tokens currently held by each FIFO (isa::TokenFifo order).
  uint64_t tokens[isa::kNumTokenFifos] = {};
  /// WS weight registers: B(k, n) as loaded by the last preloading matmul.
  /// The shape is the issue-order view (sim::noteIssue), the values the
  /// completion-order one.
  bool weightsLoaded = false;
  uint32_t weightRows = 0, weightCols = 0;
  std::vector<int8_t> weights; ///< weightRows x weightCols, row-major

  /// Zeroed SRAMs sized from `cfg`, and a zeroed DRAM image of `dramBytes`.
  static MachineState create(const isa::HwConfig &cfg, uint64_t dramBytes);
};

enum class FaultKind : uint8_t {
  TokenDeadlock, ///< every unfinished queue waits on a token, nothing in flight
  TokenOverflow, ///< a push into a token FIFO already holding token_depth
  SramOutOfRange,      ///< an SP/ACC operand outside its memory
  DramOutOfRange,      ///< a DMA outside the DRAM image
  WeightReuseMismatch, ///< WS preload=0 without weights of its K x N
  CycleLimit,          ///< --max-cycles reached
  PostProcessorHazard, ///< a MATMUL touching what an in-flight REQUANT uses
  DataRace, ///< two queues touch the same memory (one writes), no token order
};
const char *faultKindName(FaultKind k);

/// A fault ends the run cleanly. `cycle` is the simulated cycle in the cycle
/// backend and the instruction's position in execution order in the
/// functional one.
struct Fault {
  FaultKind kind;
  uint64_t instruction = 0; ///< index in the NPU segment
  isa::Opcode opcode = isa::Opcode::End;
  isa::Queue queue = isa::Queue::None;
  uint64_t cycle = 0;
  std::string detail;
  /// "fault: token deadlock at instruction #3 (matmul, compute queue),
  ///  cycle 17: ..."
  std::string message() const;
};

} // namespace systole::sim

#endif // SYSTOLE_SIMULATOR_MACHINE_H
