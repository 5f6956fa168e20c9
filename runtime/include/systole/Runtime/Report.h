//===- Report.h - Text summary, JSON report and Perfetto trace --*- C++ -*-===//
//
// Everything `systole run` prints or writes is produced here so that other
// tools (benchmarks, sweeps) get the same figures from the library.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_RUNTIME_REPORT_H
#define SYSTOLE_RUNTIME_REPORT_H

#include "systole/Runtime/Runtime.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace systole::rt {

/// The --report JSON (docs/runtime.md lists the keys).
llvm::json::Value reportToJson(const RunReport &report, const Model &model);
/// Cycles, time at the clock, utilization, traffic, stalls, per-layer table.
void printSummary(const RunReport &report, const Model &model,
                  llvm::raw_ostream &os);
/// Chrome/Perfetto trace-event JSON: one track per queue, per unit, the DRAM
/// channel and the layers; timestamps in microseconds at the configured
/// clock. At most `maxInstructions` instructions are written (the rest is
/// counted in the metadata), so huge runs stay loadable.
llvm::Error writeTrace(const RunReport &report, const Model &model,
                       llvm::StringRef path,
                       uint64_t maxInstructions = 1000000);

} // namespace systole::rt

#endif
