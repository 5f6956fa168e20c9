//===- SoftmaxUnitTest.cpp - VSOFTMAX engine vs the simulator -------------===//
//
// Drives rtl/npu_softmax_unit.sv (in tb/tb_npu_softmax_unit.sv, with a
// behavioral SP and ACC) with random verifier-valid VSOFTMAXs, back to
// back, on the three engine-test configs, and asserts after each: every SP
// byte equal to sim::executeInstruction; n0*n1 lane writes, the first at the
// edge ending s + 2*n0 + 2 + PIPE_DEPTH (pass 3 of the first lane group),
// the last at the edge ending s + computeCycles - 1; busy high in s+1 ..
// s+computeCycles-1 and low from s + computeCycles on. The tables mix ORT's
// exp values with entries that make e * c overflow and any bit pattern, and
// c goes up to 2^80, so both conversions' out-of-range cases come up
// (counted below from the same float steps as isa::softmaxRow).
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"
#include "Vtb_npu_softmax_unit_lanes3_p0.h"
#include "Vtb_npu_softmax_unit_lanes3_p0___024root.h"
#include "Vtb_npu_softmax_unit_rtl_8x8.h"
#include "Vtb_npu_softmax_unit_rtl_8x8___024root.h"
#include "Vtb_npu_softmax_unit_tiny_4x4.h"
#include "Vtb_npu_softmax_unit_tiny_4x4___024root.h"

#include "systole/Simulator/Semantics.h"

#include <cmath>
#include <cstdio>
#include <sstream>

using namespace systole;
using namespace systole::enginetest;
using F = isa::Field;

namespace {

float fromBits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

// What a VSOFTMAX's elements exercised of the conversions.
struct Cases {
  int int8OutOfRange = 0; // q NaN or outside [-2^31, 2^31): INT32_MIN
  int u8Wide = 0;         // q in [2^31, 2^63): the low 32 bits of int64
  int u8OutOfRange = 0;   // q NaN or outside [-2^63, 2^63): 0
  int u8 = 0, inPlace = 0, partialGroup = 0, oneColumn = 0, sharedOut = 0;
};

// The q of every element, as isa::softmaxRow computes it, classified.
void classify(const isa::Instruction &I, const sim::MachineState &s, Cases &c) {
  const uint64_t n0 = I.raw(F::Vsoftmax_n0), n1 = I.raw(F::Vsoftmax_n1);
  const bool u8 = I.getFlag(F::Vsoftmax_u8);
  const float cf = I.getF32(F::Vsoftmax_c);
  const uint64_t t = I.raw(F::Vsoftmax_table_addr);
  for (uint64_t j = 0; j < n1; ++j) {
    const uint8_t *x =
        &s.scratchpad[I.raw(F::Vsoftmax_a_addr) + j * I.raw(F::Vsoftmax_a_s1)];
    int m = -128;
    for (uint64_t i = 0; i < n0; ++i)
      m = std::max(m, int(int8_t(x[i])));
    auto e = [&](uint64_t i) {
      return fromBits(uint32_t(s.accumulator[t + 255 - (m - int8_t(x[i]))]));
    };
    float sum = 0.0f;
    for (uint64_t i = 0; i < n0; ++i)
      sum = sum + e(i);
    for (uint64_t i = 0; i < n0; ++i) {
      volatile float p = e(i) * cf; // one rounding per step
      float q = std::nearbyint(p / sum);
      bool in32 = q < 2147483648.0f && q >= -2147483648.0f;
      bool in64 = q < 9223372036854775808.0f && q >= -9223372036854775808.0f;
      c.int8OutOfRange += !u8 && !in32;
      c.u8Wide += u8 && in64 && !in32;
      c.u8OutOfRange += u8 && !in64;
    }
  }
}

// A table entry: ORT's exp((k - 255) * x_scale) mostly, sometimes shifted
// up, near FLT_MAX, or any bit pattern.
uint32_t tableWord(Gen &g) {
  switch (g.below(10)) {
  case 0:
    return uint32_t(g.rng());
  case 1:
    return bitsOf(std::ldexp(g.uniform(1.0f, 2.0f), int(g.range(110, 127))));
  case 2:
    return bitsOf(std::exp(g.uniform(0.0f, 20.0f)));
  default:
    return bitsOf(std::exp(-g.uniform(0.0f, 0.2f) * float(g.below(256))));
  }
}

// c: ORT's floor(1 / y_scale), powers of two past 2^31 and 2^63 of q, any.
uint32_t scaleC(Gen &g) {
  switch (g.below(6)) {
  case 0:
    return bitsOf(256.0f);
  case 1:
    return bitsOf(std::floor(1.0f / g.uniform(1e-5f, 1e-2f)));
  case 2:
  case 3:
    return bitsOf(std::ldexp(1.0f, int(g.range(20, 80))));
  case 4:
    return bitsOf(1.0f);
  default:
    return uint32_t(g.rng());
  }
}

// One VSOFTMAX the verifier accepts: O in place on A (rows apart), or apart
// from A's hull with rows apart or all on one (o_s1 = 0: the last row wins,
// and it is written last or by the highest lane).
isa::Instruction randomSoftmax(Gen &g, const isa::HwConfig &cfg, int index) {
  const int64_t L = int64_t(cfg.vector.lanes);
  const int64_t sp = int64_t(cfg.sram.scratchpadBytes);
  const int64_t accWords = int64_t(cfg.sram.accumulatorBytes / 4);
  int64_t n0, n1;
  switch (index % 5) {
  case 0:
    n0 = 1, n1 = g.range(1, 3 * L); // one column
    break;
  case 1:
    n0 = g.range(1, 8), n1 = L * g.range(1, 3); // whole lane groups
    break;
  default:
    n0 = g.range(1, 70), n1 = g.range(1, 3 * L + 1);
  }
  isa::Instruction I(isa::Opcode::Vsoftmax);
  I.set(F::Vsoftmax_n0, n0);
  I.set(F::Vsoftmax_n1, n1);
  I.set(F::Vsoftmax_u8, g.chance(40));
  I.setRaw(F::Vsoftmax_zp, g.below(256));
  I.setRaw(F::Vsoftmax_c, scaleC(g));
  I.set(F::Vsoftmax_table_addr, g.range(0, accWords - 256));
  int64_t aS1 = g.chance(20) ? g.range(0, n0) : n0 + g.range(0, 5);
  int64_t aEnd = (n1 - 1) * aS1 + n0;
  int64_t a = g.range(0, sp - aEnd);
  int64_t o, oS1;
  if (g.chance(30) && (n1 == 1 || aS1 >= n0)) {
    o = a, oS1 = aS1;
  } else {
    oS1 = g.chance(10) ? 0 : n0 + g.range(0, 5);
    int64_t oEnd = (n1 - 1) * oS1 + n0;
    do
      o = g.range(0, sp - oEnd);
    while (!(o + oEnd <= a || a + aEnd <= o));
  }
  I.set(F::Vsoftmax_a_addr, a);
  I.set(F::Vsoftmax_a_s1, aS1);
  I.set(F::Vsoftmax_o_addr, o);
  I.set(F::Vsoftmax_o_s1, oS1);
  return I;
}

std::string describe(const isa::Instruction &I) {
  std::ostringstream os;
  os << " vsoftmax";
  for (auto f :
       {F::Vsoftmax_n0, F::Vsoftmax_n1, F::Vsoftmax_a_addr, F::Vsoftmax_a_s1,
        F::Vsoftmax_o_addr, F::Vsoftmax_o_s1, F::Vsoftmax_table_addr,
        F::Vsoftmax_u8, F::Vsoftmax_zp, F::Vsoftmax_c})
    os << " " << I.raw(f);
  return os.str();
}

template <class V> struct Dut : EngineDut<V> {
  auto &sp() { return this->m->rootp->tb_npu_softmax_unit__DOT__sp; }
  auto &acc() { return this->m->rootp->tb_npu_softmax_unit__DOT__acc; }
};

// Runs I from the current state and checks values, write count and cycles.
template <class V>
void runOne(Dut<V> &dut, Gen &g, const isa::HwConfig &cfg,
            sim::MachineState &state, const isa::Instruction &I,
            const std::string &what) {
  ASSERT_FALSE(bool(isa::validateInstruction(I, cfg))) << what;
  ASSERT_FALSE(sim::checkInstruction(I, state).has_value()) << what;
  const uint64_t n0 = I.raw(F::Vsoftmax_n0), n1 = I.raw(F::Vsoftmax_n1);
  const uint64_t L = cfg.vector.lanes, P = cfg.vector.pipelineDepth;
  loadArray(dut.sp(), state.scratchpad);
  loadArray(dut.acc(), state.accumulator);
  sim::MachineState ref = state;
  sim::executeInstruction(I, ref);
  const uint64_t cdur = isa::computeCycles(I, cfg);
  ASSERT_EQ(cdur, (n1 + L - 1) / L * (3 * n0 + 2) + P) << what;
  WriteCount wc;
  ASSERT_NO_FATAL_FAILURE(streamOne(dut, g, I, cdur, what, wc));
  EXPECT_EQ(wc.writes, n0 * n1) << what;
  EXPECT_EQ(wc.first, 2 * n0 + 2 + P) << what;
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
    isa::Instruction I = randomSoftmax(g, cfg, k);
    for (auto &byte : state.scratchpad)
      byte = uint8_t(g.rng());
    for (auto &word : state.accumulator)
      word = int32_t(tableWord(g));
    const uint64_t n0 = I.raw(F::Vsoftmax_n0), n1 = I.raw(F::Vsoftmax_n1);
    c.u8 += I.getFlag(F::Vsoftmax_u8);
    c.inPlace += I.raw(F::Vsoftmax_a_addr) == I.raw(F::Vsoftmax_o_addr);
    c.partialGroup += n1 % cfg.vector.lanes != 0 && n1 > cfg.vector.lanes;
    c.oneColumn += n0 == 1;
    c.sharedOut += n1 > 1 && I.raw(F::Vsoftmax_o_s1) == 0;
    classify(I, state, c);
    ASSERT_NO_FATAL_FAILURE(
        runOne(dut, g, cfg, state, I,
               " instruction " + std::to_string(k) + describe(I)));
    if (::testing::Test::HasFailure())
      return;
  }
  std::printf("%d VSOFTMAX: %d u8, %d in place, %d with a partial last lane "
              "group, %d one column, %d rows on one output; elements: %d "
              "int8 out of range, %d u8 past 2^31, %d u8 out of range\n",
              count, c.u8, c.inPlace, c.partialGroup, c.oneColumn, c.sharedOut,
              c.int8OutOfRange, c.u8Wide, c.u8OutOfRange);
  EXPECT_GT(c.u8, count / 10);
  EXPECT_GT(c.inPlace, count / 10);
  EXPECT_GT(c.partialGroup, count / 10);
  EXPECT_GT(c.oneColumn, count / 10);
  EXPECT_GT(c.sharedOut, 0);
  EXPECT_GT(c.int8OutOfRange, 20);
  EXPECT_GT(c.u8Wide, 20);
  EXPECT_GT(c.u8OutOfRange, 20);
}

// Hand-derived: n0 = 5, n1 = 3 on rtl-8x8 (8 lanes, pipeline depth 3) is
// one lane group of 3*5 + 2 = 17 cycles (maximum 5, sum 6, outputs 6), +3:
// 20 cycles, the first byte written at the edge ending s + 12 + 3 = s + 15.
// On lanes3-p0 (3 lanes, depth 0) n1 = 7 is three groups: 3*17 = 51.
isa::Instruction handSoftmax(uint64_t n1) {
  isa::Instruction I(isa::Opcode::Vsoftmax);
  I.set(F::Vsoftmax_n0, 5);
  I.set(F::Vsoftmax_n1, n1);
  I.set(F::Vsoftmax_a_addr, 100);
  I.set(F::Vsoftmax_a_s1, 7);
  I.set(F::Vsoftmax_o_addr, 1000);
  I.set(F::Vsoftmax_o_s1, 5);
  I.set(F::Vsoftmax_table_addr, 0);
  I.setF32(F::Vsoftmax_c, 256.0f);
  return I;
}

// Random codes, ORT's table for x_scale 0.1 at ACC word 0.
sim::MachineState handState(const isa::HwConfig &cfg, Gen &g) {
  sim::MachineState state = sim::MachineState::create(cfg, 0);
  for (auto &byte : state.scratchpad)
    byte = uint8_t(g.rng());
  for (unsigned k = 0; k < 256; ++k)
    state.accumulator[k] =
        int32_t(bitsOf(std::exp(float(int(k) - 255) * 0.1f)));
  return state;
}

TEST(SoftmaxUnit, HandDerivedCyclesOnRtl8x8) {
  isa::HwConfig cfg = loadConfig(kRtl8);
  ASSERT_EQ(cfg.vector.lanes, 8u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 3u);
  isa::Instruction I = handSoftmax(3);
  EXPECT_EQ(isa::computeCycles(I, cfg), 20u);
  Gen g(5);
  sim::MachineState state = handState(cfg, g);
  Dut<Vtb_npu_softmax_unit_rtl_8x8> dut;
  runOne(dut, g, cfg, state, I, " rtl-8x8 n0=5 n1=3");
}

TEST(SoftmaxUnit, HandDerivedCyclesOnThreeLanesPipelineDepth0) {
  isa::HwConfig cfg = loadConfig(kLanes3);
  isa::Instruction I = handSoftmax(7);
  EXPECT_EQ(isa::computeCycles(I, cfg), 51u);
  Gen g(6);
  sim::MachineState state = handState(cfg, g);
  Dut<Vtb_npu_softmax_unit_lanes3_p0> dut;
  runOne(dut, g, cfg, state, I, " lanes3-p0 n0=5 n1=7");
}

TEST(SoftmaxUnit, RandomOnTiny4x4) {
  runRandom<Vtb_npu_softmax_unit_tiny_4x4>(loadConfig(kTiny), 21, 300);
}

TEST(SoftmaxUnit, RandomOnRtl8x8) {
  runRandom<Vtb_npu_softmax_unit_rtl_8x8>(loadConfig(kRtl8), 22, 300);
}

TEST(SoftmaxUnit, RandomOnThreeLanesPipelineDepth0) {
  isa::HwConfig cfg = loadConfig(kLanes3);
  ASSERT_EQ(cfg.vector.lanes, 3u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 0u);
  runRandom<Vtb_npu_softmax_unit_lanes3_p0>(cfg, 23, 300);
}

} // namespace
