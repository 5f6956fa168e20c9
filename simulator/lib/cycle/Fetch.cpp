//===- Fetch.cpp - Instruction fetch and dispatch -------------------------===//
#include "Modules.h"

using namespace sc_core;
using namespace systole;
using namespace systole::sim;
using namespace systole::sim::cycle;

FetchUnit::FetchUnit(sc_module_name name, Context &ctx)
    : sc_module(name), ctx(ctx) {
  SC_THREAD(run);
}

// One instruction per cycle at the fetch phase. An instruction whose queue
// is full waits; the slot freed by an issue in cycle c is usable in c + 1.
void FetchUnit::run() {
  RunStats &st = *ctx.stats;
  uint64_t cycle = 0;
  for (size_t i = 0; i < ctx.stream.size(); ++i) {
    waitUntil(cycle, kFetch);
    if (ctx.stopped())
      return;
    const isa::Instruction &I = ctx.stream[i];
    InstructionRecord &rec = st.instructions[i];
    if (I.opcode() == isa::Opcode::End) {
      rec.fetch = rec.start = rec.end = cycle;
      rec.executed = true;
      ctx.endFetched = cycle;
      ++st.unitBusy[unsigned(Unit::Fetch)];
      return;
    }
    CommandQueue *q = queues[unsigned(I.queue())];
    if (q->full()) {
      uint64_t from = cycle;
      while (q->full()) {
        wait(q->slotFreed);
        if (ctx.stopped())
          return;
        cycle = currentCycle() + 1;
      }
      waitUntil(cycle, kFetch);
      st.stalls[unsigned(StallCause::QueueFull)] += cycle - from;
    }
    q->entries.push_back(i);
    rec.fetch = cycle;
    ++st.unitBusy[unsigned(Unit::Fetch)];
    ctx.lastActivity = cycle;
    q->dispatched.notify();
    ++cycle;
  }
  // A stream without END (only from hand-built tests) ends where it ends.
  ctx.endFetched = cycle;
}
