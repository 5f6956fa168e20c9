//===- TimingTest.cpp - The worked examples of docs/isa.md ----------------===//
#include "TestUtil.h"

#include "systole/ISA/Footprint.h"
#include "systole/ISA/Timing.h"

#include <random>

using namespace systole::isa;
using namespace systole::isa::test;
using F = Field;

namespace {
Instruction matmul(uint64_t dataflow, uint64_t M, uint64_t K, uint64_t N,
                   bool preload) {
  Instruction I(Opcode::Matmul);
  I.with(F::Matmul_dataflow, dataflow)
      .with(F::Matmul_preload, preload)
      .with(F::Matmul_m, M)
      .with(F::Matmul_k, K)
      .with(F::Matmul_n, N)
      .with(F::Matmul_a_m_inner, 1)
      .with(F::Matmul_a_k_inner, 1 << 20)
      .with(F::Matmul_a_m_outer_stride, K)
      .with(F::Matmul_b_stride, N);
  return I;
}

// The DRAM of docs/isa.md's DMA examples: 64-byte bursts, 16 bytes per
// cycle, latency 100.
HwConfig dmaConfig() {
  HwConfig cfg = preset("tiny-4x4");
  cfg.dram.burstBytes = 64;
  cfg.dram.bytesPerCycle = 16;
  cfg.dram.latencyCycles = 100;
  return cfg;
}
} // namespace

// docs/isa.md, "Worked example": 4x4 array.
TEST(Timing, WorkedExampleWeightStationary) {
  HwConfig cfg = preset("tiny-4x4");
  // preload R=4, stream M=6, fill/drain R+C-1 = 7: 4 + 6 + 4 + 4 - 1 = 17.
  EXPECT_EQ(computeCycles(matmul(Dataflow_ws, 6, 4, 4, true), cfg), 17u);
  EXPECT_EQ(computeCycles(matmul(Dataflow_ws, 6, 4, 4, false), cfg), 13u);
  // Fill/drain does not shrink for K < R or N < C.
  EXPECT_EQ(computeCycles(matmul(Dataflow_ws, 6, 2, 1, true), cfg), 17u);
}

TEST(Timing, VlutReadsATableEntryAfterEachBeat) {
  HwConfig cfg = preset("tiny-4x4");
  // 3 rows of 6: 18 elements, ceil(18 / lanes 4) = 5 beats of two dependent
  // SP reads (A, then the entry it indexes): 2 * 5 + pipeline depth.
  Instruction I(Opcode::Vlut);
  I.with(F::Vlut_n0, 6).with(F::Vlut_n1, 3).with(F::Vlut_a_s1, 6);
  I.with(F::Vlut_o_addr, 100).with(F::Vlut_o_s1, 6).with(F::Vlut_lut_addr, 512);
  ASSERT_EQ(cfg.vector.lanes, 4u);
  EXPECT_EQ(computeCycles(I, cfg), 12u); // 2 * 5 + depth 2
  // Per column the footprint is n0 tables.
  I.with(F::Vlut_per_column, 1);
  bool found = false;
  for (const Access &a : accessRanges(I))
    if (std::string(a.operand) == "lut") {
      EXPECT_EQ(a.end - a.begin, 6u * 256);
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST(Timing, VsoftmaxGivesLanesRowsInThreePasses) {
  HwConfig cfg = preset("tiny-4x4");
  ASSERT_EQ(cfg.vector.lanes, 4u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 2u);
  // 9 rows of 5: ceil(9 / 4) = 3 groups of (5 + 6 + 6) cycles: maximum,
  // sum (each entry read the cycle after its code), outputs; + depth 2.
  Instruction I(Opcode::Vsoftmax);
  I.with(F::Vsoftmax_n0, 5).with(F::Vsoftmax_n1, 9).with(F::Vsoftmax_a_s1, 5);
  I.with(F::Vsoftmax_o_addr, 100).with(F::Vsoftmax_o_s1, 5);
  EXPECT_EQ(computeCycles(I, cfg), 53u);
  // The table is 256 accumulator words.
  bool found = false;
  for (const Access &a : accessRanges(I))
    if (std::string(a.operand) == "table") {
      EXPECT_EQ(a.space, MemSpace::Accumulator);
      EXPECT_EQ(a.end - a.begin, 256u);
      found = true;
    }
  EXPECT_TRUE(found);
}

TEST(Timing, VlayernormTwoPassesAroundTheRowStatistics) {
  HwConfig cfg = preset("tiny-4x4");
  // 5 rows of 6: ceil(5 / 4) = 2 groups of 6 (sums) + 6 (statistics) + 6
  // (outputs) cycles, + depth 2.
  Instruction I(Opcode::Vlayernorm);
  I.with(F::Vlayernorm_n0, 6).with(F::Vlayernorm_n1, 5);
  I.with(F::Vlayernorm_a_s1, 6).with(F::Vlayernorm_o_addr, 100);
  I.with(F::Vlayernorm_o_s1, 6);
  EXPECT_EQ(computeCycles(I, cfg), 38u);
  // gamma always, beta only with the bias flag: n0 ACC words each.
  auto accWords = [&] {
    uint64_t words = 0;
    for (const Access &a : accessRanges(I))
      if (a.space == MemSpace::Accumulator)
        words += a.end - a.begin;
    return words;
  };
  EXPECT_EQ(accWords(), 6u);
  I.with(F::Vlayernorm_bias, 1).with(F::Vlayernorm_beta_addr, 64);
  EXPECT_EQ(accWords(), 12u);
}

TEST(Timing, VbinaryBeatsAsVaddAndItsBankConflict) {
  HwConfig cfg = preset("tiny-4x4"); // 4 lanes, depth 2, 4 KiB banks
  // 5 rows of 6: ceil(30 / 4) = 8 beats + depth 2.
  Instruction I(Opcode::Vbinary);
  I.with(F::Vbinary_n0, 6).with(F::Vbinary_n1, 5);
  I.with(F::Vbinary_a_s1, 6).with(F::Vbinary_b_addr, 4096);
  I.with(F::Vbinary_b_bcast, 1).with(F::Vbinary_b_s1, 1);
  I.with(F::Vbinary_o_addr, 8192).with(F::Vbinary_o_s1, 6);
  EXPECT_FALSE(vectorBankConflict(I, cfg));
  EXPECT_EQ(computeCycles(I, cfg), 10u);
  // B in A's bank: two cycles per beat, and the flag must say so.
  I.with(F::Vbinary_b_addr, 64);
  EXPECT_TRUE(vectorBankConflict(I, cfg));
  EXPECT_EQ(computeCycles(I, cfg), 18u);
  setBankConflictFlag(I, cfg);
  EXPECT_EQ(I.raw(F::Vbinary_bank_conflict), 1u);
  // The per-row B is one byte per row: 5 bytes.
  for (const Access &a : accessRanges(I))
    if (a.operand == std::string("B"))
      EXPECT_EQ(a.end - a.begin, 5u);
}

TEST(Timing, VreduceRowsPerLaneAndTheFinish) {
  HwConfig cfg = preset("tiny-4x4");
  // 5 rows of 6: ceil(5 / 4) = 2 groups of 6 adds + 4 finishing cycles,
  // + depth 2.
  Instruction I(Opcode::Vreduce);
  I.with(F::Vreduce_n0, 6).with(F::Vreduce_n1, 5);
  I.with(F::Vreduce_a_s1, 6).with(F::Vreduce_o_addr, 100);
  I.with(F::Vreduce_o_s1, 1);
  EXPECT_EQ(computeCycles(I, cfg), 22u);
  // One result byte per row.
  for (const Access &a : accessRanges(I))
    if (a.write)
      EXPECT_EQ(a.end - a.begin, 5u);
}

TEST(Timing, WorkedExampleOutputStationary) {
  HwConfig cfg = preset("tiny-4x4"); // 16 KiB SP, 4 banks of 4 KiB
  Instruction I = matmul(Dataflow_os, 4, 8, 4, false);
  I.set(F::Matmul_a_addr, 0);    // A in bank 0
  I.set(F::Matmul_b_addr, 4096); // B in bank 1
  EXPECT_FALSE(matmulBankConflict(I, cfg));
  // K + R + C - 2 = 14 streaming + R = 4 drain: 8 + 8 + 4 - 2 = 18.
  EXPECT_EQ(computeCycles(I, cfg), 18u);
  I.set(F::Matmul_b_addr, 1024); // B in bank 0 too: +K stall cycles
  EXPECT_TRUE(matmulBankConflict(I, cfg));
  EXPECT_EQ(computeCycles(I, cfg), 26u);
}

TEST(Timing, ImplicitIm2colBankSetIsExact) {
  HwConfig cfg = preset("tiny-4x4");
  // A rows jump by 8 KiB: banks 0 and 2 only; B in bank 1 -> no conflict,
  // although B lies inside A's address hull.
  Instruction I = matmul(Dataflow_os, 2, 4, 4, false);
  I.set(F::Matmul_a_m_outer_stride, 8192);
  I.set(F::Matmul_b_addr, 4096);
  EXPECT_FALSE(matmulBankConflict(I, cfg));
  I.set(F::Matmul_b_addr, 8192 + 100);
  EXPECT_TRUE(matmulBankConflict(I, cfg));
}

TEST(Timing, DmaWorkedExample) {
  HwConfig cfg = dmaConfig();
  // Three runs of 100 bytes at 0x1010, 0x1110, 0x1210: each starts 16 bytes
  // into a 64-byte burst and touches 2 bursts; 6 bursts * 4 beats = 24 cycles.
  Instruction I(Opcode::Load);
  I.with(F::Load_elem_bytes, 1)
      .with(F::Load_dram_addr, 0x1010)
      .with(F::Load_n0, 100)
      .with(F::Load_n1, 3)
      .with(F::Load_n2, 1)
      .with(F::Load_n3, 1)
      .with(F::Load_s1, 256)
      .with(F::Load_t1, 100)
      .with(F::Load_pad_left, 1)
      .with(F::Load_pad_right, 1);
  DmaTiming t = dmaTiming(I, cfg);
  EXPECT_EQ(t.runs, 3u);
  EXPECT_EQ(t.bursts, 6u);
  EXPECT_EQ(t.burstCycles, 24u);
  // Two padding runs (left, right) of 100 bytes: 2 * ceil(100/16) = 14
  // cycles beside the 24 beats.
  EXPECT_EQ(t.padRuns, 2u);
  EXPECT_EQ(t.padCycles, 14u);
  EXPECT_EQ(t.channelCycles, 24u);
  EXPECT_EQ(t.bytes, 300u); // padding costs nothing on the DRAM side
  EXPECT_EQ(predictedCycles(I, cfg), 124u);
}

// docs/isa.md §6 DMA: a mostly padded tile is bound by its padding writer.
TEST(Timing, DmaPaddingBound) {
  HwConfig cfg = dmaConfig();
  // One 20-byte pixel at 0x40 (one burst, 4 beats) in a 3 x 4 box (pad 1
  // on top, bottom and left, 2 on the right): 12 - 1 = 11 padding runs of
  // ceil(20/16) = 2 cycles = 22 > 4.
  Instruction I(Opcode::Load);
  I.with(F::Load_elem_bytes, 1)
      .with(F::Load_dram_addr, 0x40)
      .with(F::Load_n0, 20)
      .with(F::Load_n1, 1)
      .with(F::Load_n2, 1)
      .with(F::Load_n3, 1)
      .with(F::Load_t1, 20)
      .with(F::Load_t2, 80)
      .with(F::Load_pad_top, 1)
      .with(F::Load_pad_bottom, 1)
      .with(F::Load_pad_left, 1)
      .with(F::Load_pad_right, 2);
  DmaTiming t = dmaTiming(I, cfg);
  EXPECT_EQ(t.burstCycles, 4u);
  EXPECT_EQ(t.padRuns, 11u);
  EXPECT_EQ(t.padCycles, 22u);
  EXPECT_EQ(t.channelCycles, 22u);
  EXPECT_EQ(predictedCycles(I, cfg), 122u);
  // Two planes: twice the padding and the data.
  I.set(F::Load_n3, 2);
  I.set(F::Load_s3, 64);
  I.set(F::Load_t3, 240);
  t = dmaTiming(I, cfg);
  EXPECT_EQ(t.burstCycles, 8u);
  EXPECT_EQ(t.padCycles, 44u);
  EXPECT_EQ(t.channelCycles, 44u);
  // A STORE of the same box has no padding.
  Instruction S(Opcode::Store);
  S.with(F::Store_elem_bytes, 1)
      .with(F::Store_dram_addr, 0x40)
      .with(F::Store_n0, 20)
      .with(F::Store_n1, 1)
      .with(F::Store_n2, 1)
      .with(F::Store_n3, 1);
  EXPECT_EQ(dmaTiming(S, cfg).padCycles, 0u);
  EXPECT_EQ(dmaTiming(S, cfg).channelCycles, 4u);
}

// The instruction's bank_conflict flag is derived from the same rule.
TEST(Timing, SetBankConflictFlagFollowsTheRule) {
  HwConfig cfg = preset("tiny-4x4"); // 4 banks of 4 KiB
  Instruction I = matmul(Dataflow_os, 4, 8, 4, false);
  I.set(F::Matmul_b_addr, 4096);
  setBankConflictFlag(I, cfg);
  EXPECT_FALSE(I.getFlag(F::Matmul_bank_conflict));
  I.set(F::Matmul_b_addr, 1024);
  setBankConflictFlag(I, cfg);
  EXPECT_TRUE(I.getFlag(F::Matmul_bank_conflict));
  // WS: A streams through, B is preloaded; never flagged.
  I.set(F::Matmul_dataflow, Dataflow_ws);
  setBankConflictFlag(I, cfg);
  EXPECT_FALSE(I.getFlag(F::Matmul_bank_conflict));
  Instruction V(Opcode::Vmul);
  V.with(F::Vmul_n0, 16).with(F::Vmul_n1, 1).with(F::Vmul_a_addr, 0);
  V.with(F::Vmul_b_addr, 4000); // B in [4000, 4016): bank 0, with A
  setBankConflictFlag(V, cfg);
  EXPECT_TRUE(V.getFlag(F::Vmul_bank_conflict));
  V.set(F::Vmul_b_addr, 4096);
  setBankConflictFlag(V, cfg);
  EXPECT_FALSE(V.getFlag(F::Vmul_bank_conflict));
}

TEST(Timing, BurstCountMatchesBruteForce) {
  HwConfig cfg = preset("tiny-4x4");
  std::mt19937_64 rng(7);
  for (int iter = 0; iter < 2000; ++iter) {
    cfg.dram.burstBytes = uint64_t(1) << (rng() % 8);
    cfg.dram.bytesPerCycle = 1;
    Instruction I(Opcode::Store);
    uint64_t n[4], s[4];
    for (int d = 0; d < 4; ++d) {
      n[d] = 1 + rng() % 9;
      s[d] = rng() % 300;
    }
    uint64_t elem = (rng() & 1) ? 4 : 1, base = rng() % 100000;
    I.with(F::Store_elem_bytes, elem)
        .with(F::Store_dram_addr, base)
        .with(F::Store_n0, n[0])
        .with(F::Store_n1, n[1])
        .with(F::Store_n2, n[2])
        .with(F::Store_n3, n[3])
        .with(F::Store_s1, s[1])
        .with(F::Store_s2, s[2])
        .with(F::Store_s3, s[3]);
    uint64_t B = cfg.dram.burstBytes, len = n[0] * elem, expect = 0;
    for (uint64_t i3 = 0; i3 < n[3]; ++i3)
      for (uint64_t i2 = 0; i2 < n[2]; ++i2)
        for (uint64_t i1 = 0; i1 < n[1]; ++i1) {
          uint64_t a = base + i1 * s[1] + i2 * s[2] + i3 * s[3];
          expect += (a + len - 1) / B - a / B + 1;
        }
    ASSERT_EQ(dmaTiming(I, cfg).bursts, expect) << "iteration " << iter;
  }
}

TEST(Timing, HugeDmaIsFastAndSaturates) {
  HwConfig cfg = preset("datacenter-128x128");
  Instruction I(Opcode::Load);
  I.with(F::Load_elem_bytes, 1)
      .with(F::Load_dram_addr, 3)
      .with(F::Load_n0, 65535)
      .with(F::Load_n1, 65535)
      .with(F::Load_n2, 65535)
      .with(F::Load_n3, 65535)
      .with(F::Load_s1, 4294967295u)
      .with(F::Load_s2, 12345)
      .with(F::Load_s3, 77);
  DmaTiming t = dmaTiming(I, cfg);
  EXPECT_GT(t.bursts, 0u);
}

TEST(Timing, VectorAndPostProcessing) {
  HwConfig cfg = preset("tiny-4x4"); // lanes 4, P 2
  Instruction R(Opcode::Requant);
  R.with(F::Requant_m, 6).with(F::Requant_n, 5);
  EXPECT_EQ(computeCycles(R, cfg), 6u * 2 + 2);

  Instruction V(Opcode::Vadd);
  V.with(F::Vadd_n0, 10)
      .with(F::Vadd_n1, 1)
      .with(F::Vadd_a_addr, 0)
      .with(F::Vadd_b_addr, 4096)
      .with(F::Vadd_o_addr, 0);
  EXPECT_EQ(computeCycles(V, cfg), 3u + 2); // ceil(10/4) + P
  V.set(F::Vadd_b_addr, 100); // same bank as A: two reads per beat
  EXPECT_EQ(computeCycles(V, cfg), 6u + 2);
  V.set(F::Vadd_b_bcast, 1);
  V.set(F::Vadd_b_addr, 8191); // one element, bank 1
  EXPECT_EQ(computeCycles(V, cfg), 3u + 2);

  Instruction P(Opcode::Pool);
  P.with(F::Pool_oh, 2)
      .with(F::Pool_ow, 3)
      .with(F::Pool_kh, 3)
      .with(F::Pool_kw, 3)
      .with(F::Pool_ch, 9)
      .with(F::Pool_sh, 2)
      .with(F::Pool_sw, 2);
  EXPECT_EQ(computeCycles(P, cfg), 2u * 3 * 9 * 3 + 2);
  Instruction D(Opcode::Dwconv);
  D.with(F::Dwconv_oh, 4)
      .with(F::Dwconv_ow, 4)
      .with(F::Dwconv_kh, 3)
      .with(F::Dwconv_kw, 3)
      .with(F::Dwconv_ch, 4)
      .with(F::Dwconv_sh, 1)
      .with(F::Dwconv_sw, 1);
  EXPECT_EQ(computeCycles(D, cfg), 4u * 4 * 9 * 1 + 2);
  // A depthwise engine of T taps per lane takes a kernel row of kw taps in
  // ceil(kw / T) beats: a 3x5 kernel is 3 rows x (5, 3, 2, 1, 1) beats at
  // T = 1, 2, 3, 5, 64.
  D.set(F::Dwconv_kw, 5);
  const std::pair<uint64_t, uint64_t> rowBeats[] = {
      {1, 5}, {2, 3}, {3, 2}, {5, 1}, {64, 1}};
  for (auto [T, beats] : rowBeats) {
    HwConfig wide = cfg;
    wide.vector.dwconvTaps = T;
    EXPECT_EQ(computeCycles(D, wide), 4u * 4 * 3 * beats * 1 + 2) << "T " << T;
  }
  EXPECT_EQ(computeCycles(Instruction(Opcode::Fence), cfg), 1u);
  EXPECT_EQ(computeCycles(Instruction(Opcode::End), cfg), 0u);
}

TEST(Timing, FootprintsAreExactHulls) {
  // im2col A: m = (oy, ox) with OW = 3, kk = (ky, kx*Cin + ci), Cin = 2, 3x3,
  // input tile W = 5 pixels * 2 channels = 10 bytes per row.
  Instruction I(Opcode::Matmul);
  I.with(F::Matmul_m, 6)
      .with(F::Matmul_k, 18)
      .with(F::Matmul_n, 1)
      .with(F::Matmul_a_m_inner, 3)
      .with(F::Matmul_a_m_inner_stride, 2)
      .with(F::Matmul_a_m_outer_stride, 10)
      .with(F::Matmul_a_k_inner, 6)
      .with(F::Matmul_a_k_outer_stride, 10)
      .with(F::Matmul_a_addr, 100);
  auto acc = accessRanges(I);
  ASSERT_EQ(acc.size(), 3u);
  // max = 100 + (1*10 + 2*2) + (2*10 + 5) = 139
  EXPECT_EQ(acc[0].begin, 100u);
  EXPECT_EQ(acc[0].end, 140u);
  I.set(F::Matmul_a_k_offset, 4); // kk in [4, 22): min at kk=4 -> 104
  I.set(F::Matmul_k, 8);          // kk in [4, 12): groups 0 (4,5) and 1 (6..11)
  acc = accessRanges(I);
  EXPECT_EQ(acc[0].begin, 104u);
  EXPECT_EQ(acc[0].end, 100u + 14 + 10 + 5 + 1);
}

// Exact footprints (accessesOverlap): REQUANT outputs of m = 4 rows of
// n = 32 bytes, o_stride 64, i.e. rows [o, o + 32), [o + 64, o + 96), ...
// At o = 0 and o = 32 (two column slices of one 64-wide tile) the hulls
// [0, 224) and [32, 256) meet but no byte is common; at o = 16 row 0 of the
// second, [16, 48), meets row 0 of the first. A single run meets the rows
// only where it reaches one: [32, 64) lies in the first gap, [60, 70)
// reaches row 1 at 64. Rows of another pitch fall back to the hull.
TEST(Timing, ExactRowFootprints) {
  auto out = [](uint64_t o, uint64_t stride) {
    Instruction rq(Opcode::Requant);
    rq.with(F::Requant_o_addr, o)
        .with(F::Requant_o_stride, stride)
        .with(F::Requant_m, 4)
        .with(F::Requant_n, 32);
    for (const Access &a : accessRanges(rq))
      if (a.write)
        return a;
    return Access{};
  };
  Access a = out(0, 64), b = out(32, 64), c = out(16, 64);
  EXPECT_EQ(a.begin, 0u);
  EXPECT_EQ(a.end, 224u);
  EXPECT_EQ(a.rows, 4u);
  EXPECT_EQ(a.pitch, 64u);
  EXPECT_EQ(a.run, 32u);
  EXPECT_FALSE(accessesOverlap(a, b));
  EXPECT_FALSE(accessesOverlap(b, a));
  EXPECT_TRUE(accessesOverlap(a, c));
  EXPECT_TRUE(accessesOverlap(c, b));
  // b's last row [224, 256) against a's: 224 - 192 = 32 = a's run, apart.
  EXPECT_FALSE(accessesOverlap(out(32, 64), out(0, 64)));
  // b shifted by one pitch less one byte: its row 0 [95, 127) meets a's
  // row 1 [64, 96).
  EXPECT_TRUE(accessesOverlap(a, out(95, 64)));
  Access run{MemSpace::Scratchpad, true, 32, 64, "run"};
  EXPECT_FALSE(accessesOverlap(a, run));
  EXPECT_FALSE(accessesOverlap(run, a));
  run.begin = 60, run.end = 70;
  EXPECT_TRUE(accessesOverlap(a, run));
  // A run past the last row [192, 224).
  run.begin = 224, run.end = 300;
  EXPECT_FALSE(accessesOverlap(a, run));
  // Another pitch: the hulls decide (conservative; here rows [128, 160)
  // of both are common anyway).
  EXPECT_TRUE(accessesOverlap(a, out(32, 48)));
  // Another space never overlaps.
  Access acc = a;
  acc.space = MemSpace::Accumulator;
  EXPECT_FALSE(accessesOverlap(a, acc));
}

// Host segments (docs/hwconfig.md): 1000 bytes over 3 tensors at 16 B/cycle
// and latency 100 = ceil(1000 / 16) + 300 = 363 cycles; 100 ops at 8 per
// cycle = ceil(12.5) = 13; at 0.5 per cycle = 200; no ops, no compute.
TEST(Timing, HostSegment) {
  HwConfig cfg = dmaConfig();
  cfg.host.opsPerCycle = 8;
  HostTiming t = hostTiming(1000, 3, 100, cfg);
  EXPECT_EQ(t.transferCycles, 363u);
  EXPECT_EQ(t.computeCycles, 13u);
  EXPECT_EQ(t.total(), 376u);
  cfg.host.opsPerCycle = 0.5;
  EXPECT_EQ(hostTiming(1000, 3, 100, cfg).computeCycles, 200u);
  EXPECT_EQ(hostTiming(16, 1, 0, cfg).total(), 101u);
}
