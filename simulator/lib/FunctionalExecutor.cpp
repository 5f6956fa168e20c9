//===- FunctionalExecutor.cpp - Values-only backend -----------------------===//
//
// Executes the stream one whole instruction at a time. The queues keep their
// meaning (in order per queue, cmd_depth-deep, blocked on empty token FIFOs)
// and among the ready queue heads the oldest instruction runs first, i.e.
// program order wherever the tokens allow. Token-synchronized programs give
// the same memory contents under every such schedule, hence the same values
// as the cycle model. Whether a program is token-synchronized is checked
// as it runs (DataRace.h): an access that no token orders after a
// conflicting one of another queue faults, on every schedule.
//
//===----------------------------------------------------------------------===//
#include "systole/Simulator/Simulator.h"

#include "DataRace.h"
#include "TokenRules.h"

#include "llvm/Support/ErrorHandling.h"

#include <chrono>
#include <deque>

using namespace systole;
using namespace systole::sim;
using isa::Instruction;
using isa::Queue;

const char *sim::backendName(BackendKind k) {
  return k == BackendKind::Functional ? "functional"
         : k == BackendKind::Cycle    ? "cycle"
                                      : "rtl";
}

std::optional<BackendKind> sim::backendByName(llvm::StringRef name) {
  if (name == "functional")
    return BackendKind::Functional;
  if (name == "cycle")
    return BackendKind::Cycle;
  if (name == "rtl")
    return BackendKind::Rtl;
  return std::nullopt;
}

RunResult sim::runSegment(BackendKind backend,
                          llvm::ArrayRef<Instruction> stream,
                          const isa::HwConfig &cfg, MachineState &state,
                          const RunOptions &options) {
  if (backend == BackendKind::Rtl) {
    RtlRunOptions rtl;
    rtl.wavesPath = options.wavesPath;
    auto r = runRtl(stream, cfg, state, options, rtl);
    if (!r) // callers check rtlSupports first
      llvm::report_fatal_error(r.takeError());
    return std::move(*r);
  }
  return backend == BackendKind::Functional
             ? runFunctional(stream, cfg, state, options)
             : runCycleAccurate(stream, cfg, state, options);
}

RunResult sim::runFunctional(llvm::ArrayRef<Instruction> stream,
                             const isa::HwConfig &cfg, MachineState &state,
                             const RunOptions &options) {
  using Clock = std::chrono::steady_clock;
  RunResult result;
  RunStats &st = result.stats;
  st.cycleAccurate = false;
  st.instructions.assign(stream.size(), {});
  std::deque<size_t> queues[3];
  const size_t depth = cfg.queues.cmdDepth ? cfg.queues.cmdDepth : 1;
  size_t next = 0;
  bool ended = false;
  uint64_t order = 0;
  DataRaceChecker races;
  auto t0 = Clock::now();
  auto lastReport = t0;

  auto fault = [&](FaultKind kind, size_t index, std::string detail) {
    Fault f;
    f.kind = kind;
    f.instruction = index;
    f.opcode = stream[index].opcode();
    f.queue = stream[index].queue();
    f.cycle = index;
    f.detail = std::move(detail);
    result.fault = std::move(f);
  };

  while (true) {
    while (!ended && next < stream.size()) {
      Queue q = stream[next].queue();
      if (q == Queue::None) {
        st.instructions[next].executed = true;
        st.instructions[next].start = st.instructions[next].end = order;
        ended = true;
        ++next;
        break;
      }
      if (queues[unsigned(q)].size() >= depth)
        break;
      st.instructions[next].fetch = order;
      queues[unsigned(q)].push_back(next++);
    }
    // The oldest ready head runs.
    int best = -1;
    for (unsigned q = 0; q < 3; ++q)
      if (!queues[q].empty() && tokensReady(stream[queues[q].front()], state) &&
          (best < 0 || queues[q].front() < queues[best].front()))
        best = int(q);
    if (best < 0) {
      bool empty = queues[0].empty() && queues[1].empty() && queues[2].empty();
      if (empty && (ended || next >= stream.size()))
        break;
      BlockedHead blocked = oldestBlockedHead(stream, queues);
      fault(FaultKind::TokenDeadlock, blocked.index,
            blocked.detail(stream, state));
      break;
    }
    size_t index = queues[best].front();
    queues[best].pop_front();
    const Instruction &I = stream[index];
    if (auto f = checkInstruction(I, state)) {
      fault(f->kind, index, f->detail);
      break;
    }
    if (auto race = races.execute(stream, index)) {
      fault(FaultKind::DataRace, index, *race);
      break;
    }
    popTokens(I, state);
    noteIssue(I, state);
    executeInstruction(I, state);
    InstructionRecord &r = st.instructions[index];
    r.start = order;
    r.end = ++order;
    r.executed = true;
    ++st.instructionsRetired;
    st.actions += countActions(I, cfg);
    if (auto overflow = pushTokens(I, state, cfg)) {
      fault(FaultKind::TokenOverflow, index, *overflow);
      break;
    }
    if (options.progress && (order & 1023) == 0) {
      auto now = Clock::now();
      if (std::chrono::duration<double>(now - lastReport).count() >=
          options.progressIntervalSeconds) {
        lastReport = now;
        options.progress({0, st.instructionsRetired, stream.size(),
                          std::chrono::duration<double>(now - t0).count()});
      }
    }
  }
  st.totalCycles = 0; // no timing in this backend
  return result;
}
