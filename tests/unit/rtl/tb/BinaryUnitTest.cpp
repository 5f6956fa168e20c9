//===- BinaryUnitTest.cpp - VBINARY on the vector engine vs the simulator -===//
//
// Drives rtl/npu_vector_unit.sv (tb/tb_npu_vector_unit.sv, behavioral SP
// and ACC) with random verifier-valid VBINARYs, back to back, on the three
// engine-test configs, and asserts after each: every SP byte equal to
// sim::executeInstruction (isa::binaryValue per element, binaryValueF32
// with an fp32 B from ACC, b_f32); n0*n1 lane
// writes, the first at the edge ending s + PIPE_DEPTH (s + 1 + PIPE_DEPTH
// with a bank conflict), the last at the edge ending s + computeCycles - 1
// (= VADD's beats, doubled with a conflict, + PIPE_DEPTH, asserted from the
// formula here); busy high in s+1 .. s+computeCycles-1 and low from s +
// computeCycles on. The elements are classified with the same float steps
// as isa::binaryValue: every op, divisions by zero giving +-inf and NaN,
// clamps at both bounds, per-row (b_bcast, b_s1 = 1) and per-channel (b_s1 =
// 0) B, fp32 B words in ACC (elementwise and per row; never a bank
// conflict), in place and bank conflicts must all come up. Hand-derived
// cycle counts and bytes on tiny-4x4 and rtl-8x8 (and lanes3-p0 for b_f32)
// complete it.
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"
#include "Vtb_npu_vector_unit_lanes3_p0.h"
#include "Vtb_npu_vector_unit_lanes3_p0___024root.h"
#include "Vtb_npu_vector_unit_rtl_8x8.h"
#include "Vtb_npu_vector_unit_rtl_8x8___024root.h"
#include "Vtb_npu_vector_unit_tiny_4x4.h"
#include "Vtb_npu_vector_unit_tiny_4x4___024root.h"

#include "systole/ISA/Arithmetic.h"
#include "systole/Simulator/Semantics.h"

#include <cmath>
#include <cstdio>
#include <sstream>

using namespace systole;
using namespace systole::enginetest;
using F = isa::Field;

namespace {

// What the VBINARYs and their elements exercised.
struct Cases {
  int ops[4] = {0, 0, 0, 0};
  int perRow = 0, perChannel = 0, aBcast = 0, inPlace = 0, conflicts = 0;
  int f32 = 0, f32PerRow = 0; // fp32 B in ACC: all, per row (b_bcast)
  int divInf = 0, divNaN = 0; // x / 0 with x != 0, and 0 / 0
  int clampLo = 0, clampHi = 0, inRange = 0;
};

// The element values of I on s, classified as isa::binaryValue and
// binaryValueF32 compute them (volatile: one rounding per step, as the
// library).
void classify(const isa::Instruction &I, const sim::MachineState &s, Cases &c) {
  const uint64_t n0 = I.raw(F::Vbinary_n0), n1 = I.raw(F::Vbinary_n1);
  const uint64_t op = I.raw(F::Vbinary_op);
  const bool ab = I.getFlag(F::Vbinary_a_bcast),
             bb = I.getFlag(F::Vbinary_b_bcast);
  const float as = I.getF32(F::Vbinary_a_scale),
              bs = I.getF32(F::Vbinary_b_scale),
              os = I.getF32(F::Vbinary_o_scale);
  const int32_t azp = int32_t(I.get(F::Vbinary_a_zp)),
                bzp = int32_t(I.get(F::Vbinary_b_zp)),
                ozp = int32_t(I.get(F::Vbinary_o_zp));
  const float lo = float(-128 - ozp), hi = float(127 - ozp);
  for (uint64_t j = 0; j < n1; ++j)
    for (uint64_t i = 0; i < n0; ++i) {
      int8_t a =
          int8_t(s.scratchpad[I.raw(F::Vbinary_a_addr) +
                              j * I.raw(F::Vbinary_a_s1) + (ab ? 0 : i)]);
      const uint64_t bAt =
          I.raw(F::Vbinary_b_addr) + j * I.raw(F::Vbinary_b_s1) + (bb ? 0 : i);
      volatile float x = float(a - azp) * as, y;
      if (I.getFlag(F::Vbinary_b_f32)) {
        float w;
        std::memcpy(&w, &s.accumulator[bAt], 4);
        y = w;
      } else {
        y = float(int8_t(s.scratchpad[bAt]) - bzp) * bs;
      }
      volatile float r = op == 0   ? x + y
                         : op == 1 ? x - y
                         : op == 2 ? x * y
                                   : x / y;
      if (op == 3 && y == 0.0f) {
        c.divNaN += x == 0.0f || std::isnan(x);
        c.divInf += x != 0.0f && !std::isnan(x);
      }
      volatile float v = r / os;
      if (std::isnan(v) || v <= lo)
        c.clampLo++;
      else if (v >= hi)
        c.clampHi++;
      else
        c.inRange++;
    }
}

// A scale as ORT makes them, sometimes any bit pattern (NaN, inf, negative,
// subnormal) or zero.
uint32_t scaleWord(Gen &g, float lo, float hi) {
  switch (g.below(30)) {
  case 0:
    return uint32_t(g.rng());
  case 1:
    return 0;
  default:
    return bitsOf(g.uniform(lo, hi));
  }
}

// An fp32 B word (b_f32): mostly values of the size of the dequantized A,
// sometimes +-0 (x / 0), small ones, or any bit pattern (NaN, inf,
// subnormal).
uint32_t bWord(Gen &g) {
  switch (g.below(10)) {
  case 0:
    return g.chance(50) ? 0u : 0x80000000u;
  case 1:
    return uint32_t(g.rng());
  case 2:
    return bitsOf(g.uniform(-1.0f, 1.0f));
  default:
    return bitsOf(g.uniform(-40.0f, 40.0f));
  }
}

// One VBINARY the verifier accepts. B is an elementwise tensor, a per-row
// vector (b_bcast, b_s1 = 1: a mean or deviation per row) or a per-channel
// one (b_s1 = 0); A sometimes per-row too. A quarter of the time B is fp32
// words in ACC (b_f32; b_zp and b_scale 0, word addresses and strides).
// O is disjoint from both inputs' hulls or is exactly A's box (in place);
// an SP B is placed in A's bank 30% of the time (a conflict, mostly).
isa::Instruction randomBinary(Gen &g, const isa::HwConfig &cfg, int index) {
  const int64_t L = int64_t(cfg.vector.lanes);
  const int64_t sp = int64_t(cfg.sram.scratchpadBytes);
  const int64_t bank = int64_t(cfg.scratchpadBankBytes());
  int64_t n0, n1;
  switch (index % 6) {
  case 0:
    n0 = 1, n1 = g.range(1, 3 * L); // one column
    break;
  case 1:
    n0 = g.range(1, L), n1 = g.range(2, 9); // several rows per beat
    break;
  default:
    n0 = g.range(1, 4 * L + 3), n1 = g.range(1, 6);
  }
  isa::Instruction I(isa::Opcode::Vbinary);
  I.set(F::Vbinary_n0, n0);
  I.set(F::Vbinary_n1, n1);
  I.set(F::Vbinary_op, index % 4);
  const bool ab = g.chance(10);
  int bKind = int(g.below(3)); // 0 elementwise, 1 per row, 2 per channel
  const bool f32 = g.chance(25);
  I.set(F::Vbinary_a_bcast, ab);
  I.set(F::Vbinary_b_bcast, bKind == 1);
  I.set(F::Vbinary_b_f32, f32);
  I.setRaw(F::Vbinary_a_zp, g.below(256));
  // Zero points that make B's dequantized value zero often (division by
  // zero) and codes close to them.
  I.setRaw(F::Vbinary_b_zp, f32 || g.chance(50) ? 0 : g.below(256));
  I.setRaw(F::Vbinary_o_zp, g.below(256));
  I.setRaw(F::Vbinary_a_scale, scaleWord(g, 1e-3f, 0.2f));
  I.setRaw(F::Vbinary_b_scale, f32 ? 0 : scaleWord(g, 1e-3f, 0.2f));
  I.setRaw(F::Vbinary_o_scale, scaleWord(g, 1e-3f, 0.3f));
  const int64_t aw = ab ? 1 : n0, bw = bKind == 1 ? 1 : n0;
  int64_t aS1 = g.chance(15) ? g.range(0, aw) : aw + g.range(0, 4);
  int64_t bS1 = bKind == 1 ? 1 : bKind == 2 ? 0 : bw + g.range(0, 4);
  int64_t oS1 = n0 + g.range(0, 4);
  auto span = [&](int64_t s1, int64_t w) { return (n1 - 1) * s1 + w; };
  bool inPlace = !ab && g.chance(20);
  if (inPlace)
    oS1 = aS1 = std::max(aS1, n0);
  // B's memory: SP bytes, or ACC words with b_f32.
  const int64_t bMem = f32 ? int64_t(cfg.accumulatorWords()) : sp;
  int64_t a, b, o;
  for (;;) {
    a = g.range(0, sp - span(aS1, aw));
    b = g.range(0, bMem - span(bS1, bw));
    if (!f32 && g.chance(30))
      b = std::min(a / bank * bank + g.range(0, bank - 1), sp - span(bS1, bw));
    o = inPlace ? a : g.range(0, sp - span(oS1, n0));
    auto apart = [&](int64_t x, int64_t xs, int64_t y, int64_t ys) {
      return x + xs <= y || y + ys <= x;
    };
    bool okA = inPlace || apart(o, span(oS1, n0), a, span(aS1, aw));
    bool okB = f32 || apart(o, span(oS1, n0), b, span(bS1, bw));
    if (okA && okB)
      break;
  }
  I.set(F::Vbinary_a_addr, a);
  I.set(F::Vbinary_a_s1, aS1);
  I.set(F::Vbinary_b_addr, b);
  I.set(F::Vbinary_b_s1, bS1);
  I.set(F::Vbinary_o_addr, o);
  I.set(F::Vbinary_o_s1, oS1);
  isa::setBankConflictFlag(I, cfg);
  return I;
}

std::string describe(const isa::Instruction &I) {
  std::ostringstream os;
  os << " vbinary";
  for (auto f : {F::Vbinary_op, F::Vbinary_n0, F::Vbinary_n1, F::Vbinary_a_addr,
                 F::Vbinary_a_s1, F::Vbinary_b_addr, F::Vbinary_b_s1,
                 F::Vbinary_o_addr, F::Vbinary_o_s1, F::Vbinary_a_bcast,
                 F::Vbinary_b_bcast, F::Vbinary_b_f32, F::Vbinary_bank_conflict,
                 F::Vbinary_a_zp, F::Vbinary_b_zp, F::Vbinary_o_zp,
                 F::Vbinary_a_scale, F::Vbinary_b_scale, F::Vbinary_o_scale})
    os << " " << I.raw(f);
  return os.str();
}

template <class V> struct Dut : EngineDut<V> {
  auto &sp() { return this->m->rootp->tb_npu_vector_unit__DOT__sp; }
  auto &acc() { return this->m->rootp->tb_npu_vector_unit__DOT__acc; }
};

// Runs I from `state` and checks values, write count and cycles.
template <class V>
void runOne(Dut<V> &dut, Gen &g, const isa::HwConfig &cfg,
            const sim::MachineState &state, const isa::Instruction &I,
            const std::string &what) {
  ASSERT_FALSE(bool(isa::validateInstruction(I, cfg))) << what;
  ASSERT_FALSE(sim::checkInstruction(I, state).has_value()) << what;
  const uint64_t n0 = I.raw(F::Vbinary_n0), n1 = I.raw(F::Vbinary_n1);
  const uint64_t L = cfg.vector.lanes, P = cfg.vector.pipelineDepth;
  const bool conflict = I.getFlag(F::Vbinary_bank_conflict);
  ASSERT_EQ(conflict, isa::vectorBankConflict(I, cfg)) << what;
  // An fp32 B is read from ACC: A alone reads SP.
  if (I.getFlag(F::Vbinary_b_f32))
    ASSERT_FALSE(conflict) << what;
  loadArray(dut.sp(), state.scratchpad);
  loadArray(dut.acc(), state.accumulator);
  sim::MachineState ref = state;
  sim::executeInstruction(I, ref);
  const uint64_t cdur = isa::computeCycles(I, cfg);
  const uint64_t beats = (n0 * n1 + L - 1) / L;
  ASSERT_EQ(cdur, (conflict ? 2 * beats : beats) + P) << what;
  WriteCount wc;
  ASSERT_NO_FATAL_FAILURE(streamOne(dut, g, I, cdur, what, wc));
  EXPECT_EQ(wc.writes, n0 * n1) << what;
  EXPECT_EQ(wc.first, P + (conflict ? 1 : 0)) << what;
  EXPECT_EQ(wc.last, cdur - 1) << what;
  for (size_t a = 0; a < ref.scratchpad.size(); a++)
    ASSERT_EQ(int(dut.sp()[a]), int(ref.scratchpad[a]))
        << "SP byte " << a << ":" << what;
}

template <class V>
void runRandom(const isa::HwConfig &cfg, uint64_t seed, int count) {
  Gen g(seed);
  Dut<V> dut;
  sim::MachineState state = sim::MachineState::create(cfg, 0);
  Cases c;
  for (int k = 0; k < count; k++) {
    isa::Instruction I = randomBinary(g, cfg, k);
    // Codes: random, or (every third) within one of B's zero point, A's
    // the same (0 / 0 when both are on it).
    if (k % 3 == 2)
      I.setRaw(F::Vbinary_a_zp, I.raw(F::Vbinary_b_zp));
    for (auto &byte : state.scratchpad)
      byte = k % 3 == 2
                 ? uint8_t(int(I.get(F::Vbinary_b_zp)) + int(g.range(-1, 1)))
                 : uint8_t(g.rng());
    if (I.getFlag(F::Vbinary_b_f32)) {
      for (auto &w : state.accumulator)
        w = int32_t(bWord(g));
      c.f32++;
      c.f32PerRow += I.getFlag(F::Vbinary_b_bcast);
    }
    c.ops[I.raw(F::Vbinary_op)]++;
    c.perRow += I.getFlag(F::Vbinary_b_bcast) && I.raw(F::Vbinary_b_s1) == 1;
    c.perChannel += I.raw(F::Vbinary_b_s1) == 0 && I.raw(F::Vbinary_n1) > 1;
    c.aBcast += I.getFlag(F::Vbinary_a_bcast);
    c.inPlace += I.raw(F::Vbinary_o_addr) == I.raw(F::Vbinary_a_addr);
    c.conflicts += I.getFlag(F::Vbinary_bank_conflict);
    classify(I, state, c);
    ASSERT_NO_FATAL_FAILURE(
        runOne(dut, g, cfg, state, I,
               " instruction " + std::to_string(k) + describe(I)));
    if (::testing::Test::HasFailure())
      return;
  }
  std::printf("%d VBINARY: add %d sub %d mul %d div %d; %d per-row B, %d "
              "per-channel B, %d fp32 B in ACC (%d per row), %d broadcast A, "
              "%d in place, %d bank conflicts; elements: %d x/0 inf, %d 0/0 "
              "NaN, %d clamped low (NaN included), %d clamped high, %d in "
              "range\n",
              count, c.ops[0], c.ops[1], c.ops[2], c.ops[3], c.perRow,
              c.perChannel, c.f32, c.f32PerRow, c.aBcast, c.inPlace,
              c.conflicts, c.divInf, c.divNaN, c.clampLo, c.clampHi, c.inRange);
  for (int op = 0; op < 4; ++op)
    EXPECT_GE(c.ops[op], count / 5) << "op " << op;
  EXPECT_GT(c.perRow, count / 10);
  EXPECT_GT(c.perChannel, count / 10);
  EXPECT_GT(c.f32, count / 6);
  EXPECT_GT(c.f32PerRow, count / 40);
  EXPECT_GT(c.aBcast, count / 40);
  EXPECT_GT(c.inPlace, count / 20);
  EXPECT_GT(c.conflicts, count / 10);
  EXPECT_LT(c.conflicts, count - count / 10);
  EXPECT_GT(c.divInf, 20);
  EXPECT_GT(c.divNaN, 20);
  EXPECT_GT(c.clampLo, 200);
  EXPECT_GT(c.clampHi, 200);
  EXPECT_GT(c.inRange, 1000);
}

TEST(BinaryUnit, RandomOnTiny4x4) {
  runRandom<Vtb_npu_vector_unit_tiny_4x4>(loadConfig(kTiny), 41, 400);
}

TEST(BinaryUnit, RandomOnRtl8x8) {
  runRandom<Vtb_npu_vector_unit_rtl_8x8>(loadConfig(kRtl8), 42, 400);
}

TEST(BinaryUnit, RandomOnThreeLanesPipelineDepth0) {
  isa::HwConfig cfg = loadConfig(kLanes3);
  ASSERT_EQ(cfg.vector.lanes, 3u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 0u);
  runRandom<Vtb_npu_vector_unit_lanes3_p0>(cfg, 43, 400);
}

// Hand-derived: X - mean(X) with the per-row mean in B (b_bcast, b_s1 = 1),
// n0 = 5, n1 = 3, all scales 0.5, zero points 0. Row j of A at 100 + 8j
// holds codes 10j + i (i < 5), B at 200 holds 10j + 2 per row: the
// difference 0.5*(i - 2), / 0.5 -> i - 2, so O row j = {-2, -1, 0, 1, 2}.
// 15 elements: rtl-8x8 (8 lanes, depth 3) 2 beats + 3 = 5 cycles with B at
// 40000 (bank 2 of 16384-byte banks), 2*2 + 3 = 7 with B at 12000 (A's bank
// 0: a conflict); tiny-4x4 (4 lanes, depth 2) 4 beats + 2 = 6 with B at
// 12000 (bank 2 of 4096-byte banks), 2*4 + 2 = 10 with B at 300 (bank 0).
isa::Instruction handBinary(uint64_t op, uint64_t bAddr) {
  isa::Instruction I(isa::Opcode::Vbinary);
  I.set(F::Vbinary_op, op);
  I.set(F::Vbinary_n0, 5);
  I.set(F::Vbinary_n1, 3);
  I.set(F::Vbinary_a_addr, 100);
  I.set(F::Vbinary_a_s1, 8);
  I.set(F::Vbinary_b_addr, bAddr);
  I.set(F::Vbinary_b_s1, 1);
  I.set(F::Vbinary_b_bcast, 1);
  I.set(F::Vbinary_o_addr, 6000);
  I.set(F::Vbinary_o_s1, 5);
  I.setF32(F::Vbinary_a_scale, 0.5f);
  I.setF32(F::Vbinary_b_scale, 0.5f);
  I.setF32(F::Vbinary_o_scale, 0.5f);
  return I;
}

sim::MachineState handState(const isa::HwConfig &cfg, uint64_t bAddr) {
  sim::MachineState state = sim::MachineState::create(cfg, 0);
  for (uint64_t j = 0; j < 3; ++j) {
    for (uint64_t i = 0; i < 5; ++i)
      state.scratchpad[100 + 8 * j + i] = uint8_t(10 * j + i);
    state.scratchpad[bAddr + j] = uint8_t(10 * j + 2);
  }
  return state;
}

template <class V>
void runHand(const isa::HwConfig &cfg, uint64_t bAddr, uint64_t cycles) {
  isa::Instruction I = handBinary(/*sub*/ 1, bAddr);
  isa::setBankConflictFlag(I, cfg);
  EXPECT_EQ(isa::computeCycles(I, cfg), cycles);
  sim::MachineState state = handState(cfg, bAddr);
  Gen g(7);
  Dut<V> dut;
  runOne(dut, g, cfg, state, I, describe(I));
  for (uint64_t j = 0; j < 3; ++j)
    for (uint64_t i = 0; i < 5; ++i)
      EXPECT_EQ(int(int8_t(dut.sp()[6000 + 5 * j + i])), int(i) - 2)
          << "row " << j << " column " << i;
}

TEST(BinaryUnit, HandDerivedSubOnRtl8x8) {
  isa::HwConfig cfg = loadConfig(kRtl8);
  ASSERT_EQ(cfg.vector.lanes, 8u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 3u);
  ASSERT_EQ(cfg.scratchpadBankBytes(), 16384u);
  runHand<Vtb_npu_vector_unit_rtl_8x8>(cfg, 40000, 5);
  runHand<Vtb_npu_vector_unit_rtl_8x8>(cfg, 12000, 7); // bank conflict
}

TEST(BinaryUnit, HandDerivedSubOnTiny4x4) {
  isa::HwConfig cfg = loadConfig(kTiny);
  ASSERT_EQ(cfg.vector.lanes, 4u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 2u);
  ASSERT_EQ(cfg.scratchpadBankBytes(), 4096u);
  runHand<Vtb_npu_vector_unit_tiny_4x4>(cfg, 12000, 6);
  runHand<Vtb_npu_vector_unit_tiny_4x4>(cfg, 300, 10); // bank conflict
}

// Hand-derived values of the four ops and the division's specials, one
// element each (n0 = 8, n1 = 1) on tiny-4x4, against the byte worked out
// here (scales 1, o_zp 0 unless noted):
//   add 100 + 100 = 200 -> clamped to 127;  sub -100 - 100 -> -128;
//   mul 3 * -5 = -15;  div 7 / 2 = 3.5 -> rne 4;  div 5 / 2 = 2.5 -> 2;
//   div 1 / 0 = inf -> 127;  div -1 / 0 = -inf -> -128;  div 0 / 0 = NaN
//   -> the lower bound -128.
TEST(BinaryUnit, HandDerivedOpsAndDivisionByZeroOnTiny4x4) {
  isa::HwConfig cfg = loadConfig(kTiny);
  struct Case {
    uint64_t op;
    int8_t a, b, out;
  };
  const Case cases[] = {{0, 100, 100, 127}, {1, -100, 100, -128},
                        {2, 3, -5, -15},    {3, 7, 2, 4},
                        {3, 5, 2, 2},       {3, 1, 0, 127},
                        {3, -1, 0, -128},   {3, 0, 0, -128}};
  Dut<Vtb_npu_vector_unit_tiny_4x4> dut;
  Gen g(8);
  for (const Case &c : cases) {
    isa::Instruction I(isa::Opcode::Vbinary);
    I.set(F::Vbinary_op, c.op);
    I.set(F::Vbinary_n0, 8);
    I.set(F::Vbinary_n1, 1);
    I.set(F::Vbinary_a_addr, 0);
    I.set(F::Vbinary_b_addr, 8192);
    I.set(F::Vbinary_o_addr, 100);
    I.setF32(F::Vbinary_a_scale, 1.0f);
    I.setF32(F::Vbinary_b_scale, 1.0f);
    I.setF32(F::Vbinary_o_scale, 1.0f);
    isa::setBankConflictFlag(I, cfg);
    sim::MachineState state = sim::MachineState::create(cfg, 0);
    for (int i = 0; i < 8; ++i) {
      state.scratchpad[i] = uint8_t(c.a);
      state.scratchpad[8192 + i] = uint8_t(c.b);
    }
    // 8 elements: 2 beats + depth 2.
    EXPECT_EQ(isa::computeCycles(I, cfg), 4u);
    ASSERT_NO_FATAL_FAILURE(runOne(dut, g, cfg, state, I, describe(I)));
    for (int i = 0; i < 8; ++i)
      EXPECT_EQ(int(int8_t(dut.sp()[100 + i])), int(c.out))
          << "op " << c.op << " a " << int(c.a) << " b " << int(c.b);
  }
}

// Hand-derived VBINARYs with an fp32 B (b_f32): B is ACC words, used as they
// are (b_zp = b_scale = 0), b_addr and b_s1 counting words. Both put A at
// SP 100 (row stride 8), O at SP 6000, a_scale 0.5 and a_zp 2, so x =
// 0.5 * (a - 2).
struct HandF32 {
  uint64_t n0, n1, bAddr, bS1;
  bool bBcast;
  float oScale;
  int64_t oZp;
  std::vector<int8_t> a;     // n1 rows of n0 codes
  std::vector<float> b;      // the B words from bAddr (row stride bS1 words)
  std::vector<int> add, sub; // O of op add and sub, row-major
};

// Elementwise B with a row stride of 5 words: n0 = 3, n1 = 2, o_scale 1,
// o_zp 0 (out = rne(r), clamped to [-128, 127]).
//   A codes   row 0 {2, 7, 11} -> x = {0, 2.5, 4.5}
//             row 1 {-8, 1, 13} -> x = {-5, -0.5, 5.5}
//   B words   row 0 at 300..302 {-100.0f, 0.25f, 1.5f}
//             row 1 at 305..307 {0.75f, -2.5f, 3.0f}
//   add x + y  {-100, 2.75, 6}, {-4.25, -3, 8.5} -> {-100, 3, 6}, {-4, -3, 8}
//   sub x - y  {100, 2.25, 3}, {-5.75, 2, 2.5}  -> {100, 2, 3}, {-6, 2, 2}
// (8.5 and 2.5 are ties: to even). The words between the rows (303, 304)
// hold 1000.0f, which any element would clamp to 127 or -128.
const HandF32 kStrided = {
    /*n0=*/3,
    /*n1=*/2,
    /*bAddr=*/300,
    /*bS1=*/5,
    /*bBcast=*/false,
    /*oScale=*/1.0f,
    /*oZp=*/0,
    {2, 7, 11, -8, 1, 13},
    {-100.0f, 0.25f, 1.5f, 1000.0f, 1000.0f, 0.75f, -2.5f, 3.0f},
    {-100, 3, 6, -4, -3, 8},
    {100, 2, 3, -6, 2, 2}};

// Per-row B (b_bcast, b_s1 = 1 word: one bias or mask value per row):
// n0 = 5, n1 = 3, o_scale 0.5, o_zp 3 (out = rne(clamp(r / 0.5, -131,
// 124)) + 3). A codes 2 + i + 2j -> x = (i + 2j) / 2; B words at 400..402
// {-100.0f, 0.25f, 2.0f}.
//   sub row 0  x + 100 = 100 .. 102 -> 200 .. 204, past 124     -> 127 x 5
//       row 1  {0.75, 1.25, 1.75, 2.25, 2.75} -> {1.5, 2.5, 3.5, 4.5, 5.5}
//              -> rne {2, 2, 4, 4, 6} + 3 = {5, 5, 7, 7, 9}
//       row 2  {0, 0.5, 1, 1.5, 2} -> {0, 1, 2, 3, 4} + 3 = {3, 4, 5, 6, 7}
//   add row 0  x - 100 = -100 .. -98 -> -200 .. -196, below -131 -> -128 x 5
//       row 1  {1.25, 1.75, 2.25, 2.75, 3.25} -> {2.5, 3.5, 4.5, 5.5, 6.5}
//              -> rne {2, 4, 4, 6, 6} + 3 = {5, 7, 7, 9, 9}
//       row 2  {4, 4.5, 5, 5.5, 6} -> {8, 9, 10, 11, 12} + 3 = {11 .. 15}
const HandF32 kPerRow = {
    /*n0=*/5,
    /*n1=*/3,
    /*bAddr=*/400,
    /*bS1=*/1,
    /*bBcast=*/true,
    /*oScale=*/0.5f,
    /*oZp=*/3,
    {2, 3, 4, 5, 6, 4, 5, 6, 7, 8, 6, 7, 8, 9, 10},
    {-100.0f, 0.25f, 2.0f},
    {-128, -128, -128, -128, -128, 5, 7, 7, 9, 9, 11, 12, 13, 14, 15},
    {127, 127, 127, 127, 127, 5, 5, 7, 7, 9, 3, 4, 5, 6, 7}};

isa::Instruction handF32Binary(const HandF32 &h, uint64_t op) {
  isa::Instruction I(isa::Opcode::Vbinary);
  I.set(F::Vbinary_op, op);
  I.set(F::Vbinary_n0, h.n0);
  I.set(F::Vbinary_n1, h.n1);
  I.set(F::Vbinary_a_addr, 100);
  I.set(F::Vbinary_a_s1, 8);
  I.set(F::Vbinary_b_f32, 1);
  I.set(F::Vbinary_b_addr, h.bAddr);
  I.set(F::Vbinary_b_s1, h.bS1);
  I.set(F::Vbinary_b_bcast, h.bBcast);
  I.set(F::Vbinary_o_addr, 6000);
  I.set(F::Vbinary_o_s1, h.n0);
  I.set(F::Vbinary_a_zp, 2);
  I.set(F::Vbinary_o_zp, h.oZp);
  I.setF32(F::Vbinary_a_scale, 0.5f);
  I.setF32(F::Vbinary_o_scale, h.oScale);
  return I;
}

// The state of a hand case: A's codes, B's words and 1000.0f in every other
// ACC word; SP bytes at b_addr .. b_addr + 7 hold 64, the decoy a B read
// from SP would find (dequantized with b_scale 0 it is y = 0).
sim::MachineState handF32State(const isa::HwConfig &cfg, const HandF32 &h) {
  sim::MachineState state = sim::MachineState::create(cfg, 0);
  for (uint64_t j = 0; j < h.n1; ++j)
    for (uint64_t i = 0; i < h.n0; ++i)
      state.scratchpad[100 + 8 * j + i] = uint8_t(h.a[j * h.n0 + i]);
  for (auto &w : state.accumulator)
    w = int32_t(bitsOf(1000.0f));
  for (size_t k = 0; k < h.b.size(); ++k)
    state.accumulator[h.bAddr + k] = int32_t(bitsOf(h.b[k]));
  for (uint64_t k = 0; k < 8; ++k)
    state.scratchpad[h.bAddr + k] = 64;
  return state;
}

// Runs both ops of a hand case: no bank conflict (b_addr read as an SP
// address would be in A's bank 0: a conflict), `cycles`, and O as derived.
template <class V>
void runHandF32(const isa::HwConfig &cfg, const HandF32 &h, uint64_t cycles) {
  Dut<V> dut;
  Gen g(9);
  for (uint64_t op : {0, 1}) {
    isa::Instruction I = handF32Binary(h, op);
    isa::setBankConflictFlag(I, cfg);
    ASSERT_FALSE(bool(isa::validateInstruction(I, cfg))) << describe(I);
    EXPECT_FALSE(I.getFlag(F::Vbinary_bank_conflict)) << describe(I);
    EXPECT_EQ(isa::computeCycles(I, cfg), cycles) << describe(I);
    sim::MachineState state = handF32State(cfg, h);
    ASSERT_NO_FATAL_FAILURE(runOne(dut, g, cfg, state, I, describe(I)));
    const std::vector<int> &want = op == 0 ? h.add : h.sub;
    for (uint64_t j = 0; j < h.n1; ++j)
      for (uint64_t i = 0; i < h.n0; ++i)
        EXPECT_EQ(int(int8_t(dut.sp()[6000 + h.n0 * j + i])),
                  want[j * h.n0 + i])
            << (op ? "sub" : "add") << " row " << j << " column " << i;
  }
}

// 6 elements: tiny-4x4 ceil(6/4) + 2 = 4 cycles, rtl-8x8 1 + 3 = 4,
// lanes3-p0 2 + 0 = 2 (6, 5 and 4 with a bank conflict).
TEST(BinaryUnit, HandDerivedF32StridedBOnTiny4x4) {
  isa::HwConfig cfg = loadConfig(kTiny);
  ASSERT_EQ(cfg.vector.lanes, 4u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 2u);
  runHandF32<Vtb_npu_vector_unit_tiny_4x4>(cfg, kStrided, 4);
}

TEST(BinaryUnit, HandDerivedF32StridedBOnRtl8x8) {
  isa::HwConfig cfg = loadConfig(kRtl8);
  ASSERT_EQ(cfg.vector.lanes, 8u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 3u);
  runHandF32<Vtb_npu_vector_unit_rtl_8x8>(cfg, kStrided, 4);
}

TEST(BinaryUnit, HandDerivedF32StridedBOnThreeLanesPipelineDepth0) {
  isa::HwConfig cfg = loadConfig(kLanes3);
  ASSERT_EQ(cfg.vector.lanes, 3u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 0u);
  runHandF32<Vtb_npu_vector_unit_lanes3_p0>(cfg, kStrided, 2);
}

// 15 elements: tiny-4x4 4 beats + 2 = 6 cycles, rtl-8x8 2 + 3 = 5 (10 and
// 7 with a bank conflict).
TEST(BinaryUnit, HandDerivedF32PerRowBOnTiny4x4) {
  runHandF32<Vtb_npu_vector_unit_tiny_4x4>(loadConfig(kTiny), kPerRow, 6);
}

TEST(BinaryUnit, HandDerivedF32PerRowBOnRtl8x8) {
  runHandF32<Vtb_npu_vector_unit_rtl_8x8>(loadConfig(kRtl8), kPerRow, 5);
}

// B must come from ACC: the SP bytes at b_addr (64, dequantized with the
// scale 0: y = 0) would make the strided add rne(x) = {0, 2, 4}, {-5, 0,
// 6}, which differs from the ACC result {-100, 3, 6}, {-4, -3, 8} in every
// element; with ACC zeroed instead (B words 0.0f), the engine must follow
// the words and give exactly those rne(x).
TEST(BinaryUnit, HandDerivedF32ReadsBFromAccNotScratchpadOnTiny4x4) {
  isa::HwConfig cfg = loadConfig(kTiny);
  const int fromSp[6] = {0, 2, 4, -5, 0, 6};
  for (int k = 0; k < 6; ++k)
    ASSERT_NE(kStrided.add[k], fromSp[k]) << "element " << k;
  runHandF32<Vtb_npu_vector_unit_tiny_4x4>(cfg, kStrided, 4);
  HandF32 zeros = kStrided;
  zeros.b.assign(zeros.b.size(), 0.0f);
  zeros.add.assign(fromSp, fromSp + 6);
  // sub: x - 0 = x, the same bytes.
  zeros.sub = zeros.add;
  runHandF32<Vtb_npu_vector_unit_tiny_4x4>(cfg, zeros, 4);
}

} // namespace
