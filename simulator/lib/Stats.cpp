//===- Stats.cpp - Derived figures and per-layer aggregation --------------===//
#include "systole/Simulator/Stats.h"

#include <algorithm>

using namespace systole;
using namespace systole::sim;

const char *sim::unitName(Unit u) {
  switch (u) {
  case Unit::Fetch:
    return "fetch";
  case Unit::LoadQueue:
    return "load_queue";
  case Unit::ComputeQueue:
    return "compute_queue";
  case Unit::StoreQueue:
    return "store_queue";
  case Unit::DmaLoad:
    return "dma_load";
  case Unit::DmaStore:
    return "dma_store";
  case Unit::DramChannel:
    return "dram_channel";
  case Unit::SystolicArray:
    return "systolic_array";
  case Unit::PostProcessor:
    return "post_processor";
  case Unit::VectorUnit:
    return "vector_unit";
  }
  return "?";
}

Unit sim::executingUnit(const isa::Instruction &I) {
  switch (I.opcode()) {
  case isa::Opcode::Load:
    return Unit::DmaLoad;
  case isa::Opcode::Store:
    return Unit::DmaStore;
  case isa::Opcode::Matmul:
    return Unit::SystolicArray;
  case isa::Opcode::Requant:
    return Unit::PostProcessor;
  case isa::Opcode::Vadd:
  case isa::Opcode::Vmul:
  case isa::Opcode::Vlut:
  case isa::Opcode::Vsoftmax:
  case isa::Opcode::Vlayernorm:
  case isa::Opcode::Vbinary:
  case isa::Opcode::Vreduce:
  case isa::Opcode::Pool:
  case isa::Opcode::Dwconv:
    return Unit::VectorUnit;
  case isa::Opcode::Fence:
    switch (I.queue()) {
    case isa::Queue::Load:
      return Unit::LoadQueue;
    case isa::Queue::Store:
      return Unit::StoreQueue;
    default:
      return Unit::ComputeQueue;
    }
  case isa::Opcode::End:
    return Unit::Fetch;
  }
  return Unit::Fetch;
}

const char *sim::stallCauseName(StallCause c) {
  switch (c) {
  case StallCause::TokenWait:
    return "token_wait";
  case StallCause::DramContention:
    return "dram_contention";
  case StallCause::BankConflict:
    return "bank_conflict";
  case StallCause::QueueFull:
    return "queue_full";
  }
  return "?";
}

uint64_t RunStats::peakMacs(const isa::HwConfig &cfg) const {
  return totalCycles * cfg.array.rows * cfg.array.cols;
}

double RunStats::macUtilization(const isa::HwConfig &cfg) const {
  uint64_t peak = peakMacs(cfg);
  return peak ? double(actions.macs) / double(peak) : 0.0;
}

double RunStats::energyPj(const isa::HwConfig &cfg) const {
  const auto &e = cfg.energy;
  return e.macPj * double(actions.macs + actions.vectorMacs) +
         e.spReadPjPerByte * double(actions.spReadBytes) +
         e.spWritePjPerByte * double(actions.spWriteBytes) +
         e.accReadPjPerWord * double(actions.accReadWords) +
         e.accWritePjPerWord * double(actions.accWriteWords) +
         e.dramPjPerByte * double(actions.dramReadBytes +
                                  actions.dramWriteBytes + actions.hostBytes) +
         e.vectorOpPj * double(actions.vectorOps) +
         e.hostOpPj * double(actions.hostOps) +
         e.leakagePjPerCycle * double(totalCycles);
}

void RunStats::accumulate(const RunStats &o) {
  totalCycles += o.totalCycles;
  instructionsRetired += o.instructionsRetired;
  actions += o.actions;
  for (unsigned u = 0; u < kNumUnits; ++u)
    unitBusy[u] += o.unitBusy[u];
  for (unsigned c = 0; c < kNumStallCauses; ++c)
    stalls[c] += o.stalls[c];
  for (unsigned q = 0; q < 3; ++q)
    tokenWaitByQueue[q] += o.tokenWaitByQueue[q];
  layers.insert(layers.end(), o.layers.begin(), o.layers.end());
}

void sim::aggregateLayers(RunStats &stats,
                          llvm::ArrayRef<isa::LayerDebugInfo> layers,
                          uint32_t segment,
                          llvm::ArrayRef<isa::Instruction> stream,
                          const isa::HwConfig &cfg) {
  for (const isa::LayerDebugInfo &L : layers) {
    if (L.segment != segment)
      continue;
    LayerStats ls;
    ls.name = L.name;
    ls.segment = segment;
    ls.firstInstruction = L.firstInstruction;
    ls.instructionCount = L.instructionCount;
    bool any = false;
    uint64_t busyUntil = 0; // compute instructions issue in order
    uint64_t end =
        std::min<uint64_t>(uint64_t(L.firstInstruction) + L.instructionCount,
                           std::min(stream.size(), stats.instructions.size()));
    for (uint64_t i = L.firstInstruction; i < end; ++i) {
      const InstructionRecord &r = stats.instructions[i];
      if (!r.executed)
        continue;
      ls.startCycle = any ? std::min(ls.startCycle, r.start) : r.start;
      ls.endCycle = any ? std::max(ls.endCycle, r.end) : r.end;
      any = true;
      ls.actions += countActions(stream[i], cfg);
      // Cycles with a compute instruction in flight: overlapping ones
      // (MATMULs in the array together, a REQUANT beside them) count once.
      if (stream[i].queue() == isa::Queue::Compute && r.end > busyUntil) {
        ls.computeBusyCycles += r.end - std::max(r.start, busyUntil);
        busyUntil = r.end;
      }
    }
    stats.layers.push_back(std::move(ls));
  }
}
