//===- FaultTest.cpp - Faults end the run with a precise diagnostic -------===//
#include "SimTestUtil.h"

using namespace systole;
using namespace systole::sim;
using namespace systole::sim::test;

namespace {
RunResult runOn(BackendKind b, const std::vector<Instruction> &s,
                const isa::HwConfig &cfg, uint64_t dram = 4096) {
  MachineState st = MachineState::create(cfg, dram);
  return runSegment(b, s, cfg, st);
}
} // namespace

// A compute FENCE pops a load->compute token nobody pushes. tiny-4x4: the
// LOAD (16 bytes: 4 channel cycles + 10 latency) retires at cycle 14, after
// which nothing is in flight.
TEST(Faults, TokenWaitThatNeverEndsIsADeadlock) {
  isa::HwConfig cfg = preset("tiny-4x4");
  std::vector<Instruction> s = {
      dma(Opcode::Load, 0, 0, 16),
      withDeps(fence(isa::Queue::Compute), true, false, false, false), end()};
  RunResult r = runOn(BackendKind::Cycle, s, cfg);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->kind, FaultKind::TokenDeadlock);
  EXPECT_EQ(r.fault->instruction, 1u);
  EXPECT_EQ(r.fault->opcode, Opcode::Fence);
  EXPECT_EQ(r.fault->queue, isa::Queue::Compute);
  EXPECT_EQ(r.fault->cycle, 14u);
  EXPECT_EQ(r.fault->message(), "fault: token deadlock at instruction #1 "
                                "(fence, compute queue), cycle 14: waits "
                                "for a load->compute token that can never "
                                "arrive (no instruction in flight)");
  EXPECT_EQ(r.stats.instructionsRetired, 1u);
  // Functional: same instruction; its "cycle" is the instruction index.
  RunResult f = runOn(BackendKind::Functional, s, cfg);
  ASSERT_TRUE(f.fault);
  EXPECT_EQ(f.fault->kind, FaultKind::TokenDeadlock);
  EXPECT_EQ(f.fault->instruction, 1u);
  EXPECT_EQ(f.fault->cycle, 1u);
}

TEST(Faults, DeadlockNamesEveryBlockedQueue) {
  isa::HwConfig cfg = preset("tiny-4x4");
  // Compute waits for load, load waits for compute.
  std::vector<Instruction> s = {
      withDeps(dma(Opcode::Load, 0, 0, 16), false, true, false, true),
      withDeps(fence(isa::Queue::Compute), true, false, true, false), end()};
  RunResult r = runOn(BackendKind::Cycle, s, cfg);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->cycle, 2u); // END (#2) fetched in cycle 2, then silence
  EXPECT_EQ(r.fault->message(), "fault: token deadlock at instruction #0 "
                                "(load, load queue), cycle 2: waits for a "
                                "compute->load token that can never arrive (no "
                                "instruction in flight); compute "
                                "queue blocked at instruction #1 (fence)");
}

// token_depth 1: a REQUANT keeps the compute queue busy for 20*1 + 2 = 22
// cycles; L0 (fetched at 1, channel 1-4) pushes at 15, L1 (channel 5-8)
// pushes at 19 into the full FIFO.
TEST(Faults, TokenFifoOverflow) {
  isa::HwConfig cfg = preset("tiny-4x4");
  cfg.queues.tokenDepth = 1;
  Instruction R(Opcode::Requant);
  R.with(F::Requant_m, 20)
      .with(F::Requant_n, 4)
      .with(F::Requant_c_stride, 4)
      .with(F::Requant_o_addr, 8192)
      .with(F::Requant_o_stride, 4);
  std::vector<Instruction> s = {
      R,
      withDeps(dma(Opcode::Load, 0, 0, 16), false, false, false, true),
      withDeps(dma(Opcode::Load, 16, 16, 16), false, false, false, true),
      withDeps(fence(isa::Queue::Compute), true, false, false, false),
      withDeps(fence(isa::Queue::Compute), true, false, false, false),
      end()};
  RunResult r = runOn(BackendKind::Cycle, s, cfg);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->message(),
            "fault: token FIFO overflow at instruction #2 (load, load queue), "
            "cycle 19: push "
            "into the full load->compute token FIFO (token_depth 1)");
  RunResult f = runOn(BackendKind::Functional, s, cfg);
  ASSERT_TRUE(f.fault);
  EXPECT_EQ(f.fault->kind, FaultKind::TokenOverflow);
  EXPECT_EQ(f.fault->instruction, 2u);
}

TEST(Faults, AddressesOutOfRange) {
  isa::HwConfig cfg = preset("tiny-4x4"); // ACC 1024 words, SP 16384 bytes
  // C of 4 rows x 4 at word 1020 runs to 1020 + 3*4 + 4 = 1036 > 1024.
  Instruction mm = matmul(isa::Dataflow_os, 4, 4, 4, false, 0, 4096, 1020);
  for (BackendKind b : {BackendKind::Cycle, BackendKind::Functional}) {
    RunResult r = runOn(b, {fence(isa::Queue::Compute), mm, end()}, cfg);
    ASSERT_TRUE(r.fault);
    EXPECT_EQ(r.fault->kind, FaultKind::SramOutOfRange);
    EXPECT_EQ(r.fault->instruction, 1u);
    if (b == BackendKind::Cycle) // issues when the 1-cycle FENCE is done
      EXPECT_EQ(r.fault->message(), "fault: SRAM address out of range at "
                                    "instruction #1 (matmul, compute queue), "
                                    "cycle 1: operand C writes ACC [0x3fc, "
                                    "0x40c) outside its 1024 words");
  }
  // A LOAD reading DRAM [4000, 4100) of a 4096-byte image.
  RunResult r =
      runOn(BackendKind::Cycle, {dma(Opcode::Load, 4000, 0, 100), end()}, cfg);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->message(),
            "fault: DMA outside the DRAM image at instruction #0 (load, load "
            "queue), cycle 0: "
            "operand src reads DRAM [0xfa0, 0x1004) outside its 4096 bytes");
}

TEST(Faults, CycleLimitStopsARun) {
  isa::HwConfig cfg = preset("tiny-4x4");
  MachineState st = MachineState::create(cfg, 4096);
  RunOptions o;
  o.maxCycles = 10;
  RunResult r = runCycleAccurate(
      {matmul(isa::Dataflow_os, 4, 100, 4, false), end()}, cfg, st, o);
  ASSERT_TRUE(r.fault);
  EXPECT_EQ(r.fault->kind, FaultKind::CycleLimit);
  EXPECT_EQ(r.fault->cycle, 10u);
}
