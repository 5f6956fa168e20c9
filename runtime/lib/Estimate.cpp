//===- Estimate.cpp - Run a model through the timing-only estimate --------===//
//
// The estimate needs no values, so no inputs are bound and no DRAM image is
// built; host segments take the time isa::hostTiming gives them, as in a
// Session run, so the totals are comparable.
//
//===----------------------------------------------------------------------===//
#include "systole/Simulator/Estimate.h"
#include "systole/Runtime/Analysis.h"

#include "llvm/Support/FormatVariadic.h"

#include <chrono>

using namespace systole;
using namespace systole::rt;

RunReport rt::estimateRun(const Model &model, const sim::RunOptions &options) {
  using Clock = std::chrono::steady_clock;
  const isa::Program &p = model.program();
  RunReport rep;
  rep.backend = sim::BackendKind::Functional; // no estimate kind in sim
  auto t0 = Clock::now();
  uint64_t cycles = 0;
  for (size_t s = 0; s < p.segments.size(); ++s) {
    const isa::Segment &seg = p.segments[s];
    SegmentReport sr;
    sr.name = seg.name;
    sr.npu = seg.isNpu();
    sr.startCycle = cycles;
    auto ts = Clock::now();
    if (seg.isNpu()) {
      const auto &stream = seg.npu().instructions;
      sim::RunResult r = sim::runEstimate(stream, p.config, options);
      recordNpuSegment(rep, sr, r, p, s, cycles);
      if (r.fault && !rep.fault) {
        rep.fault = r.fault;
        rep.faultSegment = seg.name;
      }
    } else {
      // The segment a run executes: of a PTX / CPU pair the CPU copy (a run
      // without a GPU); a GPU run times the PTX copy identically.
      sr.hostKernel = seg.host().entry;
      if (seg.host().kind != isa::HostCodeKind::Ptx)
        recordHostSegment(rep, sr, p, s, cycles);
    }
    sr.wallSeconds = std::chrono::duration<double>(Clock::now() - ts).count();
    rep.segments.push_back(std::move(sr));
    if (rep.fault)
      break;
  }
  rep.total.totalCycles = cycles;
  rep.wallSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return rep;
}
