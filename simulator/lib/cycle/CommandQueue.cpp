//===- CommandQueue.cpp - Load/compute/store command queues ---------------===//
#include "Modules.h"

#include "../PostProcessorHazard.h"
#include "../TokenRules.h"

#include <algorithm>

using namespace sc_core;
using namespace systole;
using namespace systole::sim;
using namespace systole::sim::cycle;

CommandQueue::CommandQueue(sc_module_name name, Context &ctx, isa::Queue which,
                           TokenFifo *fifoArray[isa::kNumTokenFifos])
    : sc_module(name), ctx(ctx), which(which),
      capacity(ctx.cfg->queues.cmdDepth ? ctx.cfg->queues.cmdDepth : 1) {
  for (unsigned f = 0; f < isa::kNumTokenFifos; ++f)
    fifos[f] = fifoArray[f];
  SC_THREAD(issueLoop);
  SC_THREAD(retireLoop);
  // Only the compute queue with the overlapped post-processor retires a
  // second stream.
  if (which == isa::Queue::Compute && ctx.cfg->vector.requantOverlap)
    SC_THREAD(postRetireLoop);
}

static uint64_t retirePhase(isa::Queue q) {
  return q == isa::Queue::Load      ? kRetireLoad
         : q == isa::Queue::Compute ? kRetireCompute
                                    : kRetireStore;
}

// Issue: the head starts at the issue phase of the first cycle in which it
// has been dispatched (possibly this very cycle), its unit is free and the
// tokens it pops are present. Issuing frees its queue slot; fetch can use
// the slot in the next cycle. With vector.requant_overlap a REQUANT (or a
// VADD, VMUL, VLUT) holds only the post-processor: MATMULs issue past it,
// every other compute instruction (and the next one on the post-processor)
// waits for it.
void CommandQueue::issueLoop() {
  RunStats &st = *ctx.stats;
  MachineState &S = *ctx.state;
  const bool overlap =
      which == isa::Queue::Compute && ctx.cfg->vector.requantOverlap;
  // nextIssue: a queue issues at most one instruction per cycle (one head),
  // which matters where an issue does not hold the unit for the next one
  // (a REQUANT on the post-processor, zero-cycle instructions).
  uint64_t unitFree = 0, postFree = 0, nextIssue = 0;
  size_t postIdx = 0;
  while (true) {
    while (entries.empty())
      wait(dispatched);
    size_t idx = entries.front();
    const isa::Instruction &I = ctx.stream[idx];
    InstructionRecord &rec = st.instructions[idx];
    bool isMatmul = I.opcode() == isa::Opcode::Matmul;
    bool onPost = overlap && isa::onPostProcessor(I, *ctx.cfg);
    uint64_t ready = std::max({rec.fetch, unitFree, nextIssue});
    if (overlap && !isMatmul)
      ready = std::max(ready, postFree);
    // The array decides when a MATMUL may enter it; everything else on the
    // compute queue waits until it has drained.
    if (array)
      ready = std::max(ready, isMatmul ? array->ready(I) : array->drained());
    waitUntil(ready, kIssue);
    if (sc_time_stamp().value() % kPeriod != kIssue)
      waitPhase(kIssue);
    ready = currentCycle();
    while (!tokensReady(I, S)) {
      headBlocked = true;
      isa::Deps d = I.deps();
      auto prev = d.popPrev ? isa::popPrevFifo(which) : std::nullopt;
      auto next = d.popNext ? isa::popNextFifo(which) : std::nullopt;
      if (prev && next)
        wait(fifos[unsigned(*prev)]->pushed | fifos[unsigned(*next)]->pushed);
      else
        wait(fifos[unsigned(prev ? *prev : *next)]->pushed);
      waitPhase(kIssue);
    }
    headBlocked = false;
    if (ctx.stopped())
      return;
    uint64_t now = currentCycle();
    rec.tokenWait = now - ready;
    st.stalls[unsigned(StallCause::TokenWait)] += rec.tokenWait;
    st.tokenWaitByQueue[unsigned(which)] += rec.tokenWait;
    if (auto f = checkInstruction(I, S)) {
      ctx.raise(f->kind, idx, f->detail);
      return;
    }
    if (overlap && isMatmul && postFree > now)
      if (auto h = postProcessorHazard(I, ctx.stream[postIdx])) {
        ctx.raise(
            FaultKind::PostProcessorHazard, idx,
            *h + " (" +
                llvm::StringRef(
                    isa::opcodeInfo(ctx.stream[postIdx].opcode()).mnemonic)
                    .upper() +
                " #" + std::to_string(postIdx) + " runs until cycle " +
                std::to_string(postFree) + ")");
        return;
      }
    popTokens(I, S);
    noteIssue(I, S);
    entries.pop_front();
    slotFreed.notify();
    rec.start = now;
    nextIssue = now + 1;
    ctx.lastActivity = now;
    uint64_t end;
    if (I.opcode() == isa::Opcode::Load || I.opcode() == isa::Opcode::Store) {
      auto [grant, done] = dma->transfer(idx);
      unitFree = rec.channelEnd;
      end = done;
      (void)grant;
    } else {
      uint64_t d;
      switch (executingUnit(I)) {
      case Unit::SystolicArray:
        d = array->issue(I, now) - now;
        break;
      case Unit::PostProcessor:
        d = post->cycles(I);
        break;
      case Unit::VectorUnit:
        d = vector->cycles(I);
        break;
      default:
        d = isa::computeCycles(I, *ctx.cfg);
        break; // FENCE
      }
      end = now + d;
      if (onPost)
        postFree = end, postIdx = idx;
      else if (!isMatmul)
        unitFree = end;
    }
    // Overlapping MATMULs count their common cycles once.
    uint64_t busyFrom = isMatmul ? std::max(now, lastEnd) : now;
    if (!onPost) {
      end = std::max(end, lastEnd); // in-order retirement
      lastEnd = end;
    }
    rec.end = end;
    Unit qUnit = which == isa::Queue::Load      ? Unit::LoadQueue
                 : which == isa::Queue::Compute ? Unit::ComputeQueue
                                                : Unit::StoreQueue;
    st.unitBusy[unsigned(qUnit)] += end - std::min(busyFrom, end);
    if (onPost) {
      postInFlight.emplace_back(idx, end);
      postRetireQueued.notify();
    } else {
      inFlight.emplace_back(idx, end);
      retireQueued.notify();
    }
  }
}

// Retirement: values take effect and tokens are pushed at the retire phase of
// the completion cycle, in program order within the queue.
void CommandQueue::retireFrom(std::deque<std::pair<size_t, uint64_t>> &list,
                              sc_event &queued) {
  RunStats &st = *ctx.stats;
  MachineState &S = *ctx.state;
  const uint64_t phase = retirePhase(which);
  while (true) {
    while (list.empty())
      wait(queued);
    auto [idx, end] = list.front();
    waitUntil(end, phase);
    if (ctx.stopped())
      return;
    list.pop_front();
    const isa::Instruction &I = ctx.stream[idx];
    executeInstruction(I, S);
    st.actions += countActions(I, *ctx.cfg);
    st.instructions[idx].executed = true;
    ctx.retired(idx);
    if (auto overflow = pushTokens(I, S, *ctx.cfg)) {
      ctx.raise(FaultKind::TokenOverflow, idx, *overflow);
      return;
    }
    isa::Deps d = I.deps();
    if (d.pushPrev)
      if (auto f = isa::pushPrevFifo(which))
        fifos[unsigned(*f)]->pushed.notify();
    if (d.pushNext)
      if (auto f = isa::pushNextFifo(which))
        fifos[unsigned(*f)]->pushed.notify();
  }
}
