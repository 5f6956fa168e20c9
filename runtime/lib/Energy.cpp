//===- Energy.cpp - Energy per component from action counts ---------------===//
//
// The prices are the config's per-action table (docs/hwconfig.md, defaults
// from Horowitz, ISSCC 2014, 45 nm); docs/energy.md derives them.
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
  b.dram = e.dramPjPerByte * double(a.dramReadBytes + a.dramWriteBytes);
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
