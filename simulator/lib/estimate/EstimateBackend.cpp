//===- EstimateBackend.cpp - Discrete-event timing model without values ---===//
//
// Mirrors the SystemC model (lib/cycle) decision by decision. Every cycle
// that can change anything is visited once and its phases run in the same
// order as the SystemC phases: retire (load, compute, store), fetch, issue,
// DRAM arbitration. Between such cycles nothing happens, so the loop jumps
// to the next one: the earliest completion, fetch slot, unit release or
// channel release. Because the rules are the same, the cycle counts are the
// cycle model's; the 2% bound of the estimate test is a safety margin, not
// an approximation budget.
//
//===----------------------------------------------------------------------===//
#include "systole/Simulator/Estimate.h"

#include "../PostProcessorHazard.h"

#include "systole/ISA/MatmulPipeline.h"
#include "systole/ISA/Timing.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <deque>

using namespace systole;
using namespace systole::sim;
using isa::Instruction;

namespace {

constexpr uint64_t kNever = UINT64_MAX;

struct QueueState {
  std::deque<size_t> entries;                       ///< dispatched, not issued
  std::deque<std::pair<size_t, uint64_t>> inFlight; ///< (index, end)
  /// REQUANTs on the post-processor with vector.requant_overlap: their own
  /// in-order retirement stream, as in the cycle model.
  std::deque<std::pair<size_t, uint64_t>> postInFlight;
  uint64_t unitFree = 0;
  uint64_t nextIssue = 0; ///< one issue per queue per cycle
  uint64_t postFree = 0;
  size_t postIdx = 0;
  uint64_t lastEnd = 0;
  bool awaitingGrant = false; ///< DMA issued, waiting for the channel
};

struct ChannelRequest {
  size_t index;
  uint64_t cycles;
  uint64_t requested;
  bool store;
};

class EstimateModel {
public:
  EstimateModel(llvm::ArrayRef<Instruction> stream, const isa::HwConfig &cfg,
                const RunOptions &options, RunStats &st)
      : stream(stream), cfg(cfg), options(options), st(st),
        capacity(cfg.queues.cmdDepth ? cfg.queues.cmdDepth : 1), array(cfg) {}

  std::optional<Fault> run();
  uint64_t endFetched = kNever;

private:
  bool tokensReady(const Instruction &I) const;
  void popTokens(const Instruction &I);
  /// False on overflow (fault raised).
  bool pushTokens(const Instruction &I, size_t index, uint64_t t);
  void retire(unsigned q, uint64_t t);
  void fetch(uint64_t t);
  void issue(unsigned q, uint64_t t);
  /// Earliest issue cycle of queue q's head `idx` from its units.
  uint64_t readyCycle(unsigned q, size_t idx) const;
  void arbitrate(uint64_t t);
  void raise(FaultKind kind, size_t index, uint64_t t, std::string detail);
  uint64_t nextEventAfter(uint64_t t) const;

  llvm::ArrayRef<Instruction> stream;
  const isa::HwConfig &cfg;
  const RunOptions &options;
  RunStats &st;
  size_t capacity;
  QueueState queues[3];
  uint64_t tokens[isa::kNumTokenFifos] = {};
  std::vector<ChannelRequest> pending;
  uint64_t channelFree = 0;
  size_t nextFetch = 0;
  uint64_t fetchAt = 0;
  int fetchBlockedOn = -1; ///< queue whose fullness stalls fetch
  uint64_t fetchBlockedFrom = 0;
  std::optional<Fault> fault;
  /// The systolic array's MATMULs in flight (the cycle model's rule).
  isa::MatmulPipeline array;
};

template <typename Fn> void forPops(const Instruction &I, Fn fn) {
  isa::Deps d = I.deps();
  if (d.popPrev)
    if (auto f = isa::popPrevFifo(I.queue()))
      fn(*f);
  if (d.popNext)
    if (auto f = isa::popNextFifo(I.queue()))
      fn(*f);
}

template <typename Fn> void forPushes(const Instruction &I, Fn fn) {
  isa::Deps d = I.deps();
  if (d.pushPrev)
    if (auto f = isa::pushPrevFifo(I.queue()))
      fn(*f);
  if (d.pushNext)
    if (auto f = isa::pushNextFifo(I.queue()))
      fn(*f);
}

bool EstimateModel::tokensReady(const Instruction &I) const {
  bool ready = true;
  forPops(I, [&](isa::TokenFifo f) { ready &= tokens[unsigned(f)] > 0; });
  return ready;
}

void EstimateModel::popTokens(const Instruction &I) {
  forPops(I, [&](isa::TokenFifo f) { --tokens[unsigned(f)]; });
}

bool EstimateModel::pushTokens(const Instruction &I, size_t index, uint64_t t) {
  bool ok = true;
  forPushes(I, [&](isa::TokenFifo f) {
    if (!ok)
      return;
    if (tokens[unsigned(f)] >= cfg.queues.tokenDepth) {
      raise(FaultKind::TokenOverflow, index, t,
            llvm::formatv("push into the full {0} FIFO (token_depth {1})",
                          isa::tokenFifoName(f), cfg.queues.tokenDepth)
                .str());
      ok = false;
      return;
    }
    ++tokens[unsigned(f)];
  });
  return ok;
}

void EstimateModel::raise(FaultKind kind, size_t index, uint64_t t,
                          std::string detail) {
  if (fault)
    return;
  Fault f;
  f.kind = kind;
  f.instruction = index;
  f.opcode = stream[index].opcode();
  f.queue = stream[index].queue();
  f.cycle = t;
  f.detail = std::move(detail);
  fault = std::move(f);
}

// Retirement at the completion cycle, in program order within the queue
// (ends are non-decreasing because issue clamps them to the previous end).
void EstimateModel::retire(unsigned q, uint64_t t) {
  QueueState &Q = queues[q];
  for (auto *list : {&Q.inFlight, &Q.postInFlight})
    while (!fault && !list->empty() && list->front().second <= t) {
      size_t idx = list->front().first;
      list->pop_front();
      const Instruction &I = stream[idx];
      st.actions += countActions(I, cfg);
      st.instructions[idx].executed = true;
      ++st.instructionsRetired;
      pushTokens(I, idx, t);
    }
}

// One instruction per cycle; a full queue stalls fetch until an issue in
// that queue frees a slot (usable the next cycle).
void EstimateModel::fetch(uint64_t t) {
  if (endFetched != kNever || fetchBlockedOn >= 0 || fetchAt > t ||
      nextFetch >= stream.size())
    return;
  const Instruction &I = stream[nextFetch];
  InstructionRecord &rec = st.instructions[nextFetch];
  if (I.opcode() == isa::Opcode::End) {
    rec.fetch = rec.start = rec.end = t;
    rec.executed = true;
    endFetched = t;
    ++st.unitBusy[unsigned(Unit::Fetch)];
    return;
  }
  unsigned q = unsigned(I.queue());
  if (queues[q].entries.size() >= capacity) {
    fetchBlockedOn = int(q);
    fetchBlockedFrom = t;
    return;
  }
  queues[q].entries.push_back(nextFetch);
  rec.fetch = t;
  ++st.unitBusy[unsigned(Unit::Fetch)];
  ++nextFetch;
  fetchAt = t + 1;
  if (nextFetch >= stream.size())
    endFetched = fetchAt; // a stream without END ends where it ends
}

static Unit queueUnit(unsigned q) {
  return q == 0   ? Unit::LoadQueue
         : q == 1 ? Unit::ComputeQueue
                  : Unit::StoreQueue;
}

uint64_t EstimateModel::readyCycle(unsigned q, size_t idx) const {
  const QueueState &Q = queues[q];
  uint64_t ready =
      std::max({st.instructions[idx].fetch, Q.unitFree, Q.nextIssue});
  // With vector.requant_overlap only MATMULs issue past a running REQUANT
  // (VADD, VMUL, VLUT).
  if (q == unsigned(isa::Queue::Compute) && cfg.vector.requantOverlap &&
      stream[idx].opcode() != isa::Opcode::Matmul)
    ready = std::max(ready, Q.postFree);
  if (q == unsigned(isa::Queue::Compute))
    ready = std::max(ready, stream[idx].opcode() == isa::Opcode::Matmul
                                ? array.earliestIssue(stream[idx])
                                : array.drained());
  return ready;
}

void EstimateModel::issue(unsigned q, uint64_t t) {
  QueueState &Q = queues[q];
  using F = isa::Field;
  while (!fault && !Q.awaitingGrant && !Q.entries.empty()) {
    size_t idx = Q.entries.front();
    const Instruction &I = stream[idx];
    InstructionRecord &rec = st.instructions[idx];
    uint64_t ready = readyCycle(q, idx);
    if (ready > t || !tokensReady(I))
      return;
    bool onPost =
        q == unsigned(isa::Queue::Compute) && isa::onPostProcessor(I, cfg);
    if (q == unsigned(isa::Queue::Compute) && cfg.vector.requantOverlap &&
        I.opcode() == isa::Opcode::Matmul && Q.postFree > t)
      if (auto h = postProcessorHazard(I, stream[Q.postIdx])) {
        raise(FaultKind::PostProcessorHazard, idx, t,
              *h + " (" +
                  llvm::StringRef(
                      isa::opcodeInfo(stream[Q.postIdx].opcode()).mnemonic)
                      .upper() +
                  " #" + std::to_string(Q.postIdx) + " runs until cycle " +
                  std::to_string(Q.postFree) + ")");
        return;
      }
    rec.tokenWait = t - ready;
    st.stalls[unsigned(StallCause::TokenWait)] += rec.tokenWait;
    st.tokenWaitByQueue[q] += rec.tokenWait;
    popTokens(I);
    Q.entries.pop_front();
    if (fetchBlockedOn == int(q)) {
      fetchBlockedOn = -1;
      fetchAt = t + 1;
      st.stalls[unsigned(StallCause::QueueFull)] += fetchAt - fetchBlockedFrom;
    }
    rec.start = t;
    Q.nextIssue = t + 1;
    if (I.opcode() == isa::Opcode::Load || I.opcode() == isa::Opcode::Store) {
      isa::DmaTiming dt = isa::dmaTiming(I, cfg);
      pending.push_back(
          {idx, dt.channelCycles, t, I.opcode() == isa::Opcode::Store});
      Q.awaitingGrant = true;
      return;
    }
    uint64_t d = isa::computeCycles(I, cfg);
    Unit u = executingUnit(I);
    bool isMatmul = I.opcode() == isa::Opcode::Matmul;
    if (isMatmul) {
      // Overlapping MATMULs count their common cycles once.
      uint64_t before = array.drained();
      d = array.issue(I, t) - t;
      st.unitBusy[unsigned(u)] += t + d - std::max(t, before);
    } else if (u == Unit::PostProcessor || u == Unit::VectorUnit) {
      st.unitBusy[unsigned(u)] += d;
    }
    if (I.opcode() == isa::Opcode::Matmul &&
        I.raw(F::Matmul_dataflow) == isa::Dataflow_os &&
        isa::matmulBankConflict(I, cfg))
      st.stalls[unsigned(StallCause::BankConflict)] += I.raw(F::Matmul_k);
    if ((I.opcode() == isa::Opcode::Vadd || I.opcode() == isa::Opcode::Vmul) &&
        isa::vectorBankConflict(I, cfg)) {
      bool add = I.opcode() == isa::Opcode::Vadd;
      uint64_t L = I.raw(add ? F::Vadd_n0 : F::Vmul_n0) *
                   I.raw(add ? F::Vadd_n1 : F::Vmul_n1);
      st.stalls[unsigned(StallCause::BankConflict)] +=
          (L + cfg.vector.lanes - 1) / cfg.vector.lanes;
    }
    if (onPost) {
      rec.end = Q.postFree = t + d;
      Q.postIdx = idx;
      st.unitBusy[unsigned(queueUnit(q))] += d;
      Q.postInFlight.emplace_back(idx, rec.end);
      continue;
    }
    uint64_t end = std::max(t + d, Q.lastEnd);
    uint64_t busyFrom = isMatmul ? std::max(t, Q.lastEnd) : t;
    if (!isMatmul)
      Q.unitFree = t + d;
    Q.lastEnd = end;
    rec.end = end;
    st.unitBusy[unsigned(queueUnit(q))] += end - std::min(busyFrom, end);
    Q.inFlight.emplace_back(idx, end);
  }
}

// The channel serves requests in order of request cycle (ties: load first);
// a grant holds it for the whole transfer.
void EstimateModel::arbitrate(uint64_t t) {
  while (!pending.empty() && channelFree <= t) {
    auto it =
        std::min_element(pending.begin(), pending.end(),
                         [](const ChannelRequest &a, const ChannelRequest &b) {
                           return std::make_pair(a.requested, a.store) <
                                  std::make_pair(b.requested, b.store);
                         });
    ChannelRequest r = *it;
    pending.erase(it);
    channelFree = t + r.cycles;
    st.unitBusy[unsigned(Unit::DramChannel)] += r.cycles;
    const Instruction &I = stream[r.index];
    InstructionRecord &rec = st.instructions[r.index];
    isa::DmaTiming dt = isa::dmaTiming(I, cfg);
    rec.channelStart = t;
    rec.channelEnd = t + r.cycles;
    rec.dramContention = t - r.requested;
    st.stalls[unsigned(StallCause::DramContention)] += t - r.requested;
    uint64_t done = rec.channelEnd + dt.latencyCycles;
    st.unitBusy[unsigned(r.store ? Unit::DmaStore : Unit::DmaLoad)] +=
        done - r.requested;
    unsigned q = unsigned(I.queue());
    QueueState &Q = queues[q];
    Q.awaitingGrant = false;
    // The issuing thread resumes after the arbitration phase, so its next
    // issue is in a later cycle even for an empty transfer.
    Q.unitFree = std::max(rec.channelEnd, t + 1);
    uint64_t end = std::max(done, Q.lastEnd);
    Q.lastEnd = end;
    rec.end = end;
    st.unitBusy[unsigned(queueUnit(q))] += end - rec.start;
    Q.inFlight.emplace_back(r.index, end);
  }
}

uint64_t EstimateModel::nextEventAfter(uint64_t t) const {
  uint64_t next = kNever;
  auto consider = [&](uint64_t c) {
    next = std::min(next, std::max(c, t + 1));
  };
  if (endFetched == kNever && fetchBlockedOn < 0)
    consider(fetchAt);
  for (const QueueState &Q : queues) {
    if (!Q.inFlight.empty())
      consider(Q.inFlight.front().second);
    if (!Q.postInFlight.empty())
      consider(Q.postInFlight.front().second);
    // A head blocked on tokens can only be released by a retirement, which
    // is an event of its own.
    if (!Q.awaitingGrant && !Q.entries.empty() &&
        tokensReady(stream[Q.entries.front()]))
      consider(readyCycle(unsigned(&Q - queues), Q.entries.front()));
  }
  if (!pending.empty())
    consider(channelFree);
  return next;
}

std::optional<Fault> EstimateModel::run() {
  uint64_t t = 0;
  while (true) {
    if (options.maxCycles && t > options.maxCycles) {
      size_t oldest = stream.size() - 1;
      for (const QueueState &Q : queues) {
        if (!Q.entries.empty())
          oldest = std::min(oldest, Q.entries.front());
        if (!Q.inFlight.empty())
          oldest = std::min(oldest, Q.inFlight.front().first);
      }
      raise(FaultKind::CycleLimit, oldest, options.maxCycles,
            "the run did not finish within --max-cycles " +
                std::to_string(options.maxCycles) +
                " (oldest unfinished instruction named)");
      return fault;
    }
    for (unsigned q = 0; q < 3; ++q)
      retire(q, t);
    fetch(t);
    for (unsigned q = 0; q < 3; ++q)
      issue(q, t);
    arbitrate(t);
    if (fault)
      return fault;
    uint64_t next = nextEventAfter(t);
    if (next == kNever)
      break;
    t = next;
  }
  bool finished = endFetched != kNever;
  size_t oldest = stream.size();
  for (const QueueState &Q : queues) {
    finished &=
        Q.entries.empty() && Q.inFlight.empty() && Q.postInFlight.empty();
    if (!Q.entries.empty())
      oldest = std::min(oldest, Q.entries.front());
  }
  if (!finished) {
    if (oldest == stream.size())
      oldest = std::min(nextFetch, stream.size() - 1);
    std::string missing;
    forPops(stream[oldest], [&](isa::TokenFifo f) {
      if (!tokens[unsigned(f)])
        missing +=
            (missing.empty() ? "" : " and ") + isa::tokenFifoName(f).str();
    });
    raise(
        FaultKind::TokenDeadlock, oldest, t,
        "waits for a " +
            (missing.empty() ? std::string("queue slot") : missing + " token") +
            " that can never arrive");
  }
  return fault;
}

} // namespace

RunResult sim::runEstimate(llvm::ArrayRef<Instruction> stream,
                           const isa::HwConfig &cfg,
                           const RunOptions &options) {
  RunResult result;
  RunStats &st = result.stats;
  st.cycleAccurate = false;
  st.instructions.assign(stream.size(), {});
  EstimateModel model(stream, cfg, options, st);
  result.fault = model.run();
  uint64_t total = model.endFetched == kNever ? 0 : model.endFetched + 1;
  for (const InstructionRecord &r : st.instructions)
    if (r.executed)
      total = std::max(total, r.end);
  st.totalCycles = result.fault ? std::max(total, result.fault->cycle) : total;
  return result;
}
