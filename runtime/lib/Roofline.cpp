//===- Roofline.cpp - Roofline position of a layer or a model -------------===//
//
// Williams, Waterman, Patterson, "Roofline", CACM 2009: attainable throughput
// is min(peak, operational intensity x bandwidth), with the intensity taken
// over the DRAM traffic the program really performs.
//
//===----------------------------------------------------------------------===//
#include "systole/Runtime/Analysis.h"

#include <algorithm>

using namespace systole;
using namespace systole::rt;

RooflinePoint rt::roofline(const sim::ActionCounts &a, uint64_t cycles,
                           const isa::HwConfig &cfg) {
  RooflinePoint p;
  p.vector = a.macs == 0 && (a.vectorMacs + a.vectorOps) > 0;
  p.ops = p.vector ? double(a.vectorMacs + a.vectorOps) : double(a.macs);
  p.peakOpsPerCycle = p.vector ? double(cfg.vector.lanes)
                               : double(cfg.array.rows * cfg.array.cols);
  p.bytesPerCycle = double(cfg.dram.bytesPerCycle);
  p.dramBytes = double(a.dramReadBytes + a.dramWriteBytes);
  p.intensity = p.dramBytes > 0 ? p.ops / p.dramBytes : 0;
  p.attainable = p.dramBytes > 0 ? std::min(p.peakOpsPerCycle,
                                            p.intensity * p.bytesPerCycle)
                                 : p.peakOpsPerCycle;
  p.cycles = cycles;
  p.achieved = cycles ? p.ops / double(cycles) : 0;
  double computeCycles = p.peakOpsPerCycle > 0 ? p.ops / p.peakOpsPerCycle : 0;
  double memoryCycles = p.bytesPerCycle > 0 ? p.dramBytes / p.bytesPerCycle : 0;
  p.boundCycles = std::max(computeCycles, memoryCycles);
  p.computeBound = computeCycles >= memoryCycles;
  return p;
}
