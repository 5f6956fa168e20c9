//===- Energy.cpp - Energy per component from action counts ---------------===//
//
// The one energy model: every command (report, run, sweep, the C and Python
// APIs) prices a run with energyOf and the config's per-action table
// (docs/hwconfig.md; the presets' SRAM prices lie on sramPjPerByte's curve),
// so the same hardware and counts give the same energy everywhere;
// docs/energy.md derives the prices.
//
//===----------------------------------------------------------------------===//
#include "systole/Runtime/Analysis.h"

#include <cmath>

using namespace systole;
using namespace systole::rt;

EnergyBreakdown rt::energyOf(const sim::ActionCounts &a, uint64_t leakageCycles,
                             const isa::HwConfig &cfg) {
  const auto &e = cfg.energy;
  EnergyBreakdown b;
  b.array = e.macPj * double(a.macs);
  b.vector =
      e.macPj * double(a.vectorMacs) + e.vectorOpPj * double(a.vectorOps);
  b.scratchpad = e.spReadPjPerByte * double(a.spReadBytes) +
                 e.spWritePjPerByte * double(a.spWriteBytes);
  b.accumulator = e.accReadPjPerWord * double(a.accReadWords) +
                  e.accWritePjPerWord * double(a.accWriteWords);
  b.dram = e.dramPjPerByte *
           double(a.dramReadBytes + a.dramWriteBytes + a.hostBytes);
  b.host = e.hostOpPj * double(a.hostOps);
  b.leakage = e.leakagePjPerCycle * double(leakageCycles);
  return b;
}

double rt::sramPjPerByte(uint64_t capacityBytes) {
  // (capacity, pJ per 64-bit read) from Horowitz's 45 nm table.
  static const double points[][2] = {
      {8.0 * 1024, 10.0}, {32.0 * 1024, 20.0}, {1024.0 * 1024, 100.0}};
  double x = std::log(double(capacityBytes ? capacityBytes : 1));
  size_t seg = x < std::log(points[1][0]) ? 0 : 1;
  double x0 = std::log(points[seg][0]), y0 = std::log(points[seg][1]);
  double x1 = std::log(points[seg + 1][0]), y1 = std::log(points[seg + 1][1]);
  double y = y0 + (x - x0) * (y1 - y0) / (x1 - x0);
  return std::exp(y) / 8.0;
}

isa::HwConfig::Energy rt::scaleSramPrices(const isa::HwConfig::Energy &base,
                                          uint64_t baseScratchpadBytes,
                                          uint64_t baseAccumulatorBytes,
                                          const isa::HwConfig::Sram &sram) {
  isa::HwConfig::Energy e = base;
  double sp =
      sramPjPerByte(sram.scratchpadBytes) / sramPjPerByte(baseScratchpadBytes);
  double acc = sramPjPerByte(sram.accumulatorBytes) /
               sramPjPerByte(baseAccumulatorBytes);
  e.spReadPjPerByte *= sp;
  e.spWritePjPerByte *= sp;
  e.accReadPjPerWord *= acc;
  e.accWritePjPerWord *= acc;
  return e;
}
