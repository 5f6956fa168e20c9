//===- CycleBackend.cpp - Run a segment on the SystemC model --------------===//
#include "Modules.h"

#include "../TokenRules.h"
#include "systole/Simulator/SystemCContext.h"

#include <cstdlib>

using namespace sc_core;
using namespace systole;
using namespace systole::sim;
using namespace systole::sim::cycle;

RunResult sim::runCycleAccurate(llvm::ArrayRef<isa::Instruction> stream,
                                const isa::HwConfig &cfg, MachineState &state,
                                const RunOptions &options) {
  RunResult result;
  RunStats &st = result.stats;
  st.cycleAccurate = true;
  st.instructions.assign(stream.size(), {});
  Context ctx;
  ctx.stream = stream;
  ctx.cfg = &cfg;
  ctx.state = &state;
  ctx.options = &options;
  ctx.stats = &st;
  ctx.wallStart = ctx.lastReport = std::chrono::steady_clock::now();
  {
    FreshSimContext fresh;
    sc_report_handler::set_actions(SC_INFO, SC_DO_NOTHING);
    sc_report_handler::set_actions(SC_WARNING, SC_DO_NOTHING);
    auto npu = std::make_unique<Npu>("npu", ctx);
    // Exit on starvation: a deadlock under a cycle limit must stop at its
    // last event (the cycle it reports), not run the clock to the limit.
    if (options.maxCycles)
      sc_start(sc_time::from_value(options.maxCycles * kPeriod + kPeriod - 1),
               SC_EXIT_ON_STARVATION);
    else
      sc_start();
    bool finished = ctx.endFetched != UINT64_MAX;
    for (auto &q : npu->queues)
      finished &=
          q->entries.empty() && q->inFlight.empty() && q->postInFlight.empty();
    if (!ctx.fault && !finished) {
      std::optional<size_t> heads[3];
      for (unsigned q = 0; q < 3; ++q) {
        if (!npu->queues[q]->entries.empty())
          heads[q] = npu->queues[q]->entries.front();
        else if (!npu->queues[q]->inFlight.empty())
          heads[q] = npu->queues[q]->inFlight.front().first;
        else if (!npu->queues[q]->postInFlight.empty())
          heads[q] = npu->queues[q]->postInFlight.front().first;
      }
      bool limit = options.maxCycles && sc_pending_activity();
      BlockedHead b = oldestBlockedHead(stream, heads);
      if (!heads[0] && !heads[1] && !heads[2]) // fetch itself is the oldest
        b.index = std::min<size_t>(stream.size() - 1, st.instructionsRetired);
      Fault f;
      f.kind = limit ? FaultKind::CycleLimit : FaultKind::TokenDeadlock;
      f.instruction = b.index;
      f.opcode = stream[b.index].opcode();
      f.queue = stream[b.index].queue();
      f.cycle = limit ? options.maxCycles : currentCycle();
      f.detail = limit ? "the run did not finish within --max-cycles " +
                             std::to_string(options.maxCycles) +
                             " (oldest unfinished instruction named)"
                       : b.detail(stream, state);
      ctx.fault = std::move(f);
    }
    npu.reset();
  }
  uint64_t total = ctx.endFetched == UINT64_MAX ? 0 : ctx.endFetched + 1;
  for (const InstructionRecord &r : st.instructions)
    if (r.executed)
      total = std::max(total, r.end);
  st.totalCycles = ctx.fault ? std::max(total, ctx.fault->cycle) : total;
  result.fault = std::move(ctx.fault);
  return result;
}
