//===- DwconvUnitTest.cpp - The streaming DWCONV engine vs the simulator --===//
//
// Drives the Verilated tb_npu_dwconv_unit (rtl/npu_dwconv_unit.sv around
// behavioral SP and ACC arrays) with random verifier-valid DWCONV
// instructions on random memories, per hardware config (LANES, PIPE_DEPTH),
// and asserts:
//  * every SP byte and ACC word equals sim::executeInstruction's result;
//  * busy is high exactly in cycles s .. s+cdur-1, cdur = isa::computeCycles;
//  * the writes follow the schedule of the engine contract: output group
//    q = (oy*ow + ox)*G + g (G = ceil(ch/LANES)) is written, lanes with a
//    channel < ch, in cycle s + (q+1)*kh*ceil(kw/T) - 1 + PIPE_DEPTH
//    (T = vector.dwconv_taps: 2 on lanes3-p0), and nothing
//    else is written (so the last write is in cycle s+cdur-1).
//
//===----------------------------------------------------------------------===//
#include "EngineTestUtil.h"
#include "Vtb_npu_dwconv_unit_lanes3_p0.h"
#include "Vtb_npu_dwconv_unit_lanes3_p0___024root.h"
#include "Vtb_npu_dwconv_unit_rtl_8x8.h"
#include "Vtb_npu_dwconv_unit_rtl_8x8___024root.h"
#include "Vtb_npu_dwconv_unit_tiny_4x4.h"
#include "Vtb_npu_dwconv_unit_tiny_4x4___024root.h"

#include "systole/Simulator/Semantics.h"

#include <set>

using namespace systole;
using namespace systole::enginetest;
using F = isa::Field;

namespace {

// Every SP byte a DWCONV reads (input windows, weights) and every ACC word
// it writes, in the ISA's order (duplicates kept).
void footprint(const isa::Instruction &I, std::set<uint64_t> &in,
               std::vector<uint64_t> &out) {
  auto U = [&](F f) { return I.raw(f); };
  const uint64_t ch = U(F::Dwconv_ch), kh = U(F::Dwconv_kh),
                 kw = U(F::Dwconv_kw);
  for (uint64_t i = 0; i < kh * kw * ch; ++i)
    in.insert(U(F::Dwconv_w_addr) + i);
  for (uint64_t oy = 0; oy < U(F::Dwconv_oh); ++oy)
    for (uint64_t ox = 0; ox < U(F::Dwconv_ow); ++ox)
      for (uint64_t c = 0; c < ch; ++c) {
        out.push_back(U(F::Dwconv_c_addr) + oy * U(F::Dwconv_c_row_stride) +
                      ox * U(F::Dwconv_c_pix_stride) + c);
        for (uint64_t ky = 0; ky < kh; ++ky)
          for (uint64_t kx = 0; kx < kw; ++kx)
            in.insert(U(F::Dwconv_in_addr) +
                      (oy * U(F::Dwconv_sh) + ky * U(F::Dwconv_dh)) *
                          U(F::Dwconv_in_row_stride) +
                      (ox * U(F::Dwconv_sw) + kx * U(F::Dwconv_dw)) *
                          U(F::Dwconv_in_pix_stride) +
                      c);
      }
}

// A random DWCONV that the verifier accepts, whose operands are inside SP
// and ACC and whose output elements are distinct (C never overlaps itself;
// the SP inputs cannot overlap an ACC output). `shape` picks edge cases.
isa::Instruction randomDwconv(Rng &r, const isa::HwConfig &cfg, int shape) {
  const uint64_t L = cfg.vector.lanes, spBytes = cfg.sram.scratchpadBytes,
                 accWords = cfg.accumulatorWords();
  for (;;) {
    isa::Instruction I(isa::Opcode::Dwconv);
    uint64_t oh = r.u(1, 4), ow = r.u(1, 4), kh = r.u(1, 3), kw = r.u(1, 3);
    uint64_t sh = r.u(1, 2), sw = r.u(1, 2), dh = r.u(1, 2), dw = r.u(1, 2);
    uint64_t ch = r.p(30) ? L * r.u(1, 3) : r.u(1, 3 * L + 1);
    if (shape == 0) // a single element
      oh = ow = kh = kw = ch = 1;
    if (shape == 1) // a big kernel on one pixel, large dilation
      oh = ow = 1, kh = r.u(2, 5), kw = r.u(2, 5), dh = r.u(1, 4),
      dw = r.u(1, 4);
    uint64_t rows = (oh - 1) * sh + (kh - 1) * dh + 1;
    uint64_t cols = (ow - 1) * sw + (kw - 1) * dw + 1;
    uint64_t ips = r.p(15) ? r.u(1, ch + 3) : ch + (r.p(50) ? 0 : r.u(1, 3));
    uint64_t irs = cols * ips + (r.p(50) ? 0 : r.u(0, 9));
    if (r.p(10))
      irs = r.u(1, cols * ips + 9);
    uint64_t cps = ch + (r.p(50) ? 0 : r.u(1, 3));
    uint64_t crs = ow * cps + (r.p(50) ? 0 : r.u(0, 9));
    I.set(F::Dwconv_oh, oh);
    I.set(F::Dwconv_ow, ow);
    I.set(F::Dwconv_ch, ch);
    I.set(F::Dwconv_kh, kh);
    I.set(F::Dwconv_kw, kw);
    I.set(F::Dwconv_sh, sh);
    I.set(F::Dwconv_sw, sw);
    I.set(F::Dwconv_dh, dh);
    I.set(F::Dwconv_dw, dw);
    I.set(F::Dwconv_in_pix_stride, ips);
    I.set(F::Dwconv_in_row_stride, irs);
    I.set(F::Dwconv_c_pix_stride, cps);
    I.set(F::Dwconv_c_row_stride, crs);
    uint64_t inSpan = (rows - 1) * irs + (cols - 1) * ips + ch;
    uint64_t wSpan = kh * kw * ch;
    uint64_t outSpan = (oh - 1) * crs + (ow - 1) * cps + ch;
    if (inSpan >= spBytes || wSpan >= spBytes || outSpan >= accWords)
      continue;
    I.set(F::Dwconv_in_addr, r.u(0, spBytes - inSpan));
    I.set(F::Dwconv_w_addr, r.u(0, spBytes - wSpan));
    I.set(F::Dwconv_c_addr, r.u(0, accWords - outSpan));
    I.set(F::Dwconv_accumulate, r.p(50));
    I.setRaw(F::Dwconv_in_zp, r.p(30) ? 0 : r.u(0, 255));
    I.setRaw(F::Dwconv_w_zp, r.p(30) ? 0 : r.u(0, 255));
    if (auto err = isa::validateInstruction(I, cfg)) {
      llvm::consumeError(std::move(err));
      continue;
    }
    std::set<uint64_t> in;
    std::vector<uint64_t> out;
    footprint(I, in, out);
    if (std::set<uint64_t>(out.begin(), out.end()).size() != out.size())
      continue;
    return I;
  }
}

// The fields that fix the contract's write schedule (see the file comment).
const WindowFields kDwconvFields{
    F::Dwconv_oh,           F::Dwconv_ow,           F::Dwconv_ch,
    F::Dwconv_kh,           F::Dwconv_kw,           F::Dwconv_c_addr,
    F::Dwconv_c_row_stride, F::Dwconv_c_pix_stride, /*rowTaps=*/true};

template <class Top> class Harness {
public:
  explicit Harness(const isa::HwConfig &cfg) : cfg(cfg) {}

  // Runs one DWCONV on the idle engine and checks it.
  void run(const isa::Instruction &I, Rng &r, const std::string &what) {
    SCOPED_TRACE(what);
    auto state = sim::MachineState::create(cfg, 0);
    for (auto &b : state.scratchpad)
      b = uint8_t(r.g());
    for (auto &w : state.accumulator) // mostly small, sometimes near the wrap
      w = r.p(20) ? int32_t(r.g()) : int32_t(r.u(0, 200000)) - 100000;
    ASSERT_FALSE(sim::checkInstruction(I, state).has_value());
    auto &sp = dut.m->rootp->tb_npu_dwconv_unit__DOT__sp;
    auto &acc = dut.m->rootp->tb_npu_dwconv_unit__DOT__acc;
    loadArray(sp, state.scratchpad);
    loadArray(acc, state.accumulator);
    sim::executeInstruction(I, state);
    ASSERT_NO_FATAL_FAILURE(runWindow(dut, I, cfg, kDwconvFields));
    size_t bad = 0;
    for (size_t i = 0; i < state.scratchpad.size(); ++i)
      if (sp[i] != state.scratchpad[i] && bad++ < 8)
        ADD_FAILURE() << "SP[" << i << "] rtl " << int(sp[i]) << " sim "
                      << int(state.scratchpad[i]);
    for (size_t i = 0; i < state.accumulator.size(); ++i)
      if (acc[i] != uint32_t(state.accumulator[i]) && bad++ < 8)
        ADD_FAILURE() << "ACC[" << i << "] rtl " << int32_t(acc[i]) << " sim "
                      << state.accumulator[i];
    EXPECT_EQ(bad, 0u);
  }

private:
  isa::HwConfig cfg;
  EngineDut<Top> dut;
};

// The edge cases a random DWCONV exercises, so the test fails if the
// generator stops producing them.
enum Case {
  Accumulate,
  Overwrite,
  PartialGroup, // ch not a multiple of LANES
  FullGroups,   // ch a multiple of LANES
  Stride,       // sh or sw > 1
  Dilation,     // dh or dw > 1
  ZeroPoints,   // in_zp and w_zp both nonzero
  NumCases
};

void classify(const isa::Instruction &I, uint64_t lanes,
              std::array<int, NumCases> &hits) {
  auto U = [&](F f) { return I.raw(f); };
  ++hits[I.getFlag(F::Dwconv_accumulate) ? Accumulate : Overwrite];
  ++hits[U(F::Dwconv_ch) % lanes ? PartialGroup : FullGroups];
  hits[Stride] += U(F::Dwconv_sh) > 1 || U(F::Dwconv_sw) > 1;
  hits[Dilation] += U(F::Dwconv_dh) > 1 || U(F::Dwconv_dw) > 1;
  hits[ZeroPoints] += U(F::Dwconv_in_zp) != 0 && U(F::Dwconv_w_zp) != 0;
}

template <class Top> void randomDwconvs(const char *preset, uint64_t seed) {
  randomWindowRuns<Harness<Top>, NumCases>(preset, seed, randomDwconv,
                                           classify);
}

// Hand-derived: 2x3 output, 3x2 kernel, stride 2x1, dilation 1x2,
// ch = 2*LANES + 1 (three groups, the last with one lane), accumulating,
// with zero points: 6 pixels x 3 groups x 3 kernel rows, each row of 2 taps
// 2 beats at one tap per beat and 1 beat with dwconv_taps >= 2 (lanes3-p0):
// cdur = 6*3*3*2 + P or 6*3*3*1 + P.
template <class Top> void handCase(const char *preset) {
  isa::HwConfig cfg = loadConfig(preset);
  const uint64_t L = cfg.vector.lanes, P = cfg.vector.pipelineDepth;
  const uint64_t ch = 2 * L + 1;
  isa::Instruction I(isa::Opcode::Dwconv);
  I.with(F::Dwconv_oh, 2).with(F::Dwconv_ow, 3).with(F::Dwconv_ch, ch);
  I.with(F::Dwconv_kh, 3).with(F::Dwconv_kw, 2).with(F::Dwconv_sh, 2);
  I.with(F::Dwconv_sw, 1).with(F::Dwconv_dh, 1).with(F::Dwconv_dw, 2);
  I.with(F::Dwconv_in_pix_stride, ch).with(F::Dwconv_in_row_stride, 5 * ch);
  I.with(F::Dwconv_c_pix_stride, ch).with(F::Dwconv_c_row_stride, 3 * ch + 1);
  I.with(F::Dwconv_in_addr, 100).with(F::Dwconv_w_addr, 3000);
  I.with(F::Dwconv_c_addr, 17).with(F::Dwconv_accumulate, 1);
  I.with(F::Dwconv_in_zp, -3).with(F::Dwconv_w_zp, 5);
  ASSERT_FALSE(bool(isa::validateInstruction(I, cfg)));
  const uint64_t rowBeats = cfg.vector.dwconvTaps >= 2 ? 1 : 2;
  EXPECT_EQ(isa::computeCycles(I, cfg), 6 * 3 * 3 * rowBeats + P);
  Harness<Top> h(cfg);
  Rng r(7);
  h.run(I, r, "hand case");
}

TEST(DwconvUnit, HandCaseTiny4x4) {
  handCase<Vtb_npu_dwconv_unit_tiny_4x4>(kTiny);
}
TEST(DwconvUnit, HandCaseRtl8x8) {
  handCase<Vtb_npu_dwconv_unit_rtl_8x8>(kRtl8);
}
TEST(DwconvUnit, HandCaseLanes3NoPipeline) {
  handCase<Vtb_npu_dwconv_unit_lanes3_p0>(kLanes3);
}
TEST(DwconvUnit, RandomTiny4x4) {
  randomDwconvs<Vtb_npu_dwconv_unit_tiny_4x4>(kTiny, 1);
}
TEST(DwconvUnit, RandomRtl8x8) {
  randomDwconvs<Vtb_npu_dwconv_unit_rtl_8x8>(kRtl8, 2);
}
TEST(DwconvUnit, RandomLanes3NoPipeline) {
  randomDwconvs<Vtb_npu_dwconv_unit_lanes3_p0>(kLanes3, 3);
}

} // namespace
