//===- RequantUnitTest.cpp - Streaming REQUANT engine vs the simulator ----===//
//
// Drives rtl/npu_requant_unit.sv (in tb/tb_npu_requant_unit.sv, with
// behavioral SP and ACC) with random verifier-valid REQUANTs, back to back,
// on three configs (tiny-4x4, rtl-8x8, and a 3-lane pipeline-depth-0
// tiny-4x4), and asserts after each: every SP byte and ACC word equal to
// sim::executeInstruction on a MachineState; each element written exactly
// once; the first write at the edge ending s + PIPE_DEPTH, the last at the
// edge ending s + computeCycles - 1; busy high in s+1 .. s+computeCycles-1
// and low from s + computeCycles on.
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"
#include "Vtb_npu_requant_unit_lanes3_p0.h"
#include "Vtb_npu_requant_unit_lanes3_p0___024root.h"
#include "Vtb_npu_requant_unit_rtl_8x8.h"
#include "Vtb_npu_requant_unit_rtl_8x8___024root.h"
#include "Vtb_npu_requant_unit_tiny_4x4.h"
#include "Vtb_npu_requant_unit_tiny_4x4___024root.h"

#include "systole/Simulator/Semantics.h"

#include <cstdio>
#include <sstream>

using namespace systole;
using namespace systole::enginetest;
using F = isa::Field;

namespace {

// Accumulator values: mostly in the range a scale brings to int8, plus
// large, extreme and arbitrary ones (the bias add wraps).
int32_t accValue(Gen &g) {
  switch (g.below(6)) {
  case 0:
    return int32_t(g.rng());
  case 1:
    return g.below(2) ? INT32_MAX - int32_t(g.below(4))
                      : INT32_MIN + int32_t(g.below(4));
  case 2:
    return int32_t(g.range(-2000000, 2000000));
  default:
    return int32_t(g.range(-6000, 6000));
  }
}

// Scales as ORT makes them, sometimes negative, zero or non-finite.
uint32_t scale(Gen &g) {
  switch (g.below(20)) {
  case 0:
    return 0x7fc00000u; // NaN
  case 1:
    return g.below(2) ? 0x7f800000u : 0xff800000u;
  case 2:
    return g.below(2) ? 0u : 0x80000000u;
  case 3:
    return uint32_t(g.rng()); // any pattern
  case 4:
    return bitsOf(-g.uniform(1e-4f, 0.05f));
  case 5:
    return bitsOf(float(1 << g.below(4)) / 64.0f); // power of two: RNE ties
  default:
    return bitsOf(g.uniform(1e-4f, 0.05f));
  }
}

// One REQUANT the verifier accepts, with its operands placed at random and
// the output disjoint from the LUT (the inputs are in ACC).
isa::Instruction randomRequant(Gen &g, const isa::HwConfig &cfg, int index) {
  const int64_t L = int64_t(cfg.vector.lanes);
  const int64_t accWords = int64_t(cfg.accumulatorWords());
  const int64_t spBytes = int64_t(cfg.sram.scratchpadBytes);
  int64_t m, n;
  switch (index % 8) { // the shapes that matter, then random ones
  case 0:
    m = 1, n = 1; // a single element
    break;
  case 1:
    m = g.range(1, 4), n = L; // whole beats
    break;
  case 2:
    m = g.range(1, 4), n = L + 1; // one lane in the last beat
    break;
  case 3:
    m = g.range(1, 3), n = g.range(1, L); // fewer columns than lanes
    break;
  default:
    m = g.range(1, 8), n = g.range(1, 4 * L + 3);
  }
  isa::Instruction I(isa::Opcode::Requant);
  I.set(F::Requant_m, m);
  I.set(F::Requant_n, n);
  bool perTensor = g.chance(30), lut = g.chance(35), bias = g.chance(50);
  I.set(F::Requant_per_tensor, perTensor);
  I.set(F::Requant_lut, lut);
  I.set(F::Requant_bias, bias);
  int64_t lo = g.range(-128, 127), hi = g.range(-128, 127);
  if (g.chance(40))
    lo = -128, hi = 127;
  if (lo > hi)
    std::swap(lo, hi);
  I.set(F::Requant_zp, g.range(-128, 127));
  I.set(F::Requant_lo, lo);
  I.set(F::Requant_hi, hi);
  // Row strides: packed, padded, overlapping (0 .. n-1) or wide.
  auto stride = [&](int64_t max) {
    int64_t s;
    switch (g.below(4)) {
    case 0:
      s = g.range(0, n - 1);
      break;
    case 1:
      s = g.range(n, n + 40);
      break;
    default:
      s = n + g.range(0, 3);
    }
    return std::min(s, max);
  };
  int64_t cs = stride((accWords - n) / std::max<int64_t>(m - 1, 1));
  I.set(F::Requant_c_stride, cs);
  I.set(F::Requant_c_addr, g.range(0, accWords - ((m - 1) * cs + n)));
  I.set(F::Requant_scale_addr, g.range(0, accWords - (perTensor ? 1 : n)));
  I.set(F::Requant_bias_addr, g.range(0, accWords - n));
  int64_t os = stride((spBytes - n - 256) / std::max<int64_t>(m - 1, 1));
  int64_t oLen = (m - 1) * os + n;
  I.set(F::Requant_o_stride, os);
  int64_t oAddr, lutAddr;
  do {
    oAddr = g.range(0, spBytes - oLen);
    lutAddr = g.range(0, spBytes - 256);
  } while (lut && oAddr < lutAddr + 256 && lutAddr < oAddr + oLen);
  I.set(F::Requant_o_addr, oAddr);
  I.set(F::Requant_lut_addr, lutAddr);
  return I;
}

std::string describe(const isa::Instruction &I) {
  std::ostringstream os;
  for (auto f : {F::Requant_m, F::Requant_n, F::Requant_c_addr,
                 F::Requant_c_stride, F::Requant_o_addr, F::Requant_o_stride,
                 F::Requant_per_tensor, F::Requant_bias, F::Requant_lut,
                 F::Requant_zp, F::Requant_lo, F::Requant_hi})
    os << " " << I.get(f);
  return os.str();
}

template <class V> struct Dut : EngineDut<V> {
  auto &sp() { return this->m->rootp->tb_npu_requant_unit__DOT__sp; }
  auto &acc() { return this->m->rootp->tb_npu_requant_unit__DOT__acc; }
};

// Runs `count` random REQUANTs back to back (random 0-2 idle cycles
// between) and checks each one's memories, writes and cycles.
template <class V>
void runRandom(const isa::HwConfig &cfg, uint64_t seed, int count) {
  Gen g(seed);
  Dut<V> dut;
  const uint64_t P = cfg.vector.pipelineDepth;
  sim::MachineState state = sim::MachineState::create(cfg, 0);
  int lutCount = 0, biasCount = 0, perTensorCount = 0, overlapCount = 0;
  for (int k = 0; k < count; k++) {
    isa::Instruction I = randomRequant(g, cfg, k);
    ASSERT_FALSE(bool(isa::validateInstruction(I, cfg))) << describe(I);
    // Fresh memories: random SP; ACC with accumulator values and scales.
    for (auto &b : state.scratchpad)
      b = uint8_t(g.rng());
    for (auto &w : state.accumulator)
      w = accValue(g);
    uint64_t sAddr = I.raw(F::Requant_scale_addr);
    for (uint64_t j = 0;
         j < (I.getFlag(F::Requant_per_tensor) ? 1 : I.raw(F::Requant_n)); j++)
      state.accumulator[sAddr + j] = int32_t(scale(g));
    ASSERT_FALSE(sim::checkInstruction(I, state).has_value()) << describe(I);
    lutCount += I.getFlag(F::Requant_lut);
    biasCount += I.getFlag(F::Requant_bias);
    perTensorCount += I.getFlag(F::Requant_per_tensor);
    overlapCount += I.raw(F::Requant_m) > 1 &&
                    I.raw(F::Requant_o_stride) < I.raw(F::Requant_n);
    loadArray(dut.sp(), state.scratchpad);
    loadArray(dut.acc(), state.accumulator);
    sim::MachineState ref = state;
    sim::executeInstruction(I, ref);
    const uint64_t cdur = isa::computeCycles(I, cfg);
    ASSERT_EQ(cdur, I.raw(F::Requant_m) *
                            ((I.raw(F::Requant_n) + cfg.vector.lanes - 1) /
                             cfg.vector.lanes) +
                        P);

    WriteCount wc;
    ASSERT_NO_FATAL_FAILURE(
        streamOne(dut, g, I, cdur,
                  " instruction " + std::to_string(k) + describe(I), wc));
    EXPECT_EQ(wc.writes, I.raw(F::Requant_m) * I.raw(F::Requant_n))
        << describe(I);
    EXPECT_EQ(wc.first, P) << describe(I);
    EXPECT_EQ(wc.last, cdur - 1) << describe(I);
    for (size_t a = 0; a < ref.scratchpad.size(); a++)
      ASSERT_EQ(int(dut.sp()[a]), int(ref.scratchpad[a]))
          << "SP byte " << a << ", instruction " << k << ":" << describe(I);
    for (size_t a = 0; a < ref.accumulator.size(); a++)
      ASSERT_EQ(int32_t(dut.acc()[a]), ref.accumulator[a]) << "ACC word " << a;
  }
  // The flags and overlapping output rows were all exercised.
  std::printf("%d REQUANTs: %d lut, %d bias, %d per-tensor, %d overlapping "
              "output rows\n",
              count, lutCount, biasCount, perTensorCount, overlapCount);
  EXPECT_GT(lutCount, count / 5);
  EXPECT_GT(biasCount, count / 5);
  EXPECT_GT(perTensorCount, count / 6);
  EXPECT_GT(overlapCount, count / 20);
}

TEST(RequantUnit, RandomOnTiny4x4) {
  runRandom<Vtb_npu_requant_unit_tiny_4x4>(loadConfig(kTiny), 1, 400);
}

TEST(RequantUnit, RandomOnRtl8x8) {
  runRandom<Vtb_npu_requant_unit_rtl_8x8>(loadConfig(kRtl8), 2, 400);
}

TEST(RequantUnit, RandomOnThreeLanesPipelineDepth0) {
  isa::HwConfig cfg = loadConfig(kLanes3);
  ASSERT_EQ(cfg.vector.lanes, 3u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 0u);
  runRandom<Vtb_npu_requant_unit_lanes3_p0>(cfg, 3, 400);
}

} // namespace
