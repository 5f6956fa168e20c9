//===- PoolUnitTest.cpp - The streaming POOL engine vs the simulator ------===//
//
// Drives the Verilated tb_npu_pool_unit (rtl/npu_pool_unit.sv around a
// behavioral scratchpad) with random verifier-valid POOL instructions on
// random scratchpads, per hardware config (LANES, PIPE_DEPTH), and asserts:
//  * every scratchpad byte equals sim::executeInstruction's result;
//  * busy is high exactly in cycles s .. s+cdur-1, cdur = isa::computeCycles;
//  * the writes follow the schedule of the engine contract: output group
//    q = (oy*ow + ox)*G + g (G = ceil(ch/LANES)) is written, lanes with a
//    channel < ch, in cycle s + (q+1)*kh*kw - 1 + PIPE_DEPTH, and nothing
//    else is written (so the last write is in cycle s+cdur-1).
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"
#include "Vtb_npu_pool_unit_lanes3_p0.h"
#include "Vtb_npu_pool_unit_lanes3_p0___024root.h"
#include "Vtb_npu_pool_unit_rtl_8x8.h"
#include "Vtb_npu_pool_unit_rtl_8x8___024root.h"
#include "Vtb_npu_pool_unit_tiny_4x4.h"
#include "Vtb_npu_pool_unit_tiny_4x4___024root.h"

#include "systole/Simulator/Semantics.h"

#include <set>

using namespace systole;
using namespace systole::enginetest;
using F = isa::Field;

namespace {

// Every SP byte a POOL reads (the windows, valid positions only) and writes.
void footprint(const isa::Instruction &I, std::set<uint64_t> &in,
               std::set<uint64_t> &out) {
  auto U = [&](F f) { return I.raw(f); };
  for (uint64_t oy = 0; oy < U(F::Pool_oh); ++oy)
    for (uint64_t ox = 0; ox < U(F::Pool_ow); ++ox)
      for (uint64_t c = 0; c < U(F::Pool_ch); ++c) {
        out.insert(U(F::Pool_out_addr) + oy * U(F::Pool_out_row_stride) +
                   ox * U(F::Pool_out_pix_stride) + c);
        for (uint64_t ky = 0; ky < U(F::Pool_kh); ++ky)
          for (uint64_t kx = 0; kx < U(F::Pool_kw); ++kx)
            in.insert(U(F::Pool_in_addr) +
                      (oy * U(F::Pool_sh) + ky) * U(F::Pool_in_row_stride) +
                      (ox * U(F::Pool_sw) + kx) * U(F::Pool_in_pix_stride) + c);
      }
}

float randomScale(Rng &r) {
  switch (r.u(0, 5)) {
  case 0:
    return float(r.u(1, 1000)) / 16.0f; // exact-ish, large
  case 1:
    return 1.0f;
  default:
    return float(r.u(1, 100000)) * 1e-5f;
  }
}

// A random POOL that the verifier accepts, whose operands are inside the
// scratchpad and whose output does not overlap its input (the ISA forbids
// that). `shape` picks the edge cases.
isa::Instruction randomPool(Rng &r, const isa::HwConfig &cfg, int shape) {
  const uint64_t L = cfg.vector.lanes, spBytes = cfg.sram.scratchpadBytes;
  for (;;) {
    isa::Instruction I(isa::Opcode::Pool);
    uint64_t oh = r.u(1, 4), ow = r.u(1, 4), kh = r.u(1, 4), kw = r.u(1, 4);
    uint64_t sh = r.u(1, 3), sw = r.u(1, 3);
    uint64_t ch = r.p(30) ? L * r.u(1, 3) : r.u(1, 3 * L + 1);
    if (shape == 0) // a single element
      oh = ow = kh = kw = ch = 1;
    if (shape == 1) // a global average pool of one pixel
      oh = ow = 1, kh = r.u(2, 6), kw = r.u(2, 6);
    uint64_t rows = (oh - 1) * sh + kh, cols = (ow - 1) * sw + kw;
    // Mostly dense NHWC tiles; sometimes padded pitches or overlapping
    // input pixels (only reads).
    uint64_t ips = r.p(15) ? r.u(1, ch + 3) : ch + (r.p(50) ? 0 : r.u(1, 3));
    uint64_t irs = cols * ips + (r.p(50) ? 0 : r.u(0, 9));
    if (r.p(10))
      irs = r.u(1, cols * ips + 9);
    // Mostly disjoint output pixels; sometimes self-overlapping ones
    // (the ISA's order: the later pixel wins).
    uint64_t ops = r.p(10) ? r.u(1, ch) : ch + (r.p(50) ? 0 : r.u(1, 3));
    uint64_t ors = ow * ops + (r.p(50) ? 0 : r.u(0, 9));
    I.set(F::Pool_oh, oh);
    I.set(F::Pool_ow, ow);
    I.set(F::Pool_ch, ch);
    I.set(F::Pool_kh, kh);
    I.set(F::Pool_kw, kw);
    I.set(F::Pool_sh, sh);
    I.set(F::Pool_sw, sw);
    I.set(F::Pool_in_pix_stride, ips);
    I.set(F::Pool_in_row_stride, irs);
    I.set(F::Pool_out_pix_stride, ops);
    I.set(F::Pool_out_row_stride, ors);
    uint64_t inSpan = (rows - 1) * irs + (cols - 1) * ips + ch;
    uint64_t outSpan = (oh - 1) * ors + (ow - 1) * ops + ch;
    if (inSpan + outSpan >= spBytes)
      continue;
    I.set(F::Pool_in_addr, r.u(0, spBytes - inSpan));
    I.set(F::Pool_out_addr, r.u(0, spBytes - outSpan));
    I.set(F::Pool_mode, r.u(0, 2));
    I.set(F::Pool_count_include_pad, r.p(40));
    bool u8 = r.p(40);
    I.set(F::Pool_u8, u8);
    for (F f : {F::Pool_in_zp, F::Pool_out_zp, F::Pool_lo, F::Pool_hi})
      I.setRaw(f, r.p(30) ? (u8 ? 128 : 0) : r.u(0, 255));
    if (r.p(40)) { // full range clamp
      I.setRaw(F::Pool_lo, u8 ? 0 : 0x80);
      I.setRaw(F::Pool_hi, u8 ? 255 : 0x7f);
    }
    auto dom = [&](F f) {
      return u8 ? int64_t(I.raw(f)) : int64_t(int8_t(I.raw(f)));
    };
    if (dom(F::Pool_lo) > dom(F::Pool_hi)) {
      uint64_t lo = I.raw(F::Pool_lo);
      I.setRaw(F::Pool_lo, I.raw(F::Pool_hi));
      I.setRaw(F::Pool_hi, lo);
    }
    I.setF32(F::Pool_scale, randomScale(r));
    I.setF32(F::Pool_out_scale, randomScale(r));
    I.set(F::Pool_bias, r.p(50) ? 0 : int64_t(r.u(0, 4000)) - 2000);
    // Valid region: everything, a clipped box (padding), or sometimes
    // empty windows.
    uint64_t y0 = 0, y1 = rows, x0 = 0, x1 = cols;
    if (r.p(60)) {
      y0 = r.u(0, rows), y1 = r.u(y0, rows + 1);
      x0 = r.u(0, cols), x1 = r.u(x0, cols + 1);
    }
    I.set(F::Pool_valid_y0, y0);
    I.set(F::Pool_valid_y1, y1);
    I.set(F::Pool_valid_x0, x0);
    I.set(F::Pool_valid_x1, x1);
    if (auto err = isa::validateInstruction(I, cfg)) {
      llvm::consumeError(std::move(err));
      continue;
    }
    std::set<uint64_t> in, out;
    footprint(I, in, out);
    if (std::any_of(out.begin(), out.end(),
                    [&](uint64_t a) { return in.count(a); }))
      continue;
    return I;
  }
}

// The fields that fix the contract's write schedule (see the file comment).
const WindowFields kPoolFields{F::Pool_oh,
                               F::Pool_ow,
                               F::Pool_ch,
                               F::Pool_kh,
                               F::Pool_kw,
                               F::Pool_out_addr,
                               F::Pool_out_row_stride,
                               F::Pool_out_pix_stride};

template <class Top> class Harness {
public:
  explicit Harness(const isa::HwConfig &cfg) : cfg(cfg) {}

  // Runs one POOL on the idle engine and checks it.
  void run(const isa::Instruction &I, Rng &r, const std::string &what) {
    SCOPED_TRACE(what);
    auto state = sim::MachineState::create(cfg, 0);
    for (auto &b : state.scratchpad)
      b = uint8_t(r.g());
    ASSERT_FALSE(sim::checkInstruction(I, state).has_value());
    auto &sp = dut.m->rootp->tb_npu_pool_unit__DOT__sp;
    loadArray(sp, state.scratchpad);
    auto before = state.scratchpad;
    sim::executeInstruction(I, state);
    ASSERT_NO_FATAL_FAILURE(runWindow(dut, I, cfg, kPoolFields));
    size_t bad = 0;
    for (size_t i = 0; i < state.scratchpad.size(); ++i)
      if (sp[i] != state.scratchpad[i] && bad++ < 8)
        ADD_FAILURE() << "SP[" << i << "] rtl " << int(sp[i]) << " sim "
                      << int(state.scratchpad[i]) << " before "
                      << int(before[i]);
    EXPECT_EQ(bad, 0u);
  }

private:
  isa::HwConfig cfg;
  EngineDut<Top> dut;
};

// The edge cases a random POOL exercises, so the test fails if the
// generator stops producing them.
enum Case {
  Max,
  AvgInt,
  AvgFloat,
  U8,
  PartialGroup,      // ch not a multiple of LANES
  ClippedWindow,     // a window partly outside the valid region
  EmptyWindow,       // a window entirely outside it
  IncludePadClipped, // avg_float, count_include_pad, a clipped window
  OverlappingOutput, // out_pix_stride < ch: the later pixel wins
  NumCases
};

void classify(const isa::Instruction &I, uint64_t lanes,
              std::array<int, NumCases> &hits) {
  auto U = [&](F f) { return I.raw(f); };
  ++hits[U(F::Pool_mode) == isa::PoolMode_max       ? Max
         : U(F::Pool_mode) == isa::PoolMode_avg_int ? AvgInt
                                                    : AvgFloat];
  hits[U8] += I.getFlag(F::Pool_u8);
  hits[PartialGroup] += U(F::Pool_ch) % lanes != 0;
  hits[OverlappingOutput] += U(F::Pool_out_pix_stride) < U(F::Pool_ch);
  bool clipped = false, empty = false;
  for (uint64_t oy = 0; oy < U(F::Pool_oh); ++oy)
    for (uint64_t ox = 0; ox < U(F::Pool_ow); ++ox) {
      uint64_t n = 0;
      for (uint64_t ky = 0; ky < U(F::Pool_kh); ++ky)
        for (uint64_t kx = 0; kx < U(F::Pool_kw); ++kx) {
          uint64_t y = oy * U(F::Pool_sh) + ky, x = ox * U(F::Pool_sw) + kx;
          n += y >= U(F::Pool_valid_y0) && y < U(F::Pool_valid_y1) &&
               x >= U(F::Pool_valid_x0) && x < U(F::Pool_valid_x1);
        }
      clipped |= n > 0 && n < U(F::Pool_kh) * U(F::Pool_kw);
      empty |= n == 0;
    }
  hits[ClippedWindow] += clipped;
  hits[EmptyWindow] += empty;
  hits[IncludePadClipped] += clipped && I.getFlag(F::Pool_count_include_pad) &&
                             U(F::Pool_mode) == isa::PoolMode_avg_float;
}

template <class Top> void randomPools(const char *preset, uint64_t seed) {
  randomWindowRuns<Harness<Top>, NumCases>(preset, seed, randomPool, classify);
}

// Hand-derived: 2x2 output, 3x3 window stride 2, ch = LANES + 1 (two
// groups, the second with one lane), max over a valid region clipping the
// top row and left column: cdur = 2*2*9*2 + P.
template <class Top> void handCase(const char *preset) {
  isa::HwConfig cfg = loadConfig(preset);
  const uint64_t L = cfg.vector.lanes, P = cfg.vector.pipelineDepth;
  isa::Instruction I(isa::Opcode::Pool);
  I.with(F::Pool_oh, 2).with(F::Pool_ow, 2).with(F::Pool_ch, L + 1);
  I.with(F::Pool_kh, 3)
      .with(F::Pool_kw, 3)
      .with(F::Pool_sh, 2)
      .with(F::Pool_sw, 2);
  I.with(F::Pool_in_pix_stride, L + 1).with(F::Pool_in_row_stride, 5 * (L + 1));
  I.with(F::Pool_out_pix_stride, L + 1)
      .with(F::Pool_out_row_stride, 2 * (L + 1));
  I.with(F::Pool_in_addr, 0).with(F::Pool_out_addr, 4096);
  I.with(F::Pool_valid_y0, 1).with(F::Pool_valid_y1, 5);
  I.with(F::Pool_valid_x0, 1).with(F::Pool_valid_x1, 5);
  I.with(F::Pool_mode, isa::PoolMode_max).with(F::Pool_hi, 127);
  ASSERT_FALSE(bool(isa::validateInstruction(I, cfg)));
  EXPECT_EQ(isa::computeCycles(I, cfg), 2 * 2 * 9 * 2 + P);
  Harness<Top> h(cfg);
  Rng r(7);
  h.run(I, r, "hand case");
}

TEST(PoolUnit, HandCaseTiny4x4) { handCase<Vtb_npu_pool_unit_tiny_4x4>(kTiny); }
TEST(PoolUnit, HandCaseRtl8x8) { handCase<Vtb_npu_pool_unit_rtl_8x8>(kRtl8); }
TEST(PoolUnit, HandCaseLanes3NoPipeline) {
  handCase<Vtb_npu_pool_unit_lanes3_p0>(kLanes3);
}
TEST(PoolUnit, RandomTiny4x4) {
  randomPools<Vtb_npu_pool_unit_tiny_4x4>(kTiny, 1);
}
TEST(PoolUnit, RandomRtl8x8) {
  randomPools<Vtb_npu_pool_unit_rtl_8x8>(kRtl8, 2);
}
TEST(PoolUnit, RandomLanes3NoPipeline) {
  randomPools<Vtb_npu_pool_unit_lanes3_p0>(kLanes3, 3);
}

} // namespace
