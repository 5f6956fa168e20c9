//===- Simulator.h - Run an NPU instruction stream on a backend --*- C++
//-*-===//
//
// The two backends of docs/simulator.md behind one entry point:
//   functional: values only, queues interleaved in program order as far as
//               tokens allow; fastest.
//   cycle:      the SystemC model, one sc_module per hardware block, exact
//               cycles. Same values by construction (shared Semantics.cpp).
// A run mutates the MachineState (DRAM image in, DRAM image out) and returns
// statistics and, if the program faulted, the fault.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SIMULATOR_SIMULATOR_H
#define SYSTOLE_SIMULATOR_SIMULATOR_H

#include "systole/Simulator/Machine.h"
#include "systole/Simulator/Stats.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <optional>
#include <string>

namespace systole::sim {

enum class BackendKind : uint8_t { Functional, Cycle, Rtl };
const char *backendName(BackendKind k);
std::optional<BackendKind> backendByName(llvm::StringRef name);

struct Progress {
  uint64_t cycles = 0; ///< simulated so far (cycle backend)
  uint64_t instructionsRetired = 0;
  uint64_t instructionsTotal = 0;
  double wallSeconds = 0;
};

struct RunOptions {
  /// Stop with a CycleLimit fault after this many cycles (0: no limit).
  uint64_t maxCycles = 0;
  /// Called about every `progressIntervalSeconds` of wall time.
  std::function<void(const Progress &)> progress;
  double progressIntervalSeconds = 2.0;
  /// RTL backend: write an FST waveform of the run here (empty: none).
  std::string wavesPath;
};

/// Options only the RTL backend reads.
struct RtlRunOptions {
  std::string wavesPath;
};

struct RunResult {
  RunStats stats;
  std::optional<Fault> fault;
};

/// Runs one NPU segment (must end with END) from `state`.
RunResult runFunctional(llvm::ArrayRef<isa::Instruction> stream,
                        const isa::HwConfig &cfg, MachineState &state,
                        const RunOptions &options = {});
RunResult runCycleAccurate(llvm::ArrayRef<isa::Instruction> stream,
                           const isa::HwConfig &cfg, MachineState &state,
                           const RunOptions &options = {});
/// The Verilated RTL (docs/rtl.md) of `cfg`'s parameters inside SystemC;
/// an error if no verilated model matches the config.
llvm::Expected<RunResult> runRtl(llvm::ArrayRef<isa::Instruction> stream,
                                 const isa::HwConfig &cfg, MachineState &state,
                                 const RunOptions &options = {},
                                 const RtlRunOptions &rtlOptions = {});
/// Whether runRtl has a Verilated model for `cfg` (the error says why not).
llvm::Error rtlSupports(const isa::HwConfig &cfg);
RunResult runSegment(BackendKind backend,
                     llvm::ArrayRef<isa::Instruction> stream,
                     const isa::HwConfig &cfg, MachineState &state,
                     const RunOptions &options = {});

} // namespace systole::sim

#endif // SYSTOLE_SIMULATOR_SIMULATOR_H
