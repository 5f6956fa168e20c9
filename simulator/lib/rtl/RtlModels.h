//===- RtlModels.h - Registry of the Verilated hardware configs -*- C++ -*-===//
//
// Each hardware config that CMake verilates (SYSTOLE_RTL_CONFIGS) becomes one
// Verilated class and one entry here; runRtl picks the entry whose
// parameters equal the program's config.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SIMULATOR_RTL_RTLMODELS_H
#define SYSTOLE_SIMULATOR_RTL_RTLMODELS_H

#include "systole/Simulator/Simulator.h"

#include <string>
#include <vector>

namespace systole::sim::rtl {

/// The parameters that shape the RTL (what systole-rtl-gen puts in
/// npu_cfg_pkg); configs equal in these run on the same Verilated model.
struct RtlParams {
  uint64_t rows, cols, ws, os, matmulInflight, spBytes, spBanks, accWords,
      dramBw, dramLatency, dramBurst, lanes, pipeDepth, requantOverlap,
      cmdDepth, tokenDepth;
  bool operator==(const RtlParams &o) const;
  static RtlParams of(const isa::HwConfig &cfg);
  std::string str() const;
};

struct RtlModelEntry {
  const char *name;
  RtlParams params;
  RunResult (*run)(llvm::ArrayRef<isa::Instruction>, const isa::HwConfig &,
                   MachineState &, const RunOptions &, const RtlRunOptions &);
};

/// All verilated configs (generated: RtlModelTable.cpp).
const std::vector<RtlModelEntry> &rtlModels();

} // namespace systole::sim::rtl

#endif // SYSTOLE_SIMULATOR_RTL_RTLMODELS_H
