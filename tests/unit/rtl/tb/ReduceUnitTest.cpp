//===- ReduceUnitTest.cpp - VREDUCE engine vs the simulator ---------------===//
//
// Drives rtl/npu_reduce_unit.sv (in tb/tb_npu_reduce_unit.sv, with a
// behavioral SP) with random verifier-valid VREDUCEs, back to back, on the
// three engine-test configs, and asserts after each: every SP byte equal to
// sim::executeInstruction (isa::reduceRow per row, Eigen's packet order);
// n1 lane writes, the first at the edge ending s + n0 + 3 + PIPE_DEPTH (the
// first lane group's last slot), the last at the edge ending s +
// computeCycles - 1, computeCycles asserted as ceil(n1/LANES) * (n0 + 4) +
// PIPE_DEPTH; busy high in s+1 .. s+computeCycles-1 and low from s +
// computeCycles on. The rows are classified by their phase and packets as
// isa::eigenRowSum splits them: every phase, no whole packet (n0 < 4 or
// short of one after the unaligned head), one, two, an odd number >= 3 and
// an even number >= 4 of packets, rows whose Eigen sum differs from the
// sequential one, sum and mean, clamps, and n1 above the lanes must all
// come up. Hand-derived cycles and bytes on tiny-4x4 and rtl-8x8 complete
// it.
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"
#include "Vtb_npu_reduce_unit_lanes3_p0.h"
#include "Vtb_npu_reduce_unit_lanes3_p0___024root.h"
#include "Vtb_npu_reduce_unit_rtl_8x8.h"
#include "Vtb_npu_reduce_unit_rtl_8x8___024root.h"
#include "Vtb_npu_reduce_unit_tiny_4x4.h"
#include "Vtb_npu_reduce_unit_tiny_4x4___024root.h"

#include "systole/ISA/Arithmetic.h"
#include "systole/Simulator/Semantics.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

using namespace systole;
using namespace systole::enginetest;
using F = isa::Field;

namespace {

// What the VREDUCEs and their rows exercised.
struct Cases {
  int phase[4] = {0, 0, 0, 0}; // rows by their phase
  int noPacket = 0, onePacket = 0, twoPackets = 0, oddPackets = 0,
      evenPackets = 0;  // rows by whole packets (odd, even: >= 3, >= 4)
  int orderMatters = 0; // rows whose Eigen sum != the sequential sum
  int mean = 0, sum = 0, manyGroups = 0;
  int clamped = 0, inRange = 0;
};

void classify(const isa::Instruction &I, const sim::MachineState &s, Cases &c) {
  const uint64_t n0 = I.raw(F::Vreduce_n0), n1 = I.raw(F::Vreduce_n1);
  const float xs = I.getF32(F::Vreduce_x_scale),
              ys = I.getF32(F::Vreduce_y_scale);
  const int32_t xzp = int32_t(I.get(F::Vreduce_x_zp)),
                yzp = int32_t(I.get(F::Vreduce_y_zp));
  const bool mean = I.getFlag(F::Vreduce_mean);
  std::vector<float> v(n0);
  for (uint64_t j = 0; j < n1; ++j) {
    const uint64_t ph = (I.raw(F::Vreduce_phase) + j * n0) % 4;
    c.phase[ph]++;
    const uint64_t start = std::min<uint64_t>((4 - ph) % 4, n0);
    const uint64_t packets = (n0 - start) / 4;
    c.noPacket += packets == 0;
    c.onePacket += packets == 1;
    c.twoPackets += packets == 2;
    c.oddPackets += packets >= 3 && packets % 2 == 1;
    c.evenPackets += packets >= 4 && packets % 2 == 0;
    for (uint64_t i = 0; i < n0; ++i) {
      volatile float x =
          float(int32_t(int8_t(s.scratchpad[I.raw(F::Vreduce_a_addr) +
                                            j * I.raw(F::Vreduce_a_s1) + i])) -
                xzp) *
          xs;
      v[i] = x;
    }
    volatile float seq = v[0];
    for (uint64_t i = 1; i < n0; ++i)
      seq = seq + v[i];
    float eig = isa::eigenRowSum(v.data(), n0, ph);
    c.orderMatters += std::memcmp(&eig, (const float *)&seq, 4) != 0;
    volatile float y = mean ? eig / float(n0) : eig;
    volatile float q = y / ys;
    bool in = q > float(-128 - yzp) && q < float(127 - yzp);
    c.clamped += !in;
    c.inRange += in;
  }
}

// One VREDUCE the verifier accepts: rows possibly overlapping each other
// (a_s1 < n0), results apart from the rows' hull with o_s1 >= 1.
isa::Instruction randomReduce(Gen &g, const isa::HwConfig &cfg, int index) {
  const int64_t L = int64_t(cfg.vector.lanes);
  const int64_t sp = int64_t(cfg.sram.scratchpadBytes);
  int64_t n0, n1;
  switch (index % 6) {
  case 0:
    n0 = g.range(1, 7), n1 = g.range(1, 3 * L); // head, tail, <= 1 packet
    break;
  case 1:
    n0 = g.range(8, 16), n1 = g.range(1, 2 * L); // 1 .. 4 packets
    break;
  case 2:
    n0 = g.range(1, 40), n1 = L * g.range(1, 3); // whole lane groups
    break;
  default:
    n0 = g.range(1, 80), n1 = g.range(1, 3 * L + 1);
  }
  isa::Instruction I(isa::Opcode::Vreduce);
  I.set(F::Vreduce_n0, n0);
  I.set(F::Vreduce_n1, n1);
  I.set(F::Vreduce_phase, g.below(4));
  I.set(F::Vreduce_mean, g.chance(50));
  I.setRaw(F::Vreduce_x_zp, g.below(256));
  I.setRaw(F::Vreduce_y_zp, g.below(256));
  // Scales: ORT-like, sometimes large (sums far out of range, clamps) or
  // any bit pattern.
  auto scale = [&](float lo, float hi) {
    if (g.chance(4))
      return float(g.uniform(-1.0f, 1.0f) * 1e30f);
    uint32_t w = uint32_t(g.rng());
    float f;
    std::memcpy(&f, &w, 4);
    return g.chance(4) ? f : g.uniform(lo, hi);
  };
  I.setF32(F::Vreduce_x_scale, scale(1e-3f, 0.3f));
  I.setF32(F::Vreduce_y_scale, scale(5e-3f, 0.5f));
  int64_t aS1 = g.chance(20) ? g.range(0, n0) : n0 + g.range(0, 5);
  int64_t aEnd = (n1 - 1) * aS1 + n0;
  int64_t a = g.range(0, sp - aEnd);
  int64_t oS1 = g.chance(70) ? 1 : g.range(1, 9);
  int64_t oEnd = (n1 - 1) * oS1 + 1;
  int64_t o;
  do
    o = g.range(0, sp - oEnd);
  while (!(o + oEnd <= a || a + aEnd <= o));
  I.set(F::Vreduce_a_addr, a);
  I.set(F::Vreduce_a_s1, aS1);
  I.set(F::Vreduce_o_addr, o);
  I.set(F::Vreduce_o_s1, oS1);
  return I;
}

std::string describe(const isa::Instruction &I) {
  std::ostringstream os;
  os << " vreduce";
  for (auto f : {F::Vreduce_n0, F::Vreduce_n1, F::Vreduce_phase,
                 F::Vreduce_mean, F::Vreduce_a_addr, F::Vreduce_a_s1,
                 F::Vreduce_o_addr, F::Vreduce_o_s1, F::Vreduce_x_zp,
                 F::Vreduce_y_zp, F::Vreduce_x_scale, F::Vreduce_y_scale})
    os << " " << I.raw(f);
  return os.str();
}

template <class V> struct Dut : EngineDut<V> {
  auto &sp() { return this->m->rootp->tb_npu_reduce_unit__DOT__sp; }
};

// Runs I from `state` and checks values, write count and cycles.
template <class V>
void runOne(Dut<V> &dut, Gen &g, const isa::HwConfig &cfg,
            const sim::MachineState &state, const isa::Instruction &I,
            const std::string &what) {
  ASSERT_FALSE(bool(isa::validateInstruction(I, cfg))) << what;
  ASSERT_FALSE(sim::checkInstruction(I, state).has_value()) << what;
  const uint64_t n0 = I.raw(F::Vreduce_n0), n1 = I.raw(F::Vreduce_n1);
  const uint64_t L = cfg.vector.lanes, P = cfg.vector.pipelineDepth;
  loadArray(dut.sp(), state.scratchpad);
  sim::MachineState ref = state;
  sim::executeInstruction(I, ref);
  const uint64_t cdur = isa::computeCycles(I, cfg);
  ASSERT_EQ(cdur, (n1 + L - 1) / L * (n0 + 4) + P) << what;
  WriteCount wc;
  ASSERT_NO_FATAL_FAILURE(streamOne(dut, g, I, cdur, what, wc));
  EXPECT_EQ(wc.writes, n1) << what;
  EXPECT_EQ(wc.first, n0 + 3 + P) << what;
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
    isa::Instruction I = randomReduce(g, cfg, k);
    for (auto &byte : state.scratchpad)
      byte = uint8_t(g.rng());
    c.mean += I.getFlag(F::Vreduce_mean);
    c.sum += !I.getFlag(F::Vreduce_mean);
    c.manyGroups += I.raw(F::Vreduce_n1) > cfg.vector.lanes;
    classify(I, state, c);
    ASSERT_NO_FATAL_FAILURE(
        runOne(dut, g, cfg, state, I,
               " instruction " + std::to_string(k) + describe(I)));
    if (::testing::Test::HasFailure())
      return;
  }
  std::printf("%d VREDUCE (%d mean, %d sum, %d with n1 > lanes); rows: "
              "phases %d %d %d %d; packets: %d none, %d one, %d two, %d odd "
              ">= 3, %d even >= 4; %d where Eigen's order changes the sum; "
              "%d clamped, %d in range\n",
              count, c.mean, c.sum, c.manyGroups, c.phase[0], c.phase[1],
              c.phase[2], c.phase[3], c.noPacket, c.onePacket, c.twoPackets,
              c.oddPackets, c.evenPackets, c.orderMatters, c.clamped,
              c.inRange);
  for (int p = 0; p < 4; ++p)
    EXPECT_GT(c.phase[p], count / 2) << "phase " << p;
  EXPECT_GT(c.noPacket, count / 4);
  EXPECT_GT(c.onePacket, count / 10);
  EXPECT_GT(c.twoPackets, count / 10);
  EXPECT_GT(c.oddPackets, count / 4);
  EXPECT_GT(c.evenPackets, count / 4);
  EXPECT_GT(c.orderMatters, count / 4);
  EXPECT_GT(c.mean, count / 3);
  EXPECT_GT(c.sum, count / 3);
  EXPECT_GT(c.manyGroups, count / 5);
  EXPECT_GT(c.clamped, count / 2);
  EXPECT_GT(c.inRange, count);
}

TEST(ReduceUnit, RandomOnTiny4x4) {
  runRandom<Vtb_npu_reduce_unit_tiny_4x4>(loadConfig(kTiny), 51, 300);
}

TEST(ReduceUnit, RandomOnRtl8x8) {
  runRandom<Vtb_npu_reduce_unit_rtl_8x8>(loadConfig(kRtl8), 52, 300);
}

TEST(ReduceUnit, RandomOnThreeLanesPipelineDepth0) {
  isa::HwConfig cfg = loadConfig(kLanes3);
  ASSERT_EQ(cfg.vector.lanes, 3u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 0u);
  runRandom<Vtb_npu_reduce_unit_lanes3_p0>(cfg, 53, 300);
}

// Hand-derived cycles: rows of n0 = 13 codes at 64 + 16j, scales 1, zero
// points 0, the sum, phase 1 (row j's phase 1 + 13j: 1, 2, 3, 0, ...).
// Row j: v3 = 100, v7 = -100, the other eleven j % 3, so 11 * (j % 3) in
// any order. One lane group is 13 + 4 = 17 slots: rtl-8x8 (8 lanes, depth
// 3) with n1 = 3 takes 17 + 3 = 20 cycles; tiny-4x4 (4 lanes, depth 2)
// with n1 = 9 three groups, 3*17 + 2 = 53.
isa::Instruction handReduce(uint64_t n1, uint64_t phase, bool mean) {
  isa::Instruction I(isa::Opcode::Vreduce);
  I.set(F::Vreduce_n0, 13);
  I.set(F::Vreduce_n1, n1);
  I.set(F::Vreduce_phase, phase);
  I.set(F::Vreduce_mean, mean);
  I.set(F::Vreduce_a_addr, 64);
  I.set(F::Vreduce_a_s1, 16);
  I.set(F::Vreduce_o_addr, 4000);
  I.set(F::Vreduce_o_s1, 1);
  I.setF32(F::Vreduce_x_scale, 1.0f);
  I.setF32(F::Vreduce_y_scale, 1.0f);
  return I;
}

template <class V>
void runHand(const isa::HwConfig &cfg, uint64_t n1, uint64_t cycles) {
  isa::Instruction I = handReduce(n1, 1, false);
  EXPECT_EQ(isa::computeCycles(I, cfg), cycles);
  sim::MachineState state = sim::MachineState::create(cfg, 0);
  for (uint64_t j = 0; j < n1; ++j)
    for (uint64_t i = 0; i < 13; ++i)
      state.scratchpad[64 + 16 * j + i] = uint8_t(i == 3   ? 100
                                                  : i == 7 ? -100
                                                           : int(j % 3));
  Gen g(9);
  Dut<V> dut;
  runOne(dut, g, cfg, state, I, describe(I));
  // Row j: eleven codes j % 3, 100 and -100: 11 * (j % 3).
  for (uint64_t j = 0; j < n1; ++j)
    EXPECT_EQ(int(int8_t(dut.sp()[4000 + j])), int(11 * (j % 3)))
        << "row " << j;
}

TEST(ReduceUnit, HandDerivedCyclesOnRtl8x8) {
  isa::HwConfig cfg = loadConfig(kRtl8);
  ASSERT_EQ(cfg.vector.lanes, 8u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 3u);
  runHand<Vtb_npu_reduce_unit_rtl_8x8>(cfg, 3, 20);
}

TEST(ReduceUnit, HandDerivedCyclesOnTiny4x4) {
  isa::HwConfig cfg = loadConfig(kTiny);
  ASSERT_EQ(cfg.vector.lanes, 4u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 2u);
  runHand<Vtb_npu_reduce_unit_tiny_4x4>(cfg, 9, 53);
}

// Hand-derived bytes, one row each on rtl-8x8 (n1 = 1: 1 * (n0 + 4) + 3
// cycles, checked in runOne), x_scale and y_scale 1 unless noted:
//   {1, 2, 4} mean: 7 / 3 = 2.33 -> 2; the sum: 7;
//   {2, 3} mean 2.5 -> 2 (half to even), {3, 4} mean 3.5 -> 4;
//   {100, 100, 100, 100} sum 400 -> clamped to 127; negated: -128;
//   y_zp = 5: the sum 10 -> 10 + 5 = 15, the bounds [-133, 122];
//   x_scale inf, {1, -1}: inf + -inf = NaN -> the lower bound -128.
TEST(ReduceUnit, HandDerivedBytesOnRtl8x8) {
  isa::HwConfig cfg = loadConfig(kRtl8);
  struct Row {
    std::vector<int8_t> codes;
    bool mean;
    int8_t yZp;
    float xScale;
    int8_t out;
  };
  const float inf = std::numeric_limits<float>::infinity();
  const Row rows[] = {
      {{1, 2, 4}, true, 0, 1.0f, 2},
      {{1, 2, 4}, false, 0, 1.0f, 7},
      {{2, 3}, true, 0, 1.0f, 2},
      {{3, 4}, true, 0, 1.0f, 4},
      {{100, 100, 100, 100}, false, 0, 1.0f, 127},
      {{-100, -100, -100, -100}, false, 0, 1.0f, -128},
      {{1, 2, 3, 4}, false, 5, 1.0f, 15},
      {{1, -1}, false, 0, inf, -128},
  };
  Dut<Vtb_npu_reduce_unit_rtl_8x8> dut;
  Gen g(10);
  for (const Row &r : rows)
    for (uint64_t phase = 0; phase < 4; ++phase) {
      const uint64_t n0 = r.codes.size();
      isa::Instruction I(isa::Opcode::Vreduce);
      I.set(F::Vreduce_n0, n0);
      I.set(F::Vreduce_n1, 1);
      I.set(F::Vreduce_phase, phase);
      I.set(F::Vreduce_mean, r.mean);
      I.set(F::Vreduce_y_zp, r.yZp);
      I.set(F::Vreduce_a_addr, 32);
      I.set(F::Vreduce_o_addr, 1000);
      I.setF32(F::Vreduce_x_scale, r.xScale);
      I.setF32(F::Vreduce_y_scale, 1.0f);
      EXPECT_EQ(isa::computeCycles(I, cfg), n0 + 4 + 3);
      sim::MachineState state = sim::MachineState::create(cfg, 0);
      for (uint64_t i = 0; i < n0; ++i)
        state.scratchpad[32 + i] = uint8_t(r.codes[i]);
      ASSERT_NO_FATAL_FAILURE(runOne(dut, g, cfg, state, I, describe(I)));
      EXPECT_EQ(int(int8_t(dut.sp()[1000])), int(r.out)) << describe(I);
    }
}

// Hand-derived Eigen order, made visible in the byte: with x_scale 3e36
// code 100 is 3e38, two of them overflow to inf, and y_scale 1 maps inf to
// 127 and a cancelled 0 to 0 (an fp32 order difference of one ulp would
// hardly ever change the byte, so the random rows alone could not tell
// the orders apart). Codes other than +-100 are 0.
//   A: n0 = 12, phase 0: three packets P = v0..3, Q = v4..7, L = v8..11;
//      v0 = v4 = 100, v8 = -100, v2 = -100: (P0 + Q0) + L0 = inf - 3e38 =
//      inf, P2 = -3e38, predux inf -> 127 ((P0 + L0) + Q0 would be 3e38,
//      predux 0 -> 0; in order: 0 too).
//   B: n0 = 8, phase 0: two packets; v0 = v1 = 100, v4 = v5 = -100:
//      P + Q = 0 everywhere -> 0 (in order v0 + v1 = inf -> 127).
//   C: n0 = 5, rows of v0 = v1 = 100, v2 = v3 = -100, v4 = 0 at phase 0 and
//      row j's phase (0 + 5j) % 4 = 0, 1, 2, 3, 0, 1, 2: phase 0 is one
//      packet v0..3 (predux (3e38 - 3e38) + (3e38 - 3e38) = 0) and v4: 0;
//      phase 3 is head v0, packet v1..4: (3e38 - 3e38) + (-3e38 + 0),
//      + 3e38 = 0; phases 1 and 2 have no whole packet: in order, v0 + v1
//      = inf -> 127. So the rows give 0, 127, 127, 0, 0, 127, 127 (lanes3:
//      rows 3..5 in the second group, 6 in the third).
template <class V>
void runOrderRows(const isa::HwConfig &cfg, uint64_t n0, uint64_t n1,
                  const std::vector<int8_t> &codes,
                  const std::vector<int8_t> &out) {
  isa::Instruction I(isa::Opcode::Vreduce);
  I.set(F::Vreduce_n0, n0);
  I.set(F::Vreduce_n1, n1);
  I.set(F::Vreduce_a_addr, 200);
  I.set(F::Vreduce_a_s1, 16);
  I.set(F::Vreduce_o_addr, 1000);
  I.set(F::Vreduce_o_s1, 1);
  I.setF32(F::Vreduce_x_scale, 3e36f);
  I.setF32(F::Vreduce_y_scale, 1.0f);
  sim::MachineState state = sim::MachineState::create(cfg, 0);
  for (uint64_t j = 0; j < n1; ++j)
    for (uint64_t i = 0; i < n0; ++i)
      state.scratchpad[200 + 16 * j + i] = uint8_t(codes[i]);
  Dut<V> dut;
  Gen g(11);
  ASSERT_NO_FATAL_FAILURE(runOne(dut, g, cfg, state, I, describe(I)));
  for (uint64_t j = 0; j < n1; ++j)
    EXPECT_EQ(int(int8_t(dut.sp()[1000 + j])), int(out[j]))
        << "row " << j << describe(I);
}

template <class V> void runOrderCases(const isa::HwConfig &cfg) {
  runOrderRows<V>(cfg, 12, 1, {100, 0, -100, 0, 100, 0, 0, 0, -100, 0, 0, 0},
                  {127});
  runOrderRows<V>(cfg, 8, 1, {100, 100, 0, 0, -100, -100, 0, 0}, {0});
  runOrderRows<V>(cfg, 5, 7, {100, 100, -100, -100, 0},
                  {0, 127, 127, 0, 0, 127, 127});
}

TEST(ReduceUnit, HandDerivedEigenOrderOnRtl8x8) {
  runOrderCases<Vtb_npu_reduce_unit_rtl_8x8>(loadConfig(kRtl8));
}

TEST(ReduceUnit, HandDerivedEigenOrderOnThreeLanesPipelineDepth0) {
  runOrderCases<Vtb_npu_reduce_unit_lanes3_p0>(loadConfig(kLanes3));
}

} // namespace
