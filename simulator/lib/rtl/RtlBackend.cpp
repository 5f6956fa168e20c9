//===- RtlBackend.cpp - sim::runRtl: dispatch to a Verilated config -------===//
#include "RtlModels.h"

#include <systemc>

#include <cstdlib>

using namespace systole;
using namespace systole::sim;
using namespace systole::sim::rtl;

bool RtlParams::operator==(const RtlParams &o) const {
  return rows == o.rows && cols == o.cols && ws == o.ws && os == o.os &&
         matmulInflight == o.matmulInflight && spBytes == o.spBytes &&
         spBanks == o.spBanks && accWords == o.accWords && dramBw == o.dramBw &&
         dramLatency == o.dramLatency && dramBurst == o.dramBurst &&
         lanes == o.lanes && pipeDepth == o.pipeDepth &&
         requantOverlap == o.requantOverlap && cmdDepth == o.cmdDepth &&
         tokenDepth == o.tokenDepth;
}

RtlParams RtlParams::of(const isa::HwConfig &c) {
  return {c.array.rows,
          c.array.cols,
          c.array.ws,
          c.array.os,
          c.array.matmulInflight,
          c.sram.scratchpadBytes,
          c.sram.scratchpadBanks,
          c.sram.accumulatorBytes / 4,
          c.dram.bytesPerCycle,
          c.dram.latencyCycles,
          c.dram.burstBytes,
          c.vector.lanes,
          c.vector.pipelineDepth,
          c.vector.requantOverlap,
          c.queues.cmdDepth,
          c.queues.tokenDepth};
}

std::string RtlParams::str() const {
  return std::to_string(rows) + "x" + std::to_string(cols) +
         (matmulInflight > 1
              ? " (" + std::to_string(matmulInflight) + " MATMULs in flight)"
              : "") +
         ", SP " + std::to_string(spBytes) + " B/" + std::to_string(spBanks) +
         " banks, ACC " + std::to_string(accWords) + " words, DRAM " +
         std::to_string(dramBw) + " B/cycle burst " +
         std::to_string(dramBurst) + " latency " + std::to_string(dramLatency) +
         ", lanes " + std::to_string(lanes) + ", P " +
         std::to_string(pipeDepth) +
         (requantOverlap ? " (REQUANT overlapped)" : "") + ", queues " +
         std::to_string(cmdDepth) + "/" + std::to_string(tokenDepth);
}

llvm::Expected<RunResult> sim::runRtl(llvm::ArrayRef<isa::Instruction> stream,
                                      const isa::HwConfig &cfg,
                                      MachineState &state,
                                      const RunOptions &options,
                                      const RtlRunOptions &rtlOptions) {
  RtlParams want = RtlParams::of(cfg);
  for (const RtlModelEntry &e : rtlModels())
    if (e.params == want)
      return e.run(stream, cfg, state, options, rtlOptions);
  return rtlSupports(cfg);
}

llvm::Error sim::rtlSupports(const isa::HwConfig &cfg) {
  RtlParams want = RtlParams::of(cfg);
  for (const RtlModelEntry &e : rtlModels())
    if (e.params == want)
      return llvm::Error::success();
  std::string have;
  for (const RtlModelEntry &e : rtlModels())
    have += std::string(have.empty() ? "" : ", ") + e.name;
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      "no Verilated RTL for hardware config '%s' (%s); verilated: %s. Add "
      "its preset to SYSTOLE_RTL_CONFIGS (rtl/CMakeLists.txt)",
      cfg.name.c_str(), want.str().c_str(), have.c_str());
}
