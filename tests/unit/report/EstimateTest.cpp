//===- EstimateTest.cpp - The estimate agrees with the cycle model --------===//
//
// The hand-derived programs of docs/simulator.md and random double-buffered
// tile pipelines: total cycles, per-instruction records, busy and stall
// cycles and action counts must equal the SystemC model's.
//
//===----------------------------------------------------------------------===//
#include "SimTestUtil.h"

#include "systole/Simulator/Estimate.h"

#include <random>

using namespace systole;
using namespace systole::sim;
using namespace systole::sim::test;

namespace {

void expectSameAsCycle(llvm::ArrayRef<Instruction> stream,
                       const isa::HwConfig &cfg) {
  MachineState state = MachineState::create(cfg, 1 << 20);
  RunResult c = runCycleAccurate(stream, cfg, state);
  RunResult e = runEstimate(stream, cfg);
  ASSERT_FALSE(c.fault) << c.fault->message();
  ASSERT_FALSE(e.fault) << e.fault->message();
  EXPECT_EQ(e.stats.totalCycles, c.stats.totalCycles);
  EXPECT_EQ(e.stats.instructionsRetired, c.stats.instructionsRetired);
  for (unsigned u = 0; u < kNumUnits; ++u)
    EXPECT_EQ(e.stats.unitBusy[u], c.stats.unitBusy[u]) << unitName(Unit(u));
  for (unsigned s = 0; s < kNumStallCauses; ++s)
    EXPECT_EQ(e.stats.stalls[s], c.stats.stalls[s])
        << stallCauseName(StallCause(s));
  EXPECT_EQ(e.stats.actions.macs, c.stats.actions.macs);
  EXPECT_EQ(e.stats.actions.dramReadBytes, c.stats.actions.dramReadBytes);
  for (size_t i = 0; i < stream.size(); ++i) {
    const InstructionRecord &a = e.stats.instructions[i],
                            &b = c.stats.instructions[i];
    EXPECT_EQ(a.fetch, b.fetch) << "#" << i;
    EXPECT_EQ(a.start, b.start) << "#" << i;
    EXPECT_EQ(a.end, b.end) << "#" << i;
    EXPECT_EQ(a.channelStart, b.channelStart) << "#" << i;
    EXPECT_EQ(a.tokenWait, b.tokenWait) << "#" << i;
  }
}

TEST(Estimate, HandDerivedDmaPrograms) {
  isa::HwConfig cfg = preset("tiny-4x4");
  cfg.dram.burstBytes = 64;
  cfg.dram.bytesPerCycle = 16;
  cfg.dram.latencyCycles = 100;
  // LOAD 128 B at address 1: 3 bursts x 4 + 100 = 112 (docs/simulator.md).
  std::vector<Instruction> one = {dma(Opcode::Load, 1, 0, 128), end()};
  EXPECT_EQ(runEstimate(one, cfg).stats.totalCycles, 112u);
  expectSameAsCycle(one, cfg);
  // Two LOADs of 128 B: the second holds the channel 8-15, + 100 = 116.
  std::vector<Instruction> two = {dma(Opcode::Load, 0, 0, 128),
                                  dma(Opcode::Load, 128, 128, 128), end()};
  EXPECT_EQ(runEstimate(two, cfg).stats.totalCycles, 116u);
  expectSameAsCycle(two, cfg);
}

TEST(Estimate, FullCommandQueueStallsFetch) {
  isa::HwConfig cfg = preset("tiny-4x4");
  cfg.queues.cmdDepth = 2;
  std::vector<Instruction> s;
  for (int i = 0; i < 5; ++i)
    s.push_back(matmul(isa::Dataflow_ws, 6, 4, 4, true));
  s.push_back(dma(Opcode::Load, 0, 8192, 64));
  s.push_back(end());
  RunResult e = runEstimate(s, cfg);
  EXPECT_GT(e.stats.stalls[unsigned(StallCause::QueueFull)], 0u);
  expectSameAsCycle(s, cfg);
}

/// T tiles: load (double buffered), matmul + a second matmul sharing the
/// accumulator, store; random sizes so DMA- and compute-bound tiles mix.
/// With `requant` a tile ends like a conv tile: a REQUANT of its accumulator
/// into the SP output slot, which the store waits for. ACC and SP slots stay
/// disjoint, so with vector.requant_overlap the next tile's MATMULs may run
/// beside it.
std::vector<Instruction> pipeline(std::mt19937 &rng, unsigned T,
                                  bool requant = false) {
  std::uniform_int_distribution<uint64_t> bytes(1, 700), m(1, 24), k(1, 8);
  std::vector<Instruction> s;
  for (unsigned t = 0; t < T; ++t) {
    uint64_t slot = t % 2, acc = (requant ? 256 : 64) * slot;
    s.push_back(withDeps(dma(Opcode::Load, 1024 * t, slot * 1024, bytes(rng)),
                         false, t >= 2, false, true));
    uint64_t M = m(rng), K = k(rng);
    s.push_back(withDeps(
        matmul(isa::Dataflow_ws, M, K, 4, true, slot * 1024, 4096, acc), true,
        t >= 2, true, false));
    Instruction second = matmul(rng() % 2 ? isa::Dataflow_os : isa::Dataflow_ws,
                                requant ? std::min<uint64_t>(M, 4) : 4, 4, 4,
                                true, slot * 1024, requant ? 3072 : 2048, acc);
    Instruction rq(Opcode::Requant);
    rq.with(F::Requant_m, M)
        .with(F::Requant_n, 4)
        .with(F::Requant_c_addr, acc)
        .with(F::Requant_c_stride, 4)
        .with(F::Requant_scale_addr, 1000)
        .with(F::Requant_o_addr, 2048 + slot * 512)
        .with(F::Requant_o_stride, 4)
        .with(F::Requant_lo, -128)
        .with(F::Requant_hi, 127);
    if (requant)
      s.push_back(second);
    s.push_back(withDeps(requant ? rq : second, false, false, false, true));
    s.push_back(withDeps(
        dma(Opcode::Store, 65536 + 1024 * t, 2048 + slot * 512, bytes(rng)),
        true, false, true, false));
    if (rng() % 5 == 0)
      s.push_back(fence(isa::Queue::Compute));
  }
  s.push_back(end());
  return s;
}

TEST(Estimate, RandomPipelinesMatchTheCycleModel) {
  std::mt19937 rng(8);
  for (int trial = 0; trial < 40; ++trial) {
    isa::HwConfig cfg = preset("tiny-4x4");
    cfg.queues.cmdDepth = 1 + rng() % 6;
    cfg.dram.latencyCycles = rng() % 40;
    std::vector<Instruction> s = pipeline(rng, 3 + rng() % 12);
    SCOPED_TRACE("trial " + std::to_string(trial));
    expectSameAsCycle(s, cfg);
  }
}

TEST(Estimate, RequantOverlapMatchesTheCycleModel) {
  std::mt19937 rng(9);
  for (int trial = 0; trial < 40; ++trial) {
    isa::HwConfig cfg = preset("tiny-4x4");
    cfg.vector.requantOverlap = trial % 2;
    cfg.queues.cmdDepth = 1 + rng() % 6;
    cfg.dram.latencyCycles = rng() % 40;
    std::vector<Instruction> s = pipeline(rng, 3 + rng() % 12, true);
    SCOPED_TRACE("trial " + std::to_string(trial));
    expectSameAsCycle(s, cfg);
  }
}

TEST(Estimate, DeadlockIsAFault) {
  isa::HwConfig cfg = preset("tiny-4x4");
  std::vector<Instruction> s = {
      withDeps(fence(isa::Queue::Compute), true, false, false, false), end()};
  RunResult e = runEstimate(s, cfg);
  ASSERT_TRUE(e.fault);
  EXPECT_EQ(e.fault->kind, FaultKind::TokenDeadlock);
  EXPECT_EQ(e.fault->instruction, 0u);
}

} // namespace
