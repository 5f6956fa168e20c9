//===- LayernormUnitTest.cpp - VLAYERNORM engine vs the simulator ---------===//
//
// Drives rtl/npu_layernorm_unit.sv (in tb/tb_npu_layernorm_unit.sv, with a
// behavioral SP and ACC) with random verifier-valid VLAYERNORMs, back to
// back, on the three engine-test configs, and asserts after each: every SP
// byte equal to sim::executeInstruction (isa::layerNormRow per row); n0*n1
// lane writes, the first at the edge ending s + n0 + 6 + PIPE_DEPTH (pass 2
// of the first lane group), the last at the edge ending s + computeCycles
// - 1; busy high in s+1 .. s+computeCycles-1 and low from s + computeCycles
// on. Gamma and beta are mostly ORT-like (around 1 and 0), sometimes any
// bit pattern; rows of one repeated code with eps 0 make var + eps zero or
// negative (d = 0 or NaN), so the clamp's NaN case comes up (counted below
// from the same float steps as isa::layerNormRow).
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"
#include "Vtb_npu_layernorm_unit_lanes3_p0.h"
#include "Vtb_npu_layernorm_unit_lanes3_p0___024root.h"
#include "Vtb_npu_layernorm_unit_rtl_8x8.h"
#include "Vtb_npu_layernorm_unit_rtl_8x8___024root.h"
#include "Vtb_npu_layernorm_unit_tiny_4x4.h"
#include "Vtb_npu_layernorm_unit_tiny_4x4___024root.h"

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

// What a VLAYERNORM's rows and elements exercised.
struct Cases {
  int bias = 0, inPlace = 0, partialGroup = 0, oneColumn = 0, sharedOut = 0;
  int nanD = 0;    // rows with sqrt(var + eps) NaN (var + eps < 0)
  int zeroD = 0;   // rows with d = 0
  int clamped = 0; // elements clamped to lo or hi (NaN included)
  int inRange = 0; // elements rounded inside [lo, hi]
};

// The row statistics and the clamp of every element, as isa::layerNormRow
// computes them, classified.
void classify(const isa::Instruction &I, const sim::MachineState &s, Cases &c) {
  const uint64_t n0 = I.raw(F::Vlayernorm_n0), n1 = I.raw(F::Vlayernorm_n1);
  const float xs = I.getF32(F::Vlayernorm_x_scale),
              ys = I.getF32(F::Vlayernorm_y_scale),
              eps = I.getF32(F::Vlayernorm_eps);
  const int32_t xzp = int32_t(I.get(F::Vlayernorm_x_zp)),
                yzp = int32_t(I.get(F::Vlayernorm_y_zp));
  const bool bias = I.getFlag(F::Vlayernorm_bias);
  auto acc = [&](uint64_t w) { return fromBits(uint32_t(s.accumulator[w])); };
  for (uint64_t j = 0; j < n1; ++j) {
    const int8_t *x = reinterpret_cast<const int8_t *>(
        &s.scratchpad[I.raw(F::Vlayernorm_a_addr) +
                      j * I.raw(F::Vlayernorm_a_s1)]);
    auto dq = [&](uint64_t i) {
      volatile float v = float(int32_t(x[i]) - xzp) * xs;
      return float(v);
    };
    volatile float s1 = 0.0f, s2 = 0.0f;
    for (uint64_t i = 0; i < n0; ++i) {
      volatile float v = dq(i), sq = v * v;
      s1 = s1 + v;
      s2 = s2 + sq;
    }
    volatile float mean = s1 / float(n0), ms = s2 / float(n0);
    volatile float m2 = mean * mean, var = ms - m2, t = var + eps;
    float d = std::sqrt(float(t));
    c.nanD += std::isnan(d);
    c.zeroD += d == 0.0f;
    const float lo = float(-128 - yzp), hi = float(127 - yzp);
    for (uint64_t i = 0; i < n0; ++i) {
      volatile float y = (dq(i) - mean) / d;
      y = y * acc(I.raw(F::Vlayernorm_gamma_addr) + i);
      if (bias)
        y = y + acc(I.raw(F::Vlayernorm_beta_addr) + i);
      volatile float v = y / ys;
      bool in = v > lo && v < hi;
      c.clamped += !in;
      c.inRange += in;
    }
  }
}

// gamma: ORT-like scales around 1; beta: offsets around 0; sometimes any
// bit pattern (NaN, infinities, subnormals).
uint32_t gammaWord(Gen &g) {
  if (g.chance(5))
    return uint32_t(g.rng());
  return bitsOf(g.uniform(0.2f, 2.0f) * (g.chance(10) ? -1.0f : 1.0f));
}
uint32_t betaWord(Gen &g) {
  if (g.chance(5))
    return uint32_t(g.rng());
  return bitsOf(g.uniform(-1.5f, 1.5f));
}

// One VLAYERNORM the verifier accepts: O in place on A (rows apart), or
// apart from A's hull with rows apart or all on one (o_s1 = 0: the last row
// wins, and it is written last or by the highest lane).
isa::Instruction randomLayerNorm(Gen &g, const isa::HwConfig &cfg, int index) {
  const int64_t L = int64_t(cfg.vector.lanes);
  const int64_t sp = int64_t(cfg.sram.scratchpadBytes);
  const int64_t accWords = int64_t(cfg.sram.accumulatorBytes / 4);
  int64_t n0, n1;
  switch (index % 5) {
  case 0:
    n0 = 1, n1 = g.range(1, 3 * L); // one column: var 0, x - mean 0
    break;
  case 1:
    n0 = g.range(1, 8), n1 = L * g.range(1, 3); // whole lane groups
    break;
  default:
    n0 = g.range(1, 70), n1 = g.range(1, 3 * L + 1);
  }
  isa::Instruction I(isa::Opcode::Vlayernorm);
  I.set(F::Vlayernorm_n0, n0);
  I.set(F::Vlayernorm_n1, n1);
  I.set(F::Vlayernorm_bias, g.chance(60));
  I.setRaw(F::Vlayernorm_x_zp, g.below(256));
  I.setRaw(F::Vlayernorm_y_zp, g.below(256));
  I.setF32(F::Vlayernorm_x_scale,
           g.chance(5) ? fromBits(uint32_t(g.rng())) : g.uniform(1e-3f, 0.2f));
  I.setF32(F::Vlayernorm_y_scale,
           g.chance(5) ? fromBits(uint32_t(g.rng())) : g.uniform(5e-3f, 0.1f));
  switch (g.below(5)) {
  case 0:
    I.setF32(F::Vlayernorm_eps, 0.0f);
    break;
  case 1:
    I.setF32(F::Vlayernorm_eps, 1e-12f);
    break;
  case 2:
    I.setF32(F::Vlayernorm_eps, -g.uniform(0.0f, 1e-3f)); // pathological
    break;
  default:
    I.setF32(F::Vlayernorm_eps, 1e-5f);
  }
  I.set(F::Vlayernorm_gamma_addr, g.range(0, accWords - n0));
  I.set(F::Vlayernorm_beta_addr, g.range(0, accWords - n0));
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
  I.set(F::Vlayernorm_a_addr, a);
  I.set(F::Vlayernorm_a_s1, aS1);
  I.set(F::Vlayernorm_o_addr, o);
  I.set(F::Vlayernorm_o_s1, oS1);
  return I;
}

std::string describe(const isa::Instruction &I) {
  std::ostringstream os;
  os << " vlayernorm";
  for (auto f :
       {F::Vlayernorm_n0, F::Vlayernorm_n1, F::Vlayernorm_a_addr,
        F::Vlayernorm_a_s1, F::Vlayernorm_o_addr, F::Vlayernorm_o_s1,
        F::Vlayernorm_gamma_addr, F::Vlayernorm_beta_addr, F::Vlayernorm_bias,
        F::Vlayernorm_x_zp, F::Vlayernorm_y_zp, F::Vlayernorm_eps,
        F::Vlayernorm_x_scale, F::Vlayernorm_y_scale})
    os << " " << I.raw(f);
  return os.str();
}

template <class V> struct Dut : EngineDut<V> {
  auto &sp() { return this->m->rootp->tb_npu_layernorm_unit__DOT__sp; }
  auto &acc() { return this->m->rootp->tb_npu_layernorm_unit__DOT__acc; }
};

// Runs I from the current state and checks values, write count and cycles.
template <class V>
void runOne(Dut<V> &dut, Gen &g, const isa::HwConfig &cfg,
            sim::MachineState &state, const isa::Instruction &I,
            const std::string &what) {
  ASSERT_FALSE(bool(isa::validateInstruction(I, cfg))) << what;
  ASSERT_FALSE(sim::checkInstruction(I, state).has_value()) << what;
  const uint64_t n0 = I.raw(F::Vlayernorm_n0), n1 = I.raw(F::Vlayernorm_n1);
  const uint64_t L = cfg.vector.lanes, P = cfg.vector.pipelineDepth;
  loadArray(dut.sp(), state.scratchpad);
  loadArray(dut.acc(), state.accumulator);
  sim::MachineState ref = state;
  sim::executeInstruction(I, ref);
  const uint64_t cdur = isa::computeCycles(I, cfg);
  ASSERT_EQ(cdur, (n1 + L - 1) / L * (2 * n0 + isa::kLayerNormStatCycles) + P)
      << what;
  WriteCount wc;
  ASSERT_NO_FATAL_FAILURE(streamOne(dut, g, I, cdur, what, wc));
  EXPECT_EQ(wc.writes, n0 * n1) << what;
  EXPECT_EQ(wc.first, n0 + isa::kLayerNormStatCycles + P) << what;
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
    isa::Instruction I = randomLayerNorm(g, cfg, k);
    const uint64_t n0 = I.raw(F::Vlayernorm_n0), n1 = I.raw(F::Vlayernorm_n1);
    // Codes: random, or (every fourth) one code per row, whose variance
    // is 0 up to rounding.
    bool flat = k % 4 == 3;
    for (auto &byte : state.scratchpad)
      byte = uint8_t(g.rng());
    if (flat)
      for (uint64_t j = 0; j < n1; ++j) {
        uint8_t v = uint8_t(g.rng());
        for (uint64_t i = 0; i < n0; ++i)
          state.scratchpad[I.raw(F::Vlayernorm_a_addr) +
                           j * I.raw(F::Vlayernorm_a_s1) + i] = v;
      }
    for (size_t w = 0; w < state.accumulator.size(); ++w)
      state.accumulator[w] = int32_t(w % 2 ? betaWord(g) : gammaWord(g));
    c.bias += I.getFlag(F::Vlayernorm_bias);
    c.inPlace += I.raw(F::Vlayernorm_a_addr) == I.raw(F::Vlayernorm_o_addr);
    c.partialGroup += n1 % cfg.vector.lanes != 0 && n1 > cfg.vector.lanes;
    c.oneColumn += n0 == 1;
    c.sharedOut += n1 > 1 && I.raw(F::Vlayernorm_o_s1) == 0;
    classify(I, state, c);
    ASSERT_NO_FATAL_FAILURE(
        runOne(dut, g, cfg, state, I,
               " instruction " + std::to_string(k) + describe(I)));
    if (::testing::Test::HasFailure())
      return;
  }
  std::printf("%d VLAYERNORM: %d with beta, %d in place, %d with a partial "
              "last lane group, %d one column, %d rows on one output; rows: "
              "%d d NaN, %d d zero; elements: %d clamped, %d in range\n",
              count, c.bias, c.inPlace, c.partialGroup, c.oneColumn,
              c.sharedOut, c.nanD, c.zeroD, c.clamped, c.inRange);
  EXPECT_GT(c.bias, count / 10);
  EXPECT_LT(c.bias, count - count / 10);
  EXPECT_GT(c.inPlace, count / 10);
  EXPECT_GT(c.partialGroup, count / 10);
  EXPECT_GT(c.oneColumn, count / 10);
  EXPECT_GT(c.sharedOut, 0);
  EXPECT_GT(c.nanD, 20);
  EXPECT_GT(c.zeroD, 20);
  EXPECT_GT(c.clamped, 1000);
  EXPECT_GT(c.inRange, 1000);
}

// Hand-derived: n0 = 5, n1 = 3 on rtl-8x8 (8 lanes, pipeline depth 3) is
// one lane group of 2*5 + 6 = 16 cycles (sums 5, statistics 6, outputs 5),
// +3: 19 cycles, the first byte written at the edge ending s + 11 + 3 =
// s + 14. On lanes3-p0 (3 lanes, depth 0) n1 = 7 is three groups: 3*16 = 48.
isa::Instruction handLayerNorm(uint64_t n1) {
  isa::Instruction I(isa::Opcode::Vlayernorm);
  I.set(F::Vlayernorm_n0, 5);
  I.set(F::Vlayernorm_n1, n1);
  I.set(F::Vlayernorm_bias, 1);
  I.set(F::Vlayernorm_a_addr, 100);
  I.set(F::Vlayernorm_a_s1, 7);
  I.set(F::Vlayernorm_o_addr, 1000);
  I.set(F::Vlayernorm_o_s1, 5);
  I.set(F::Vlayernorm_gamma_addr, 0);
  I.set(F::Vlayernorm_beta_addr, 8);
  I.setF32(F::Vlayernorm_eps, 1e-5f);
  I.setF32(F::Vlayernorm_x_scale, 0.05f);
  I.setF32(F::Vlayernorm_y_scale, 0.02f);
  I.setRaw(F::Vlayernorm_x_zp, 3);
  I.setRaw(F::Vlayernorm_y_zp, 0xfb); // -5
  return I;
}

// Random codes, gamma 1 + k/10 and beta k/20 - 0.1.
sim::MachineState handState(const isa::HwConfig &cfg, Gen &g) {
  sim::MachineState state = sim::MachineState::create(cfg, 0);
  for (auto &byte : state.scratchpad)
    byte = uint8_t(g.rng());
  for (unsigned k = 0; k < 5; ++k) {
    state.accumulator[k] = int32_t(bitsOf(1.0f + float(k) / 10));
    state.accumulator[8 + k] = int32_t(bitsOf(float(k) / 20 - 0.1f));
  }
  return state;
}

TEST(LayernormUnit, HandDerivedCyclesOnRtl8x8) {
  isa::HwConfig cfg = loadConfig(kRtl8);
  ASSERT_EQ(cfg.vector.lanes, 8u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 3u);
  isa::Instruction I = handLayerNorm(3);
  EXPECT_EQ(isa::computeCycles(I, cfg), 19u);
  Gen g(5);
  sim::MachineState state = handState(cfg, g);
  Dut<Vtb_npu_layernorm_unit_rtl_8x8> dut;
  runOne(dut, g, cfg, state, I, " rtl-8x8 n0=5 n1=3");
}

TEST(LayernormUnit, HandDerivedCyclesOnThreeLanesPipelineDepth0) {
  isa::HwConfig cfg = loadConfig(kLanes3);
  isa::Instruction I = handLayerNorm(7);
  EXPECT_EQ(isa::computeCycles(I, cfg), 48u);
  Gen g(6);
  sim::MachineState state = handState(cfg, g);
  Dut<Vtb_npu_layernorm_unit_lanes3_p0> dut;
  runOne(dut, g, cfg, state, I, " lanes3-p0 n0=5 n1=7");
}

TEST(LayernormUnit, RandomOnTiny4x4) {
  runRandom<Vtb_npu_layernorm_unit_tiny_4x4>(loadConfig(kTiny), 31, 300);
}

TEST(LayernormUnit, RandomOnRtl8x8) {
  runRandom<Vtb_npu_layernorm_unit_rtl_8x8>(loadConfig(kRtl8), 32, 300);
}

TEST(LayernormUnit, RandomOnThreeLanesPipelineDepth0) {
  isa::HwConfig cfg = loadConfig(kLanes3);
  ASSERT_EQ(cfg.vector.lanes, 3u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 0u);
  runRandom<Vtb_npu_layernorm_unit_lanes3_p0>(cfg, 33, 300);
}

} // namespace
