//===- Modules.h - SystemC modules of the cycle-accurate NPU ----*- C++ -*-===//
//
// One sc_module per hardware block of docs/isa.md. Units work at whole-
// instruction granularity: each waits exactly the cycles the shared timing
// reference (isa::computeCycles, isa::dmaTiming) gives, while the
// interactions between blocks (fetch rate, queue back-pressure, tokens,
// DRAM arbitration) are decided cycle by cycle.
//
// Determinism: every decision of cycle t happens at a fixed phase inside the
// cycle (simulated time t * kPeriod + phase), so the outcome never depends on
// the order in which the SystemC kernel runs processes of the same instant:
//   retire  (load, compute, store at +0, +1, +2): values, token pushes
//   fetch   (+10): dispatch one instruction into a command queue
//   issue   (+20): queue heads pop tokens and start
//   arbitrate (+30): the DRAM channel grants one waiting DMA
//
// This header is only included by RTTI-enabled translation units.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SIMULATOR_CYCLE_MODULES_H
#define SYSTOLE_SIMULATOR_CYCLE_MODULES_H

#include "systole/ISA/MatmulPipeline.h"
#include "systole/ISA/Timing.h"
#include "systole/Simulator/Simulator.h"

#include <systemc>

#include <chrono>
#include <deque>
#include <memory>

namespace systole::sim::cycle {

constexpr uint64_t kPeriod = 100; // time resolution units (ps) per cycle
enum Phase : uint64_t {
  kRetireLoad = 0,
  kRetireCompute = 1,
  kRetireStore = 2,
  kFetch = 10,
  kIssue = 20,
  kArbitrate = 30,
};

uint64_t currentCycle();
/// Suspends the calling thread until cycle `cycle`, phase `phase`.
void waitUntil(uint64_t cycle, uint64_t phase);
/// The next instant of `phase` at or after now.
void waitPhase(uint64_t phase);

/// What all modules share: the program, the state, the records.
struct Context {
  llvm::ArrayRef<isa::Instruction> stream;
  const isa::HwConfig *cfg = nullptr;
  MachineState *state = nullptr;
  const RunOptions *options = nullptr;
  RunStats *stats = nullptr;
  std::optional<Fault> fault;
  uint64_t lastActivity = 0; ///< cycle of the last retire/fetch/issue
  uint64_t endFetched = UINT64_MAX;
  uint64_t toRetire = 0; ///< instructions dispatched to queues in the stream
  std::chrono::steady_clock::time_point wallStart, lastReport;

  void raise(FaultKind kind, size_t index, std::string detail);
  bool stopped() const { return fault.has_value(); }
  void retired(size_t index);
};

/// A dependency-token FIFO: a counter bounded by token_depth plus the event
/// its consumer waits on.
struct TokenFifo : sc_core::sc_module {
  TokenFifo(sc_core::sc_module_name name) : sc_module(name) {}
  sc_core::sc_event pushed;
};

/// Scratchpad or accumulator SRAM: owns no bytes (MachineState does) but
/// is the block that reports bank conflicts of the operands of an access.
struct Sram : sc_core::sc_module {
  Sram(sc_core::sc_module_name name, uint64_t banks)
      : sc_module(name), banks(banks) {}
  uint64_t banks;
};

struct CommandQueue;

/// Instruction fetch and dispatch: one instruction per cycle into the
/// cmd_depth-deep queue of its kind; stalls while that queue is full.
struct FetchUnit : sc_core::sc_module {
  SC_HAS_PROCESS(FetchUnit);
  FetchUnit(sc_core::sc_module_name name, Context &ctx);
  void run();
  Context &ctx;
  CommandQueue *queues[3] = {};
};

/// The shared DRAM channel: one transfer at a time, non-preemptive, granted
/// at the arbitration phase in order of request (ties: load first).
struct DramChannel : sc_core::sc_module {
  SC_HAS_PROCESS(DramChannel);
  DramChannel(sc_core::sc_module_name name, Context &ctx);
  /// Blocks until granted; returns the grant cycle. Occupies the channel for
  /// `cycles` from then.
  uint64_t acquire(size_t index, uint64_t cycles);
  void arbitrate();
  Context &ctx;
  uint64_t freeAt = 0;
  struct Request {
    size_t index;
    uint64_t cycles;
    uint64_t requested;
    bool store;
    uint64_t grant = UINT64_MAX;
    sc_core::sc_event granted;
  };
  std::vector<Request *> pending;
  sc_core::sc_event wake;
};

/// A unit that executes instructions of one queue: durations and values.
struct ExecUnit {
  virtual ~ExecUnit();
  /// Cycles the unit is busy with `inst` (the timing reference).
  virtual uint64_t cycles(const isa::Instruction &inst) = 0;
};

/// The array holds up to array.matmul_inflight WS MATMULs at once
/// (isa::MatmulPipeline); its busy time counts cycles with any in it.
struct SystolicArray : sc_core::sc_module {
  SystolicArray(sc_core::sc_module_name name, Context &ctx, Sram &sp)
      : sc_module(name), ctx(ctx), sp(sp), pipeline(*ctx.cfg) {}
  /// Earliest issue cycle of MATMUL `inst` as far as the array is concerned.
  uint64_t ready(const isa::Instruction &inst) const {
    return pipeline.earliestIssue(inst);
  }
  /// Cycle at which every MATMUL issued so far has completed.
  uint64_t drained() const { return pipeline.drained(); }
  /// Starts MATMUL `inst` at `start`; returns its completion cycle.
  uint64_t issue(const isa::Instruction &inst, uint64_t start);
  Context &ctx;
  Sram &sp;
  isa::MatmulPipeline pipeline;
};
struct PostProcessor : sc_core::sc_module, ExecUnit {
  PostProcessor(sc_core::sc_module_name name, Context &ctx)
      : sc_module(name), ctx(ctx) {}
  uint64_t cycles(const isa::Instruction &inst) override;
  Context &ctx;
};
struct VectorUnit : sc_core::sc_module, ExecUnit {
  VectorUnit(sc_core::sc_module_name name, Context &ctx, Sram &sp)
      : sc_module(name), ctx(ctx), sp(sp) {}
  uint64_t cycles(const isa::Instruction &inst) override;
  Context &ctx;
  Sram &sp;
};

/// The DMA engine: a load path (DRAM -> SP/ACC) and a store path
/// (SP/ACC -> DRAM) sharing the DRAM channel. A path issues its next
/// transfer when its previous one leaves the channel, so the DRAM latency of
/// consecutive transfers overlaps.
struct DmaEngine : sc_core::sc_module {
  DmaEngine(sc_core::sc_module_name name, Context &ctx, DramChannel &channel)
      : sc_module(name), ctx(ctx), channel(channel) {}
  /// Runs the transfer of `index` from the current (issue) instant; returns
  /// (channel grant cycle, completion cycle), after the channel is released.
  std::pair<uint64_t, uint64_t> transfer(size_t index);
  Context &ctx;
  DramChannel &channel;
};

/// A command queue: in-order issue of its instructions, token pops at
/// issue, in-order retirement (values, token pushes) at completion. With
/// vector.requant_overlap the compute queue retires REQUANTs (on the
/// post-processor) in a second in-order stream beside the other units.
struct CommandQueue : sc_core::sc_module {
  SC_HAS_PROCESS(CommandQueue);
  CommandQueue(sc_core::sc_module_name name, Context &ctx, isa::Queue which,
               TokenFifo *fifos[isa::kNumTokenFifos]);
  void issueLoop();
  void retireLoop() { retireFrom(inFlight, retireQueued); }
  void postRetireLoop() { retireFrom(postInFlight, postRetireQueued); }
  void retireFrom(std::deque<std::pair<size_t, uint64_t>> &list,
                  sc_core::sc_event &queued);
  bool full() const { return entries.size() >= capacity; }

  Context &ctx;
  isa::Queue which;
  size_t capacity;
  TokenFifo *fifos[isa::kNumTokenFifos];
  std::deque<size_t> entries; ///< dispatched, not yet issued
  sc_core::sc_event dispatched, slotFreed, retireQueued;
  std::deque<std::pair<size_t, uint64_t>> inFlight;     ///< (index, end cycle)
  std::deque<std::pair<size_t, uint64_t>> postInFlight; ///< overlapped REQUANTs
  sc_core::sc_event postRetireQueued;
  uint64_t lastEnd = 0;
  // Units this queue drives.
  SystolicArray *array = nullptr;
  ExecUnit *post = nullptr, *vector = nullptr;
  DmaEngine *dma = nullptr;
  bool headBlocked = false; ///< head waits for a token
};

/// The whole NPU: builds the blocks and wires them.
struct Npu : sc_core::sc_module {
  Npu(sc_core::sc_module_name name, Context &ctx);
  ~Npu() override;
  Context &ctx;
  std::unique_ptr<TokenFifo> fifos[isa::kNumTokenFifos];
  std::unique_ptr<Sram> scratchpad, accumulator;
  std::unique_ptr<DramChannel> dram;
  std::unique_ptr<DmaEngine> dma;
  std::unique_ptr<SystolicArray> array;
  std::unique_ptr<PostProcessor> post;
  std::unique_ptr<VectorUnit> vector;
  std::unique_ptr<CommandQueue> queues[3];
  std::unique_ptr<FetchUnit> fetch;
};

} // namespace systole::sim::cycle

#endif // SYSTOLE_SIMULATOR_CYCLE_MODULES_H
