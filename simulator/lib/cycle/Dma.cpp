//===- Dma.cpp - DMA engine and the shared DRAM channel -------------------===//
#include "Modules.h"

using namespace sc_core;
using namespace systole;
using namespace systole::sim;
using namespace systole::sim::cycle;

DramChannel::DramChannel(sc_module_name name, Context &ctx)
    : sc_module(name), ctx(ctx) {
  SC_THREAD(arbitrate);
}

static void notifyAt(sc_event &ev, uint64_t cycle, uint64_t phase) {
  uint64_t target = cycle * kPeriod + phase, now = sc_time_stamp().value();
  if (target <= now)
    ev.notify(SC_ZERO_TIME);
  else
    ev.notify(sc_time::from_value(target - now));
}

uint64_t DramChannel::acquire(size_t index, uint64_t cycles) {
  Request r{index, cycles, currentCycle(),
            ctx.stream[index].opcode() == isa::Opcode::Store};
  pending.push_back(&r);
  notifyAt(wake, currentCycle(), kArbitrate);
  wait(r.granted);
  return r.grant;
}

// docs/isa.md §6: the channel serves DMAs in order of request, a tie in the
// same cycle going to the load. At the arbitration phase of a cycle in which
// the channel is free, the winner holds it for its whole transfer.
void DramChannel::arbitrate() {
  while (true) {
    wait(wake);
    uint64_t now = currentCycle();
    if (pending.empty())
      continue;
    if (freeAt > now) {
      notifyAt(wake, freeAt, kArbitrate);
      continue;
    }
    auto it = std::min_element(pending.begin(), pending.end(),
                               [](Request *a, Request *b) {
                                 return std::make_pair(a->requested, a->store) <
                                        std::make_pair(b->requested, b->store);
                               });
    Request *r = *it;
    pending.erase(it);
    r->grant = now;
    freeAt = now + r->cycles;
    ctx.stats->unitBusy[unsigned(Unit::DramChannel)] += r->cycles;
    r->granted.notify();
    if (!pending.empty())
      notifyAt(wake, freeAt, kArbitrate);
  }
}

std::pair<uint64_t, uint64_t> DmaEngine::transfer(size_t index) {
  const isa::Instruction &I = ctx.stream[index];
  InstructionRecord &rec = ctx.stats->instructions[index];
  isa::DmaTiming t = isa::dmaTiming(I, *ctx.cfg);
  uint64_t issue = currentCycle();
  uint64_t grant = channel.acquire(index, t.channelCycles);
  rec.channelStart = grant;
  rec.channelEnd = grant + t.channelCycles;
  rec.dramContention = grant - issue;
  ctx.stats->stalls[unsigned(StallCause::DramContention)] += grant - issue;
  uint64_t end = rec.channelEnd + t.latencyCycles;
  Unit path = I.opcode() == isa::Opcode::Load ? Unit::DmaLoad : Unit::DmaStore;
  ctx.stats->unitBusy[unsigned(path)] += end - issue;
  return {grant, end};
}
