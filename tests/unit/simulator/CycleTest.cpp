//===- CycleTest.cpp - Exact cycles against the formulas of docs/isa.md ---===//
//
// Every expected count is derived by hand in the comment next to it from
// docs/isa.md §3 (fetch 1/cycle, issue the cycle an instruction is
// dispatched at the earliest, tokens pushed at completion) and §6.
//
//===----------------------------------------------------------------------===//
#include "SimTestUtil.h"

#include "systole/ISA/MatmulPipeline.h"
#include "systole/Simulator/Estimate.h"

using namespace systole;
using namespace systole::sim;
using namespace systole::sim::test;

namespace {
uint64_t cyclesOf(const std::vector<Instruction> &s, const isa::HwConfig &cfg) {
  RunResult r = runCycles(s, cfg);
  EXPECT_FALSE(r.fault) << r.fault->message();
  return r.stats.totalCycles;
}

Instruction requant(uint64_t M, uint64_t N) {
  Instruction I(Opcode::Requant);
  I.with(F::Requant_m, M)
      .with(F::Requant_n, N)
      .with(F::Requant_c_stride, N)
      .with(F::Requant_scale_addr, 512)
      .with(F::Requant_o_addr, 8192)
      .with(F::Requant_o_stride, N)
      .with(F::Requant_lo, -128)
      .with(F::Requant_hi, 127);
  return I;
}
} // namespace

// WS: T = (preload ? R : 0) + M + R + C - 1, one instruction alone: it is
// fetched and issued in cycle 0, so the run takes exactly T cycles.
TEST(CycleWS, SingleTileOnSeveralArrays) {
  EXPECT_EQ(cyclesOf({matmul(isa::Dataflow_ws, 6, 4, 4, true), end()},
                     arrayConfig(4, 4)),
            4u + 6 + 4 + 4 - 1); // 17, the worked example
  EXPECT_EQ(cyclesOf({matmul(isa::Dataflow_ws, 10, 8, 8, true), end()},
                     arrayConfig(8, 8)),
            8u + 10 + 8 + 8 - 1); // 33
  // Fill/drain is fixed for K < R, N < C.
  EXPECT_EQ(cyclesOf({matmul(isa::Dataflow_ws, 10, 3, 2, true), end()},
                     arrayConfig(8, 8)),
            33u);
  // Non-square 4 x 8: R = 4, C = 8.
  EXPECT_EQ(cyclesOf({matmul(isa::Dataflow_ws, 3, 4, 8, true), end()},
                     arrayConfig(4, 8)),
            4u + 3 + 4 + 8 - 1); // 18
}

TEST(CycleWS, WeightReuseSkipsThePreload) {
  // 16 x 16: preload tile 16 + 5 + 31 = 52, then the reuse 5 + 31 = 36 issues
  // at cycle 52 (the compute queue is in order): 88.
  isa::HwConfig cfg = arrayConfig(16, 16);
  RunResult r = runCycles(
      {matmul(isa::Dataflow_ws, 5, 16, 16, true),
       matmul(isa::Dataflow_ws, 5, 16, 16, false, 0, 4096, 128), end()},
      cfg);
  ASSERT_FALSE(r.fault);
  EXPECT_EQ(r.stats.instructions[0].start, 0u);
  EXPECT_EQ(r.stats.instructions[0].end, 52u);
  EXPECT_EQ(r.stats.instructions[1].start, 52u);
  EXPECT_EQ(r.stats.instructions[1].end, 88u);
  EXPECT_EQ(r.stats.totalCycles, 88u);
  EXPECT_EQ(r.stats.unitBusy[unsigned(Unit::SystolicArray)], 88u);
  EXPECT_EQ(r.stats.actions.macs, 2u * 5 * 16 * 16);
}

// OS: T = K + 2R + C - 2 (+K on a bank conflict).
TEST(CycleOS, SingleTileOnSeveralArrays) {
  EXPECT_EQ(cyclesOf({matmul(isa::Dataflow_os, 4, 8, 4, false), end()},
                     arrayConfig(4, 4)),
            8u + 8 + 4 - 2); // 18
  EXPECT_EQ(cyclesOf({matmul(isa::Dataflow_os, 8, 20, 8, false), end()},
                     arrayConfig(8, 8)),
            20u + 16 + 8 - 2); // 42
  EXPECT_EQ(cyclesOf({matmul(isa::Dataflow_os, 16, 16, 16, false), end()},
                     arrayConfig(16, 16)),
            16u + 32 + 16 - 2); // 62
  EXPECT_EQ(cyclesOf({matmul(isa::Dataflow_os, 4, 5, 8, false), end()},
                     arrayConfig(4, 8)),
            5u + 8 + 8 - 2); // 19
  EXPECT_EQ(cyclesOf({matmul(isa::Dataflow_os, 8, 3, 4, false), end()},
                     arrayConfig(8, 4)),
            3u + 16 + 4 - 2); // 21
}

TEST(CycleOS, BankConflictStallsKCycles) {
  // tiny-4x4: 16 KiB SP in 4 banks of 4 KiB. A at 0 and B at 1024 share
  // bank 0: every streaming step reads the bank twice, 18 + K = 26.
  isa::HwConfig cfg = arrayConfig(4, 4);
  RunResult r = runCycles({matmul(isa::Dataflow_os, 4, 8, 4, false, 0, 1024)
                               .with(F::Matmul_bank_conflict, 1),
                           end()},
                          cfg);
  ASSERT_FALSE(r.fault);
  EXPECT_EQ(r.stats.totalCycles, 26u);
  EXPECT_EQ(r.stats.stalls[unsigned(StallCause::BankConflict)], 8u);
  // B in bank 1: no stall.
  r = runCycles({matmul(isa::Dataflow_os, 4, 8, 4, false, 0, 4096), end()},
                cfg);
  EXPECT_EQ(r.stats.totalCycles, 18u);
  EXPECT_EQ(r.stats.stalls[unsigned(StallCause::BankConflict)], 0u);
}

// DMA: channel_cycles = bursts * burst_bytes / bytes_per_cycle, completion
// latency_cycles after the last beat.
TEST(CycleDma, BurstsBandwidthLatency) {
  isa::HwConfig cfg = preset("tiny-4x4");
  cfg.dram.burstBytes = 64;
  cfg.dram.bytesPerCycle = 16;
  cfg.dram.latencyCycles = 100;
  // Aligned 128 bytes: 2 bursts * 4 beats + 100 = 108.
  EXPECT_EQ(cyclesOf({dma(Opcode::Load, 0, 0, 128), end()}, cfg), 108u);
  // Misaligned by one byte: touches 3 bursts: 12 + 100 = 112.
  EXPECT_EQ(cyclesOf({dma(Opcode::Load, 1, 0, 128), end()}, cfg), 112u);
  // A store costs the same on the channel.
  EXPECT_EQ(cyclesOf({dma(Opcode::Store, 1, 0, 128), end()}, cfg), 112u);
  // The worked example of docs/isa.md: 3 runs of 100 bytes at 0x1010 + i*256,
  // 2 bursts each: 24 + 100 = 124.
  Instruction L = dma(Opcode::Load, 0x1010, 0, 100);
  L.with(F::Load_n1, 3).with(F::Load_s1, 256).with(F::Load_t1, 100);
  EXPECT_EQ(cyclesOf({L, end()}, cfg), 124u);
  // Padding is generated at the SRAM side beside the beats: 2 runs of
  // ceil(100/16) = 7 cycles = 14 < 24, same 124.
  L.with(F::Load_pad_left, 1).with(F::Load_pad_right, 1);
  EXPECT_EQ(cyclesOf({L, end()}, cfg), 124u);
  // One 20-byte pixel (1 burst, 4 beats) in a 3 x 4 box: 11 padding runs of
  // ceil(20/16) = 2 cycles hold the channel for 22: 22 + 100 = 122.
  Instruction P = dma(Opcode::Load, 0x40, 0, 20);
  P.with(F::Load_t1, 20)
      .with(F::Load_t2, 80)
      .with(F::Load_pad_top, 1)
      .with(F::Load_pad_bottom, 1)
      .with(F::Load_pad_left, 1)
      .with(F::Load_pad_right, 2);
  RunResult pr = runCycles({P, end()}, cfg);
  ASSERT_FALSE(pr.fault);
  EXPECT_EQ(pr.stats.instructions[0].channelEnd, 22u);
  EXPECT_EQ(pr.stats.totalCycles, 122u);
  // Element size 4, 10 elements at 60: 40 bytes in [60, 100): 2 bursts.
  Instruction W = dma(Opcode::Load, 60, 0, 10);
  W.with(F::Load_elem_bytes, 4);
  EXPECT_EQ(cyclesOf({W, end()}, cfg), 108u);
}

TEST(CycleDma, ConsecutiveDmasOverlapTheirLatency) {
  isa::HwConfig cfg = preset("tiny-4x4");
  cfg.dram.burstBytes = 64;
  cfg.dram.bytesPerCycle = 16;
  cfg.dram.latencyCycles = 100;
  // L0 holds the channel for cycles 0-7; L1 issues when L0's last beat has
  // left (cycle 8), holds 8-15 and completes at 16 + 100 = 116.
  RunResult r = runCycles(
      {dma(Opcode::Load, 0, 0, 128), dma(Opcode::Load, 128, 128, 128), end()},
      cfg);
  ASSERT_FALSE(r.fault);
  EXPECT_EQ(r.stats.instructions[0].end, 108u);
  EXPECT_EQ(r.stats.instructions[1].channelStart, 8u);
  EXPECT_EQ(r.stats.instructions[1].end, 116u);
  EXPECT_EQ(r.stats.totalCycles, 116u);
  EXPECT_EQ(r.stats.unitBusy[unsigned(Unit::DramChannel)], 16u);
  EXPECT_EQ(r.stats.actions.dramReadBytes, 256u);
}

TEST(CycleDma, LoadWinsATieForTheChannel) {
  // tiny-4x4: 16-byte bursts at 4 bytes/cycle, latency 10. A REQUANT
  // (M=4, N=4: 4 * ceil(4/4) + P=2 = 6 cycles) releases a store (#1) and a
  // load (#2) at cycle 6. Same request cycle: the load gets the channel
  // (6-9, done 20) although the store is older; the store follows (10-13,
  // done 24) after 4 cycles of DRAM contention.
  isa::HwConfig cfg = preset("tiny-4x4");
  RunResult r = runCycles(
      {withDeps(requant(4, 4), false, false, true, true),
       withDeps(dma(Opcode::Store, 0, 8192, 16), true, false, false, false),
       withDeps(dma(Opcode::Load, 64, 0, 16), false, true, false, false),
       end()},
      cfg);
  ASSERT_FALSE(r.fault);
  EXPECT_EQ(r.stats.instructions[0].end, 6u);
  EXPECT_EQ(r.stats.instructions[2].channelStart, 6u);
  EXPECT_EQ(r.stats.instructions[2].end, 20u);
  EXPECT_EQ(r.stats.instructions[1].start, 6u);
  EXPECT_EQ(r.stats.instructions[1].channelStart, 10u);
  EXPECT_EQ(r.stats.instructions[1].end, 24u);
  EXPECT_EQ(r.stats.stalls[unsigned(StallCause::DramContention)], 4u);
  EXPECT_EQ(r.stats.totalCycles, 24u);
}

// Double buffering through tokens (tiny-4x4: a 16-byte LOAD is 4 channel
// cycles + 10 latency = 14; an OS MATMUL M=K=N=4 is 4 + 8 + 4 - 2 = 14).
TEST(CycleTokens, NextTileLoadOverlapsTheMatmul) {
  isa::HwConfig cfg = preset("tiny-4x4");
  Instruction mm = matmul(isa::Dataflow_os, 4, 4, 4, false, 0, 4096);
  // Overlapped: L0 (push) 0-14, L1 (push) issues at 4 when L0 leaves the
  // channel, done 18; M0 waits for L0's token: 14-28; M1 (token at 18
  // already there) 28-42.
  RunResult over = runCycles(
      {withDeps(dma(Opcode::Load, 0, 0, 16), false, false, false, true),
       withDeps(dma(Opcode::Load, 16, 16, 16), false, false, false, true),
       withDeps(mm, true, false, false, false),
       withDeps(mm, true, false, false, false), end()},
      cfg);
  ASSERT_FALSE(over.fault);
  EXPECT_EQ(over.stats.instructions[1].end, 18u);
  EXPECT_EQ(over.stats.instructions[2].start, 14u);
  EXPECT_EQ(over.stats.instructions[3].start, 28u);
  EXPECT_EQ(over.stats.totalCycles, 42u);
  // Serialized: M0 frees the buffer (push_prev) before L1 may start
  // (pop_next): L0 0-14, M0 14-28, L1 28-42, M1 42-56.
  RunResult serial = runCycles(
      {withDeps(dma(Opcode::Load, 0, 0, 16), false, false, false, true),
       withDeps(mm, true, false, true, false),
       withDeps(dma(Opcode::Load, 16, 16, 16), false, true, false, true),
       withDeps(mm, true, false, false, false), end()},
      cfg);
  ASSERT_FALSE(serial.fault);
  EXPECT_EQ(serial.stats.instructions[2].start, 28u);
  EXPECT_EQ(serial.stats.instructions[3].start, 42u);
  EXPECT_EQ(serial.stats.totalCycles, 56u);
  // Slower by exactly the part of the second load that overlapped: 14.
  EXPECT_EQ(serial.stats.totalCycles - over.stats.totalCycles, 14u);
  // Token waits: M0 fetched at 1 waits 13, L1 ready at 4 waits 24, M1 ready
  // at 28 waits 14.
  EXPECT_EQ(serial.stats.stalls[unsigned(StallCause::TokenWait)],
            13u + 24 + 14);
  EXPECT_EQ(serial.stats.tokenWaitByQueue[unsigned(isa::Queue::Load)], 24u);
}

TEST(CycleQueues, FullCommandQueueStallsFetch) {
  // Five REQUANTs of 6 cycles then a 64-byte LOAD (4 bursts * 4 + 10 = 26).
  // cmd_depth 2: R0 issues at 0; R1 (1) and R2 (2) wait in the queue; R3
  // finds it full and is dispatched at 7 (R1 issued at 6); R4 waits for R2's
  // issue at 12 and is dispatched at 13; the LOAD is fetched at 14 and ends at
  // 40. Queue-full stall: (7 - 3) + (13 - 8) = 9.
  isa::HwConfig cfg = preset("tiny-4x4");
  std::vector<Instruction> s;
  for (int i = 0; i < 5; ++i)
    s.push_back(requant(4, 4));
  s.push_back(dma(Opcode::Load, 0, 0, 64));
  s.push_back(end());
  cfg.queues.cmdDepth = 2;
  RunResult r = runCycles(s, cfg);
  ASSERT_FALSE(r.fault);
  EXPECT_EQ(r.stats.instructions[3].fetch, 7u);
  EXPECT_EQ(r.stats.instructions[4].fetch, 13u);
  EXPECT_EQ(r.stats.instructions[5].fetch, 14u);
  EXPECT_EQ(r.stats.instructions[4].end, 30u);
  EXPECT_EQ(r.stats.stalls[unsigned(StallCause::QueueFull)], 9u);
  EXPECT_EQ(r.stats.totalCycles, 40u);
  // Deep queues: the LOAD is fetched at 5 and ends at 31; compute ends at 30.
  cfg.queues.cmdDepth = 16;
  r = runCycles(s, cfg);
  EXPECT_EQ(r.stats.instructions[5].fetch, 5u);
  EXPECT_EQ(r.stats.stalls[unsigned(StallCause::QueueFull)], 0u);
  EXPECT_EQ(r.stats.totalCycles, 31u);
}

TEST(CycleVector, PostProcessingAndVectorFormulas) {
  isa::HwConfig cfg = preset("tiny-4x4"); // lanes 4, P 2
  // REQUANT M=6, N=5: 6 * 2 + 2 = 14.
  EXPECT_EQ(cyclesOf({requant(6, 5), end()}, cfg), 14u);
  // VADD of 10 elements, A and B in different banks: 3 + 2; same bank: 6 + 2.
  Instruction V(Opcode::Vadd);
  V.with(F::Vadd_n0, 10)
      .with(F::Vadd_n1, 1)
      .with(F::Vadd_b_addr, 4096)
      .with(F::Vadd_o_addr, 8192)
      .with(F::Vadd_lo, -128)
      .with(F::Vadd_hi, 127);
  EXPECT_EQ(cyclesOf({V, end()}, cfg), 5u);
  V.set(F::Vadd_b_addr, 100);
  V.set(F::Vadd_bank_conflict, 1);
  RunResult r = runCycles({V, end()}, cfg);
  EXPECT_EQ(r.stats.totalCycles, 8u);
  EXPECT_EQ(r.stats.stalls[unsigned(StallCause::BankConflict)], 3u);
  // FENCE: 1 cycle. Alone it ends at 1, END is fetched at cycle 1: 2 cycles.
  EXPECT_EQ(cyclesOf({fence(isa::Queue::Compute), end()}, cfg), 2u);
  EXPECT_EQ(cyclesOf({end()}, cfg), 1u);
}

// vector.requant_overlap (docs/isa.md, section 3) on tiny-4x4 (R = C = 4,
// lanes 4, P 2): MATMUL WS M=8 K=4 N=4 with preload takes 4+8+4+4-1 = 19
// cycles, REQUANT M=8 N=4 takes 8*1+2 = 10. Two tiles in separate ACC
// regions. Serial: 0-19, 19-29, 29-48, 48-58. Overlapped: the second MATMUL
// issues at 20 (the queue issued the first REQUANT at 19, one issue per
// cycle) beside it (19-29), runs 20-39; the second REQUANT waits for the
// array: 39-49.
namespace {
/// `prog` leaves the same scratchpad and accumulator with the post-processor
/// overlap (`cfg`) as without it.
void expectSameMemoriesAsSerial(const std::vector<Instruction> &prog,
                                const isa::HwConfig &cfg) {
  MachineState a = MachineState::create(cfg, 1 << 16);
  MachineState b = MachineState::create(cfg, 1 << 16);
  for (MachineState *s : {&a, &b})
    for (size_t i = 0; i < s->scratchpad.size(); ++i)
      s->scratchpad[i] = uint8_t(i * 7 + 3);
  isa::HwConfig serialCfg = cfg;
  serialCfg.vector.requantOverlap = 0;
  ASSERT_FALSE(runCycleAccurate(prog, cfg, a).fault);
  ASSERT_FALSE(runCycleAccurate(prog, serialCfg, b).fault);
  EXPECT_EQ(a.scratchpad, b.scratchpad);
  EXPECT_EQ(a.accumulator, b.accumulator);
}

std::vector<Instruction> twoTiles(uint64_t secondC, uint64_t secondA = 0) {
  Instruction r2 = requant(8, 4);
  r2.set(F::Requant_c_addr, secondC);
  r2.set(F::Requant_o_addr, 9000);
  return {matmul(isa::Dataflow_ws, 8, 4, 4, true, 0, 4096, 0), requant(8, 4),
          matmul(isa::Dataflow_ws, 8, 4, 4, true, secondA, 4096, secondC), r2,
          end()};
}
} // namespace

TEST(CycleOverlap, RequantRunsBesideTheNextMatmul) {
  isa::HwConfig cfg = preset("tiny-4x4");
  ASSERT_EQ(cfg.vector.requantOverlap, 0u);
  RunResult serial = runCycles(twoTiles(64), cfg);
  ASSERT_FALSE(serial.fault);
  EXPECT_EQ(serial.stats.totalCycles, 58u);
  cfg.vector.requantOverlap = 1;
  RunResult r = runCycles(twoTiles(64), cfg);
  ASSERT_FALSE(r.fault) << r.fault->message();
  EXPECT_EQ(r.stats.totalCycles, 49u);
  const auto &in = r.stats.instructions;
  EXPECT_EQ(in[1].start, 19u);
  EXPECT_EQ(in[1].end, 29u);
  EXPECT_EQ(in[2].start, 20u);
  EXPECT_EQ(in[2].end, 39u);
  EXPECT_EQ(in[3].start, 39u);
  EXPECT_EQ(in[3].end, 49u);
  // Same memories as without the overlap (independent tiles).
  expectSameMemoriesAsSerial(twoTiles(64), cfg);
}

TEST(CycleOverlap, MatmulTouchingTheRunningRequantsOperandsFaults) {
  isa::HwConfig cfg = preset("tiny-4x4");
  cfg.vector.requantOverlap = 1;
  // Writes ACC [16, 47] while REQUANT #1 reads [0, 31].
  RunResult acc = runCycles(twoTiles(16), cfg);
  ASSERT_TRUE(acc.fault);
  EXPECT_EQ(acc.fault->kind, FaultKind::PostProcessorHazard);
  EXPECT_EQ(acc.fault->instruction, 2u);
  EXPECT_EQ(acc.fault->cycle, 20u);
  EXPECT_NE(acc.fault->detail.find("input tile"), std::string::npos)
      << acc.fault->detail;
  // Reads A from SP [8192, 8223] while REQUANT #1 writes it.
  RunResult sp = runCycles(twoTiles(64, 8192), cfg);
  ASSERT_TRUE(sp.fault);
  EXPECT_EQ(sp.fault->kind, FaultKind::PostProcessorHazard);
  EXPECT_NE(sp.fault->detail.find("REQUANT writes SP [8192, 8223]"),
            std::string::npos)
      << sp.fault->detail;
  // Without the overlap the same program is legal: the MATMUL waits.
  cfg.vector.requantOverlap = 0;
  EXPECT_FALSE(runCycles(twoTiles(16), cfg).fault);
}

// A VADD runs on the post-processor too (a fused residual add after its
// tile's REQUANT), on tiny-4x4 with the overlap: MATMUL 0-19, REQUANT
// 19-29, VADD of 8 x 4 elements in place over the REQUANT's output (A at
// 8192, bank 2; B at 12288, bank 3), 32 / 4 + 2 = 10 cycles, issues when
// the post-processor is free, 29-39; the next MATMUL issues beside it at 30
// (one issue per cycle), 30-49. Serially: VADD 29-39, MATMUL 39-58.
namespace {
std::vector<Instruction> residualTile(uint64_t secondA) {
  Instruction v(Opcode::Vadd);
  v.with(F::Vadd_mode, isa::AddMode_fma)
      .with(F::Vadd_lo, -128)
      .with(F::Vadd_hi, 127)
      .with(F::Vadd_a_addr, 8192)
      .with(F::Vadd_b_addr, 12288)
      .with(F::Vadd_o_addr, 8192)
      .with(F::Vadd_n0, 4)
      .with(F::Vadd_n1, 8)
      .with(F::Vadd_a_s1, 4)
      .with(F::Vadd_b_s1, 4)
      .with(F::Vadd_o_s1, 4);
  v.setF32(F::Vadd_ratio_a, 0.75f);
  v.setF32(F::Vadd_ratio_b, 0.5f);
  v.setF32(F::Vadd_fixed, 3.0f);
  return {matmul(isa::Dataflow_ws, 8, 4, 4, true, 0, 4096, 0), requant(8, 4), v,
          matmul(isa::Dataflow_ws, 8, 4, 4, true, secondA, 4096, 64), end()};
}
} // namespace

TEST(CycleOverlap, ResidualVaddRunsBesideTheNextMatmul) {
  isa::HwConfig cfg = preset("tiny-4x4");
  RunResult serial = runCycles(residualTile(0), cfg);
  ASSERT_FALSE(serial.fault);
  EXPECT_EQ(serial.stats.instructions[3].start, 39u);
  EXPECT_EQ(serial.stats.totalCycles, 58u);
  cfg.vector.requantOverlap = 1;
  RunResult r = runCycles(residualTile(0), cfg);
  ASSERT_FALSE(r.fault) << r.fault->message();
  const auto &in = r.stats.instructions;
  uint64_t want[4][2] = {{0, 19}, {19, 29}, {29, 39}, {30, 49}};
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(in[i].start, want[i][0]) << "#" << i;
    EXPECT_EQ(in[i].end, want[i][1]) << "#" << i;
  }
  EXPECT_EQ(r.stats.totalCycles, 49u);
  // Same memories as serially.
  expectSameMemoriesAsSerial(residualTile(0), cfg);
  // Reading A where the running VADD writes: a post-processor hazard.
  RunResult h = runCycles(residualTile(8192), cfg);
  ASSERT_TRUE(h.fault);
  EXPECT_EQ(h.fault->kind, FaultKind::PostProcessorHazard);
  EXPECT_EQ(h.fault->instruction, 3u);
  EXPECT_NE(h.fault->detail.find("VADD writes SP [8192, 8223]"),
            std::string::npos)
      << h.fault->detail;
}

// Column slices of one accumulator tile (docs/isa.md §6, accumulator
// order): 16 x 16, three in flight, WS M=5 K=16 N=16 with preload 52 cycles.
// #0 writes columns 0-15 of a tile with a row pitch of 32 words, #1 columns
// 16-31: no word in common, so #1 streams behind #0 at max(rows 0 + 16 + 5
// - 16, shadow 0 + 16) = 16, 16-68. The boxes' hulls overlap: before the
// rule knew slices, #1 waited for #0 (52-104). #2 with a pitch of 24 (its
// rows reach into #1's next row) and #3 overlapping #2's columns by one
// still wait: max(#1's end 68, ...) = 68-120, then 120-172.
TEST(CyclePipeline, ColumnSlicesOfOneTile) {
  auto slice = [](uint64_t c, uint64_t stride) {
    Instruction I = matmul(isa::Dataflow_ws, 5, 16, 16, true, 0, 4096, c);
    I.with(F::Matmul_c_stride, stride);
    return I;
  };
  std::vector<Instruction> prog = {slice(0, 32), slice(16, 32), slice(40, 24),
                                   slice(55, 24), end()};
  isa::HwConfig cfg = arrayConfig(16, 16);
  cfg.array.matmulInflight = 3;
  RunResult r = runCycles(prog, cfg);
  ASSERT_FALSE(r.fault) << r.fault->message();
  uint64_t want[4][2] = {{0, 52}, {16, 68}, {68, 120}, {120, 172}};
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(r.stats.instructions[i].start, want[i][0]) << "#" << i;
    EXPECT_EQ(r.stats.instructions[i].end, want[i][1]) << "#" << i;
  }
  EXPECT_TRUE(isa::MatmulPipeline::mayFollow(prog[0], prog[1]));
  EXPECT_TRUE(isa::MatmulPipeline::mayFollow(prog[1], prog[0]));
  EXPECT_FALSE(isa::MatmulPipeline::mayFollow(prog[1], prog[2]));
  EXPECT_FALSE(isa::MatmulPipeline::mayFollow(prog[2], prog[3]));
  expectSameMemoriesAsSerial(prog, cfg);
}

// array.matmul_inflight = 3 on a 16 x 16 array (docs/isa.md §6): WS M=5
// K=16 N=16 with preload occupies 16 + 5 + 31 = 52 cycles, the reuse
// 5 + 31 = 36; OS M=4 K=8 N=4 8 + 32 + 16 - 2 = 54. The rule,
// s >= s' + p' + M' - p (rows), s >= sL + R = sL + 16 (shadow weights,
// latched column by column), at most 3 in the array, a MATMUL whose ACC box
// overlaps an earlier one's without being the same tile waits for it, and
// the compute queue issues at most one instruction per cycle:
//   #0 preload, C at 0:    0-52
//   #1 reuse,   C at 128:  0 + 16 + 5 - 0 = 21            -> 21-57
//   #2 preload, C at 0 (the same tile as #0):
//        max(21 + 0 + 5 - 16, 0 + 16, #1's issue + 1) = 22 -> 22-74
//   #3 preload, C at 8 (overlaps #2's tile): waits for #2 -> 74-126
//   #4 preload, C at 256: max(74 + 16 + 5 - 16, 74 + 16, #1's end 57) = 90
//                                                         -> 90-142
//   #5 OS: waits until the array has drained              -> 142-196
// One at a time (matmul_inflight = 1) the same program takes
// 52 + 36 + 52 + 52 + 52 + 54 = 298 cycles.
TEST(CyclePipeline, WsMatmulsStreamBackToBack) {
  std::vector<Instruction> prog = {
      matmul(isa::Dataflow_ws, 5, 16, 16, true, 0, 4096, 0),
      matmul(isa::Dataflow_ws, 5, 16, 16, false, 256, 4096, 128),
      matmul(isa::Dataflow_ws, 5, 16, 16, true, 512, 6144, 0),
      matmul(isa::Dataflow_ws, 5, 16, 16, true, 768, 4096, 8),
      matmul(isa::Dataflow_ws, 5, 16, 16, true, 1024, 6144, 256),
      matmul(isa::Dataflow_os, 4, 8, 4, false, 1280, 8192, 512),
      end()};
  isa::HwConfig cfg = arrayConfig(16, 16);
  cfg.array.matmulInflight = 3;
  MachineState init = MachineState::create(cfg, 1 << 16);
  for (size_t i = 0; i < 12288; ++i)
    init.scratchpad[i] = uint8_t(i * 29 + 7);
  MachineState cs = init, fs = init;
  RunResult r = runCycleAccurate(prog, cfg, cs);
  ASSERT_FALSE(r.fault) << r.fault->message();
  uint64_t want[6][2] = {{0, 52},   {21, 57},  {22, 74},
                         {74, 126}, {90, 142}, {142, 196}};
  for (unsigned i = 0; i < 6; ++i) {
    EXPECT_EQ(r.stats.instructions[i].start, want[i][0]) << "#" << i;
    EXPECT_EQ(r.stats.instructions[i].end, want[i][1]) << "#" << i;
  }
  EXPECT_EQ(r.stats.totalCycles, 196u);
  // Busy: the union of the intervals, here all of them.
  EXPECT_EQ(r.stats.unitBusy[unsigned(Unit::SystolicArray)], 196u);
  // The values are the program-order ones.
  RunResult f = runFunctional(prog, cfg, fs);
  ASSERT_FALSE(f.fault);
  EXPECT_EQ(cs.accumulator, fs.accumulator);
  // The estimate model applies the same rule.
  RunResult e = runEstimate(prog, cfg);
  EXPECT_EQ(e.stats.totalCycles, 196u);
  for (unsigned i = 0; i < 6; ++i)
    EXPECT_EQ(e.stats.instructions[i].start, want[i][0]) << "#" << i;

  cfg.array.matmulInflight = 1;
  EXPECT_EQ(runCycles(prog, cfg).stats.totalCycles, 298u);
}
