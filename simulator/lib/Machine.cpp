//===- Machine.cpp - Machine state and fault messages ---------------------===//
#include "systole/Simulator/Machine.h"

#include "llvm/Support/FormatVariadic.h"

using namespace systole;
using namespace systole::sim;

MachineState MachineState::create(const isa::HwConfig &cfg,
                                  uint64_t dramBytes) {
  MachineState s;
  s.dram.assign(dramBytes, 0);
  s.scratchpad.assign(cfg.sram.scratchpadBytes, 0);
  s.accumulator.assign(cfg.accumulatorWords(), 0);
  return s;
}

const char *sim::faultKindName(FaultKind k) {
  switch (k) {
  case FaultKind::TokenDeadlock:
    return "token deadlock";
  case FaultKind::TokenOverflow:
    return "token FIFO overflow";
  case FaultKind::SramOutOfRange:
    return "SRAM address out of range";
  case FaultKind::DramOutOfRange:
    return "DMA outside the DRAM image";
  case FaultKind::WeightReuseMismatch:
    return "weight reuse mismatch";
  case FaultKind::CycleLimit:
    return "cycle limit reached";
  case FaultKind::PostProcessorHazard:
    return "post-processor hazard";
  case FaultKind::DataRace:
    return "data race";
  }
  return "fault";
}

std::string Fault::message() const {
  std::string queueText = queue == isa::Queue::None
                              ? "fetch"
                              : (isa::queueName(queue).str() + " queue");
  return llvm::formatv(
             "fault: {0} at instruction #{1} ({2}, {3}), cycle {4}{5}{6}",
             faultKindName(kind), instruction, isa::opcodeInfo(opcode).mnemonic,
             queueText, cycle, detail.empty() ? "" : ": ", detail)
      .str();
}
