//===- RtlCosim.h - Run a segment on a Verilated npu_top inside SystemC -*- C++
//-*-===//
//
// The co-simulation of docs/rtl.md: one SC_THREAD clocks the Verilated RTL
// (npu_top, one class per verilated hardware config) once per cycle, serves
// its instruction-fetch port from the stream and its DRAM valid/ready port
// from MachineState::dram, and turns the RTL's per-cycle events (fetch,
// issue, channel grant, completion) into the same InstructionRecords the
// SystemC model fills, so the two can be compared instruction by
// instruction. Included only by the per-config translation units that
// CMake generates next to each Verilated model.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SIMULATOR_RTL_RTLCOSIM_H
#define SYSTOLE_SIMULATOR_RTL_RTLCOSIM_H

#include "../PostProcessorHazard.h"
#include "RtlModels.h"

#include "systole/ISA/Timing.h"
#include "systole/Simulator/Semantics.h"
#include "systole/Simulator/SystemCContext.h"

#include "verilated.h"
#include "verilated_fst_c.h"

#include <systemc>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace systole::sim::rtl {

// Byte access to the Verilated port types of a DRAM_BW*8-bit data bus.
inline uint8_t getByte(uint32_t v, unsigned i) { return uint8_t(v >> (8 * i)); }
inline uint8_t getByte(uint64_t v, unsigned i) { return uint8_t(v >> (8 * i)); }
template <std::size_t W> uint8_t getByte(const VlWide<W> &v, unsigned i) {
  return uint8_t(v[i / 4] >> (8 * (i % 4)));
}
inline void setBytes(uint32_t &v, const uint8_t *b, unsigned n) {
  v = 0;
  for (unsigned i = 0; i < n && i < 4; ++i)
    v |= uint32_t(b[i]) << (8 * i);
}
inline void setBytes(uint64_t &v, const uint8_t *b, unsigned n) {
  v = 0;
  for (unsigned i = 0; i < n && i < 8; ++i)
    v |= uint64_t(b[i]) << (8 * i);
}
template <std::size_t W>
void setBytes(VlWide<W> &v, const uint8_t *b, unsigned n) {
  for (std::size_t w = 0; w < W; ++w)
    v[w] = 0;
  for (unsigned i = 0; i < n && i < 4 * W; ++i)
    v[i / 4] |= uint32_t(b[i]) << (8 * (i % 4));
}
inline uint64_t field(uint32_t v, unsigned q, unsigned bits) {
  return bits == 32 && q == 0 ? v : 0;
}
template <std::size_t W> uint64_t word32(const VlWide<W> &v, unsigned i) {
  return v[i];
}
template <std::size_t W> uint64_t word64(const VlWide<W> &v, unsigned i) {
  return uint64_t(v[2 * i]) | (uint64_t(v[2 * i + 1]) << 32);
}

/// The clock of the Verilated model as a SystemC process.
struct ClockThread : sc_core::sc_module {
  SC_HAS_PROCESS(ClockThread);
  ClockThread(sc_core::sc_module_name name, std::function<bool()> step)
      : sc_module(name), step(std::move(step)) {
    SC_THREAD(run);
  }
  void run() {
    while (step())
      wait(sc_core::sc_time::from_value(100));
  }
  std::function<bool()> step;
};

template <class V> class Cosim {
public:
  Cosim(llvm::ArrayRef<isa::Instruction> stream, const isa::HwConfig &cfg,
        MachineState &state, const RunOptions &options,
        const RtlRunOptions &rtlOptions, unsigned dramBw)
      : stream(stream), cfg(cfg), state(state), options(options),
        rtlOptions(rtlOptions), bw(dramBw) {}

  RunResult run() {
    RunResult result;
    RunStats &st = result.stats;
    st.cycleAccurate = true;
    st.instructions.assign(stream.size(), {});
    stats = &st;
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->traceEverOn(true);
    top = std::make_unique<V>(ctx.get(), "npu");
    std::unique_ptr<VerilatedFstC> fst;
    if (!rtlOptions.wavesPath.empty()) {
      fst = std::make_unique<VerilatedFstC>();
      top->trace(fst.get(), 99);
      fst->open(rtlOptions.wavesPath.c_str());
    }
    waves = fst.get();
    reset();
    wallStart = std::chrono::steady_clock::now();
    {
      FreshSimContext fresh;
      ClockThread clock("rtl_clock", [this] { return step(); });
      sc_core::sc_start();
    }
    if (!fault)
      storeMemories();
    if (fst)
      fst->close();
    uint64_t total = endFetched == UINT64_MAX ? 0 : endFetched + 1;
    for (const InstructionRecord &r : st.instructions)
      if (r.executed)
        total = std::max(total, r.end);
    st.totalCycles = fault ? std::max(total, fault->cycle) : total;
    for (size_t i = 0; i < stream.size(); ++i)
      if (st.instructions[i].executed &&
          stream[i].opcode() != isa::Opcode::End) {
        st.actions += countActions(stream[i], cfg);
        ++st.instructionsRetired;
      }
    result.fault = std::move(fault);
    top->final();
    top.reset(); // before its VerilatedContext
    return result;
  }

private:
  void tick() {
    top->clk = 1;
    top->eval();
    dumpWaves(2 * simTime + 1);
    top->clk = 0;
    top->eval();
    ++simTime;
    dumpWaves(2 * simTime);
  }
  void dumpWaves(uint64_t t) {
    if (waves)
      waves->dump(t);
  }
  // The memories are loaded while the core is in reset: the datapath's read
  // ports re-evaluate on the first edge out of it (npu_datapath.sv).
  void reset() {
    top->rst = 1;
    top->start = 0;
    top->dram_req_ready = 1;
    tick();
    loadMemories();
    top->rst = 0;
    top->start = 1;
    setFetch();
    tick();
    top->start = 0;
  }
  void loadMemories() {
    auto &sp = top->rootp->npu_top__DOT__u_dp__DOT__sp;
    auto &acc = top->rootp->npu_top__DOT__u_dp__DOT__acc;
    for (size_t i = 0; i < state.scratchpad.size(); ++i)
      sp[i] = state.scratchpad[i];
    for (size_t i = 0; i < state.accumulator.size(); ++i)
      acc[i] = uint32_t(state.accumulator[i]);
  }
  void storeMemories() {
    auto &sp = top->rootp->npu_top__DOT__u_dp__DOT__sp;
    auto &acc = top->rootp->npu_top__DOT__u_dp__DOT__acc;
    for (size_t i = 0; i < state.scratchpad.size(); ++i)
      state.scratchpad[i] = sp[i];
    for (size_t i = 0; i < state.accumulator.size(); ++i)
      state.accumulator[i] = int32_t(acc[i]);
  }
  // Only when the fetch index moved: an unchanged input costs the model no
  // re-evaluation of its input logic.
  void setFetch() {
    size_t i = std::min<size_t>(top->fetch_idx, stream.size() - 1);
    if (i == lastFetch)
      return;
    lastFetch = i;
    uint8_t bytes[isa::kInstructionBytes];
    stream[i].encode(bytes);
    setBytes(top->fetch_inst, bytes, isa::kInstructionBytes);
  }
  void raise(FaultKind kind, size_t index, uint64_t cycle, std::string detail) {
    if (fault)
      return;
    Fault f;
    f.kind = kind;
    f.instruction = index;
    f.opcode = stream[index].opcode();
    f.queue = stream[index].queue();
    f.cycle = cycle;
    f.detail = std::move(detail);
    fault = std::move(f);
  }
  size_t oldestUnfinished() const {
    for (size_t i = 0; i < stream.size(); ++i)
      if (!stats->instructions[i].executed)
        return i;
    return stream.size() - 1;
  }

  // One clock cycle; false when the run is over.
  bool step() {
    uint64_t cycle = top->cycle;
    // The DRAM port: the request registered in the previous cycle is served
    // now (write data stored, read data returned on dram_rsp_rdata).
    uint8_t rdata[512] = {};
    if (top->dram_req_valid) {
      uint64_t addr = top->dram_req_addr;
      for (unsigned j = 0; j < bw; ++j) {
        if (addr + j >= state.dram.size())
          break;
        if (top->dram_req_write) {
          if ((uint64_t(top->dram_req_wstrb) >> j) & 1)
            state.dram[addr + j] = getByte(top->dram_req_wdata, j);
        } else {
          rdata[j] = state.dram[addr + j];
        }
      }
    }
    setBytes(top->dram_rsp_rdata, rdata, bw);
    setFetch();
    top->eval();
    if (debug)
      fprintf(stderr,
              "rtl cycle %llu: fetch %d/%u issue %x sched %x grant %d done %d "
              "quiescent %d\n",
              (unsigned long long)cycle, int(top->ev_fetch_valid),
              unsigned(top->ev_fetch_idx), unsigned(top->ev_issue_valid),
              unsigned(top->ev_sched_valid), int(top->ev_grant_valid),
              int(top->done), int(top->quiescent));
    record(cycle);
    if (fault)
      return false;
    if (top->done)
      return false;
    if (top->fault_overflow) {
      raise(FaultKind::TokenOverflow, oldestUnfinished(), cycle,
            "a push into a full token FIFO (RTL)");
      return false;
    }
    if (top->fault_internal) {
      raise(FaultKind::TokenDeadlock, oldestUnfinished(), cycle,
            "RTL internal check failed (retire queue overrun or an "
            "engine off its computeCycles schedule)");
      return false;
    }
    if (top->quiescent) {
      // quiescent rises in the first cycle after the last fetch, issue or
      // retirement; the SystemC model reports that last active cycle.
      raise(FaultKind::TokenDeadlock, oldestUnfinished(), cycle - 1,
            "RTL: every unfinished queue waits on a token that can never "
            "arrive");
      return false;
    }
    if (options.maxCycles && cycle + 1 >= options.maxCycles) {
      raise(FaultKind::CycleLimit, oldestUnfinished(), options.maxCycles,
            "the run did not finish within --max-cycles " +
                std::to_string(options.maxCycles));
      return false;
    }
    tick();
    if (options.progress && (cycle & 0xffff) == 0) {
      auto now = std::chrono::steady_clock::now();
      double s = std::chrono::duration<double>(now - wallStart).count();
      if (s - lastReport >= options.progressIntervalSeconds) {
        lastReport = s;
        Progress p;
        p.cycles = cycle;
        p.instructionsRetired = retired;
        p.instructionsTotal = stream.size();
        p.wallSeconds = s;
        options.progress(p);
      }
    }
    return true;
  }

  void record(uint64_t cycle) {
    auto &recs = stats->instructions;
    if (top->ev_fetch_valid) {
      uint32_t i = top->ev_fetch_idx;
      recs[i].fetch = cycle;
      if (stream[i].opcode() == isa::Opcode::End) {
        recs[i].start = recs[i].end = cycle;
        recs[i].executed = true;
        endFetched = cycle;
      }
    }
    for (unsigned q = 0; q < 3; ++q) {
      if ((top->ev_issue_valid >> q) & 1) {
        uint32_t i = uint32_t(word32(top->ev_issue_idx, q));
        recs[i].start = cycle;
        // The testbench's operand checks (the RTL does not fault on them).
        if (auto f = checkInstruction(stream[i], state)) {
          raise(f->kind, i, cycle, f->detail);
          return;
        }
        if (q == 1 && !checkPostProcessor(i, cycle))
          return;
        noteIssue(stream[i], state);
        recs[i].tokenWait = 0;
      }
      if ((top->ev_sched_valid >> q) & 1) {
        uint32_t i = uint32_t(word32(top->ev_sched_idx, q));
        recs[i].end = word64(top->ev_sched_end, q);
        recs[i].executed = true;
        ++retired;
        if (stream[i].opcode() == isa::Opcode::Load ||
            stream[i].opcode() == isa::Opcode::Store)
          recs[i].channelEnd = top->ev_chan_end;
      }
    }
    if (top->ev_grant_valid) {
      uint32_t i = top->ev_grant_idx;
      recs[i].channelStart = cycle;
      recs[i].dramContention = cycle - recs[i].start;
    }
  }

  // With vector.requant_overlap a MATMUL may issue beside a running
  // REQUANT; like the SystemC model, the testbench faults when the two touch
  // the same memory (the hardware does not check it).
  bool checkPostProcessor(uint32_t i, uint64_t cycle) {
    if (!cfg.vector.requantOverlap)
      return true;
    const isa::Instruction &I = stream[i];
    if (isa::onPostProcessor(I, cfg)) {
      ppIdx = i;
      ppFree = cycle + isa::computeCycles(I, cfg);
    } else if (I.opcode() == isa::Opcode::Matmul && ppFree > cycle) {
      if (auto h = postProcessorHazard(I, stream[ppIdx])) {
        raise(FaultKind::PostProcessorHazard, i, cycle,
              *h + " (" +
                  llvm::StringRef(
                      isa::opcodeInfo(stream[ppIdx].opcode()).mnemonic)
                      .upper() +
                  " #" + std::to_string(ppIdx) + " runs until cycle " +
                  std::to_string(ppFree) + ")");
        return false;
      }
    }
    return true;
  }

  llvm::ArrayRef<isa::Instruction> stream;
  const isa::HwConfig &cfg;
  MachineState &state;
  const RunOptions &options;
  const RtlRunOptions &rtlOptions;
  unsigned bw;
  std::unique_ptr<V> top;
  VerilatedFstC *waves = nullptr;
  RunStats *stats = nullptr;
  std::optional<Fault> fault;
  uint64_t endFetched = UINT64_MAX, simTime = 0, retired = 0;
  uint64_t ppFree = 0, ppIdx = 0; // the REQUANT on the post-processor
  size_t lastFetch = SIZE_MAX;
  std::chrono::steady_clock::time_point wallStart;
  double lastReport = 0;
  bool debug = getenv("SYSTOLE_RTL_DEBUG") != nullptr;
};

} // namespace systole::sim::rtl

#endif // SYSTOLE_SIMULATOR_RTL_RTLCOSIM_H
