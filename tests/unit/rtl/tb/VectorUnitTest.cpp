//===- VectorUnitTest.cpp - Streaming VADD/VMUL engine vs the simulator ---===//
//
// Drives rtl/npu_vector_unit.sv (in tb/tb_npu_vector_unit.sv, with a
// behavioral SP) with random verifier-valid VADDs and VMULs, back to back,
// on three configs (tiny-4x4, rtl-8x8, and a 3-lane pipeline-depth-0
// tiny-4x4), and asserts after each: every SP byte equal to
// sim::executeInstruction on a MachineState; n0*n1 lane writes; the first
// write at the edge ending s + PIPE_DEPTH (s + 1 + PIPE_DEPTH with a bank
// conflict), the last at the edge ending s + computeCycles - 1; busy high
// in s+1 .. s+computeCycles-1 and low from s + computeCycles on.
// Outputs are disjoint from the inputs or exactly an input's box (in place),
// as the ISA allows; broadcast, u8, every VADD mode, n0 below / at / above
// LANES, self-overlapping output rows and bank conflicts are all covered.
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"
#include "Vtb_npu_vector_unit_lanes3_p0.h"
#include "Vtb_npu_vector_unit_lanes3_p0___024root.h"
#include "Vtb_npu_vector_unit_rtl_8x8.h"
#include "Vtb_npu_vector_unit_rtl_8x8___024root.h"
#include "Vtb_npu_vector_unit_tiny_4x4.h"
#include "Vtb_npu_vector_unit_tiny_4x4___024root.h"

#include "systole/Simulator/Semantics.h"

#include <cstdio>
#include <sstream>

using namespace systole;
using namespace systole::enginetest;
using F = isa::Field;

namespace {

// Ratios as ORT makes them, sometimes non-finite or any pattern.
uint32_t ratio(Gen &g, float lo, float hi) {
  switch (g.below(25)) {
  case 0:
    return 0x7fc00000u;
  case 1:
    return 0x7f800000u;
  case 2:
    return uint32_t(g.rng());
  default:
    return bitsOf(g.uniform(lo, hi));
  }
}

struct Box { // SP rows: addr + j*s1 + [0, width), j < n1
  int64_t addr, s1, width, n1;
  int64_t end() const { return addr + (n1 - 1) * s1 + width; }
  bool disjoint(const Box &o) const {
    return end() <= o.addr || o.end() <= addr;
  }
  bool same(const Box &o) const {
    return addr == o.addr && (n1 == 1 || s1 == o.s1) && width == o.width &&
           n1 == o.n1;
  }
};

// One VADD/VMUL the verifier accepts; the output is disjoint from both
// inputs' hulls, or exactly A's (or B's) box with rows that do not overlap.
isa::Instruction randomVector(Gen &g, const isa::HwConfig &cfg, int index) {
  const int64_t L = int64_t(cfg.vector.lanes);
  const int64_t sp = int64_t(cfg.sram.scratchpadBytes);
  const int64_t bank = int64_t(cfg.scratchpadBankBytes());
  bool add = g.chance(60);
  int64_t n0, n1;
  switch (index % 8) {
  case 0:
    n0 = 1, n1 = 1; // a single element
    break;
  case 1:
    n0 = g.range(1, L), n1 = g.range(2, 9); // several rows per beat
    break;
  case 2:
    n0 = L + 1, n1 = g.range(1, 5); // beats straddle rows
    break;
  case 3:
    n0 = 1, n1 = g.range(1, 3 * L); // one column
    break;
  default:
    n0 = g.range(1, 4 * L + 3), n1 = g.range(1, 6);
  }
  isa::Instruction I(add ? isa::Opcode::Vadd : isa::Opcode::Vmul);
  I.set(F::Vadd_n0, n0);
  I.set(F::Vadd_n1, n1);
  bool u8 = g.chance(35), ab = g.chance(20), bb = g.chance(20);
  I.set(add ? F::Vadd_u8 : F::Vmul_u8, u8);
  I.set(add ? F::Vadd_a_bcast : F::Vmul_a_bcast, ab);
  I.set(add ? F::Vadd_b_bcast : F::Vmul_b_bcast, bb);
  uint64_t lo = g.below(256), hi = g.below(256);
  if (g.chance(40))
    lo = u8 ? 0 : 0x80, hi = u8 ? 0xff : 0x7f;
  bool swap = u8 ? lo > hi : int8_t(lo) > int8_t(hi);
  if (swap)
    std::swap(lo, hi);
  I.setRaw(add ? F::Vadd_lo : F::Vmul_lo, lo);
  I.setRaw(add ? F::Vadd_hi : F::Vmul_hi, hi);
  if (add) {
    I.set(F::Vadd_mode, g.range(0, 4));
    I.setRaw(F::Vadd_ratio_a, ratio(g, 0.05f, 2.0f));
    I.setRaw(F::Vadd_ratio_b, ratio(g, 0.05f, 2.0f));
    I.setRaw(F::Vadd_fixed, bitsOf(g.uniform(-200.0f, 200.0f)));
  } else {
    I.setRaw(F::Vmul_ratio, ratio(g, 1e-4f, 0.03f));
    I.setRaw(F::Vmul_a_zp, g.below(256));
    I.setRaw(F::Vmul_b_zp, g.below(256));
    I.setRaw(F::Vmul_o_zp, g.below(256));
  }
  // Row strides: packed, padded, overlapping rows, zero, or wide.
  auto stride = [&](int64_t width) {
    switch (g.below(6)) {
    case 0:
      return g.range(0, width - 1);
    case 1:
      return g.range(width, width + 300);
    default:
      return width + g.range(0, 3);
    }
  };
  auto place = [&](Box &b) { b.addr = g.range(0, sp - b.end() + b.addr); };
  Box a{0, stride(ab ? 1 : n0), ab ? 1 : n0, n1};
  Box b{0, stride(bb ? 1 : n0), bb ? 1 : n0, n1};
  Box o{0, stride(n0), n0, n1};
  int alias = int(g.below(10)); // 0, 1: O is A's box; 2: O is B's box
  bool aliasA = alias <= 1 && !ab && (n1 == 1 || a.s1 >= n0);
  bool aliasB = alias == 2 && !bb && (n1 == 1 || b.s1 >= n0);
  for (;;) {
    place(a);
    place(b);
    if (g.chance(30)) // the same bank as A: a conflict, mostly
      b.addr = std::min(a.addr / bank * bank + g.range(0, bank - 1),
                        sp - (b.end() - b.addr));
    if (aliasA && alias == 1 && !bb && b.s1 == a.s1) // x op x, in place
      b.addr = a.addr;
    if (aliasA)
      o = a;
    else if (aliasB)
      o = b;
    else
      place(o);
    bool okA = aliasA ? true : o.disjoint(a) || (aliasB && b.same(a));
    bool okB = aliasB ? true : o.disjoint(b) || (aliasA && b.same(a));
    if (okA && okB)
      break;
  }
  I.set(F::Vadd_a_addr, a.addr);
  I.set(F::Vadd_b_addr, b.addr);
  I.set(F::Vadd_o_addr, o.addr);
  I.set(F::Vadd_a_s1, a.s1);
  I.set(F::Vadd_b_s1, b.s1);
  I.set(F::Vadd_o_s1, o.s1);
  isa::setBankConflictFlag(I, cfg);
  return I;
}

std::string describe(const isa::Instruction &I) {
  std::ostringstream os;
  os << (I.opcode() == isa::Opcode::Vadd ? " vadd" : " vmul");
  for (auto f : {F::Vadd_n0, F::Vadd_n1, F::Vadd_a_addr, F::Vadd_a_s1,
                 F::Vadd_b_addr, F::Vadd_b_s1, F::Vadd_o_addr, F::Vadd_o_s1,
                 F::Vadd_a_bcast, F::Vadd_b_bcast, F::Vadd_u8, F::Vadd_mode})
    os << " " << I.raw(f);
  return os.str();
}

template <class V> struct Dut : EngineDut<V> {
  auto &sp() { return this->m->rootp->tb_npu_vector_unit__DOT__sp; }
};

template <class V>
void runRandom(const isa::HwConfig &cfg, uint64_t seed, int count) {
  Gen g(seed);
  Dut<V> dut;
  const uint64_t P = cfg.vector.pipelineDepth, L = cfg.vector.lanes;
  sim::MachineState state = sim::MachineState::create(cfg, 0);
  int conflicts = 0, inPlace = 0, bcast = 0, u8 = 0, multiRow = 0,
      overlapOut = 0;
  for (int k = 0; k < count; k++) {
    isa::Instruction I = randomVector(g, cfg, k);
    ASSERT_FALSE(bool(isa::validateInstruction(I, cfg))) << describe(I);
    for (auto &byte : state.scratchpad)
      byte = uint8_t(g.rng());
    ASSERT_FALSE(sim::checkInstruction(I, state).has_value()) << describe(I);
    const uint64_t n0 = I.raw(F::Vadd_n0), n1 = I.raw(F::Vadd_n1);
    const bool conflict = isa::vectorBankConflict(I, cfg);
    conflicts += conflict;
    inPlace += I.raw(F::Vadd_o_addr) == I.raw(F::Vadd_a_addr) ||
               I.raw(F::Vadd_o_addr) == I.raw(F::Vadd_b_addr);
    bcast += I.getFlag(F::Vadd_a_bcast) || I.getFlag(F::Vadd_b_bcast);
    u8 += I.getFlag(F::Vadd_u8);
    multiRow += n0 < L && n1 > 1;
    overlapOut += n1 > 1 && I.raw(F::Vadd_o_s1) < n0;
    loadArray(dut.sp(), state.scratchpad);
    sim::MachineState ref = state;
    sim::executeInstruction(I, ref);
    const uint64_t cdur = isa::computeCycles(I, cfg);
    const uint64_t beats = (n0 * n1 + L - 1) / L;
    ASSERT_EQ(cdur, (conflict ? 2 * beats : beats) + P);

    WriteCount wc;
    ASSERT_NO_FATAL_FAILURE(
        streamOne(dut, g, I, cdur,
                  " instruction " + std::to_string(k) + describe(I), wc));
    EXPECT_EQ(wc.writes, n0 * n1) << describe(I);
    EXPECT_EQ(wc.first, P + (conflict ? 1 : 0)) << describe(I);
    EXPECT_EQ(wc.last, cdur - 1) << describe(I);
    for (size_t a = 0; a < ref.scratchpad.size(); a++)
      ASSERT_EQ(int(dut.sp()[a]), int(ref.scratchpad[a]))
          << "SP byte " << a << ", instruction " << k << ", conflict "
          << conflict << ":" << describe(I);
  }
  std::printf("%d VADD/VMUL: %d bank conflicts, %d in place, %d broadcast, %d "
              "u8, %d with "
              "several rows per beat, %d overlapping output rows\n",
              count, conflicts, inPlace, bcast, u8, multiRow, overlapOut);
  EXPECT_GT(conflicts, count / 10);
  EXPECT_LT(conflicts, count - count / 10);
  EXPECT_GT(inPlace, count / 20);
  EXPECT_GT(bcast, count / 10);
  EXPECT_GT(u8, count / 10);
  EXPECT_GT(multiRow, count / 20);
  EXPECT_GT(overlapOut, count / 20);
}

TEST(VectorUnit, RandomOnTiny4x4) {
  runRandom<Vtb_npu_vector_unit_tiny_4x4>(loadConfig(kTiny), 11, 400);
}

TEST(VectorUnit, RandomOnRtl8x8) {
  runRandom<Vtb_npu_vector_unit_rtl_8x8>(loadConfig(kRtl8), 12, 400);
}

TEST(VectorUnit, RandomOnThreeLanesPipelineDepth0) {
  isa::HwConfig cfg = loadConfig(kLanes3);
  ASSERT_EQ(cfg.vector.lanes, 3u);
  ASSERT_EQ(cfg.vector.pipelineDepth, 0u);
  runRandom<Vtb_npu_vector_unit_lanes3_p0>(cfg, 13, 400);
}

} // namespace
