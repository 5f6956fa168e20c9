//===- EngineTestUtil.h - Shared harness of the streaming engine tests ----===//
//
// What the engine tests (tb/{Requant,Vector,Pool,Dwconv}UnitTest.cpp)
// share: loading a config, the random generators, driving a Verilated tb
// wrapper (reset, clock, the instruction words), and for the window engines
// (POOL, DWCONV) the contract's write schedule and the loop that drives one
// instruction and records every lane write. Each test keeps what differs:
// its instruction generator, its memories and its edge-case classes.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_TESTS_RTL_ENGINETESTUTIL_H
#define SYSTOLE_TESTS_RTL_ENGINETESTUTIL_H

#include "verilated.h"

#include "systole/ISA/HwConfig.h"
#include "systole/ISA/Instruction.h"
#include "systole/ISA/Timing.h"
#include "systole/ISA/Verifier.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace systole::enginetest {

// The configs every engine test runs on: the two presets and "lanes3-p0"
// (tiny-4x4 with 3 lanes and pipeline depth 0, tests/unit/rtl/CMakeLists.txt).
inline const char *const kTiny = SYSTOLE_PRESET_DIR "/tiny-4x4.json";
inline const char *const kRtl8 = SYSTOLE_PRESET_DIR "/rtl-8x8.json";
inline const char *const kLanes3 = SYSTOLE_TB_LANES3_JSON;

inline isa::HwConfig loadConfig(const std::string &path) {
  auto c = isa::loadHwConfigFile(path);
  if (!c) {
    ADD_FAILURE() << llvm::toString(c.takeError());
    return {};
  }
  return *c;
}

inline uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// The generator of the REQUANT and VADD/VMUL tests.
struct Gen {
  std::mt19937_64 rng;
  explicit Gen(uint64_t seed) : rng(seed) {}
  uint64_t below(uint64_t n) { return rng() % n; }
  int64_t range(int64_t lo, int64_t hi) {
    return lo + int64_t(below(hi - lo + 1));
  }
  bool chance(int percent) { return below(100) < uint64_t(percent); }
  float uniform(float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng);
  }
};

// The generator of the POOL and DWCONV tests.
struct Rng {
  std::mt19937_64 g;
  explicit Rng(uint64_t seed) : g(seed) {}
  uint64_t u(uint64_t lo, uint64_t hi) { return lo + g() % (hi - lo + 1); }
  bool p(unsigned percent) { return g() % 100 < percent; }
};

// A Verilated tb wrapper with the engine ports clk, rst, start, inst,
// cycles and busy; reset (two clock edges) on construction.
template <class Top> struct EngineDut {
  std::unique_ptr<VerilatedContext> ctx = std::make_unique<VerilatedContext>();
  std::unique_ptr<Top> m = std::make_unique<Top>(ctx.get());
  EngineDut() {
    m->clk = 0;
    m->rst = 1;
    m->start = 0;
    m->eval();
    tick();
    tick();
    m->rst = 0;
    m->eval();
  }
  // One clock edge; the inputs settle again afterwards.
  void tick() {
    m->clk = 1;
    m->eval();
    m->clk = 0;
    m->eval();
  }
  // Puts the instruction's encoding on `inst` (word w = bytes 4w .. 4w+3,
  // little-endian).
  void setInstruction(const isa::Instruction &I) {
    uint8_t bytes[isa::kInstructionBytes];
    I.encode(bytes);
    for (size_t w = 0; w < isa::kInstructionBytes / 4; ++w)
      m->inst[w] = uint32_t(bytes[4 * w]) | uint32_t(bytes[4 * w + 1]) << 8 |
                   uint32_t(bytes[4 * w + 2]) << 16 |
                   uint32_t(bytes[4 * w + 3]) << 24;
  }
};

// Copies a MachineState memory into a public tb array (ACC words as their
// two's-complement bits).
template <class Array, class Vec> void loadArray(Array &dst, const Vec &src) {
  for (size_t i = 0; i < src.size(); ++i)
    dst[i] = std::make_unsigned_t<typename Vec::value_type>(src[i]);
}

//===----------------------------------------------------------------------===//
// REQUANT and VADD/VMUL: wrappers with a `writes` output (lanes writing at
// the edge ending this cycle).
//===----------------------------------------------------------------------===//

struct WriteCount {
  uint64_t writes = 0, first = ~0ull, last = ~0ull;
};

// Starts I (computeCycles cdur) in cycle s on the idle engine and runs it:
// afterwards `inst` and `cycles` are garbage (the engine must have
// registered what it needs); busy must be high in s+1 .. s+cdur-1 and low
// from s+cdur on; the run ends at s+cdur (back to back: the next instruction
// may start there) or, 30% of the time, a few idle cycles later. Counts the
// lane writes and the cycles of the first and last.
template <class Top>
void streamOne(EngineDut<Top> &dut, Gen &g, const isa::Instruction &I,
               uint64_t cdur, const std::string &what, WriteCount &out) {
  auto &m = dut.m;
  ASSERT_FALSE(m->busy) << "busy before start:" << what;
  dut.setInstruction(I);
  m->cycles = cdur;
  m->start = 1;
  out = WriteCount();
  for (uint64_t t = 0; t < cdur + 3; t++) {
    m->eval();
    if (t > 0)
      ASSERT_EQ(bool(m->busy), t < cdur)
          << "busy in cycle s+" << t << ", cdur " << cdur << ":" << what;
    if (m->writes) {
      out.writes += m->writes;
      if (out.first == ~0ull)
        out.first = t;
      out.last = t;
    }
    dut.tick();
    m->start = 0;
    for (size_t w = 0; w < isa::kInstructionBytes / 4; w++)
      m->inst[w] = uint32_t(g.rng());
    m->cycles = g.rng();
    if (t + 1 == cdur && !g.chance(30))
      break;
  }
  m->eval();
}

//===----------------------------------------------------------------------===//
// POOL and DWCONV: wrappers with `we` and `waddr` outputs (every lane's
// write port), checked against the engine contract's schedule: output group
// q = (oy*ow + ox)*G + g (G = ceil(ch/LANES)) is written, lanes with a
// channel < ch, in cycle s + (q+1)*kh*kw - 1 + PIPE_DEPTH, and nothing else.
//===----------------------------------------------------------------------===//

// One write of a lane: (cycle relative to start, lane, address).
using Write = std::tuple<uint64_t, uint64_t, uint64_t>;

// The fields of a window instruction that fix its write schedule.
struct WindowFields {
  isa::Field oh, ow, ch, kh, kw, outAddr, outRowStride, outPixStride;
  /// The engine takes vector.dwconv_taps taps of a kernel row per beat
  /// (DWCONV); otherwise one tap per beat (POOL).
  bool rowTaps = false;
};

inline std::vector<Write> expectedWrites(const isa::Instruction &I,
                                         const isa::HwConfig &cfg,
                                         const WindowFields &f) {
  auto U = [&](isa::Field x) { return I.raw(x); };
  const uint64_t L = cfg.vector.lanes, ch = U(f.ch);
  const uint64_t T = f.rowTaps ? cfg.vector.dwconvTaps : 1;
  const uint64_t G = (ch + L - 1) / L, K = U(f.kh) * ((U(f.kw) + T - 1) / T);
  std::vector<Write> w;
  uint64_t q = 0;
  for (uint64_t oy = 0; oy < U(f.oh); ++oy)
    for (uint64_t ox = 0; ox < U(f.ow); ++ox)
      for (uint64_t g = 0; g < G; ++g, ++q)
        for (uint64_t l = 0; l < L && g * L + l < ch; ++l)
          w.emplace_back((q + 1) * K - 1 + cfg.vector.pipelineDepth, l,
                         U(f.outAddr) + oy * U(f.outRowStride) +
                             ox * U(f.outPixStride) + g * L + l);
  std::sort(w.begin(), w.end());
  return w;
}

// Runs I on the idle engine (start in cycle s only), asserts busy exactly
// in s .. s+cdur-1 (cdur = computeCycles) and that the lane writes follow
// expectedWrites, the last in s+cdur-1.
template <class Top>
void runWindow(EngineDut<Top> &dut, const isa::Instruction &I,
               const isa::HwConfig &cfg, const WindowFields &f) {
  auto &m = dut.m;
  const uint64_t cdur = isa::computeCycles(I, cfg), L = cfg.vector.lanes;
  dut.setInstruction(I);
  m->cycles = cdur;
  std::vector<Write> writes;
  for (uint64_t t = 0; t <= cdur; ++t) {
    m->start = t == 0;
    m->eval();
    if (t < cdur)
      ASSERT_TRUE(m->busy) << "busy low in cycle s+" << t << " of " << cdur;
    else
      ASSERT_FALSE(m->busy)
          << "busy high in cycle s+" << t << ", cdur " << cdur;
    for (uint64_t l = 0; l < L; ++l)
      if ((m->we >> l) & 1)
        writes.emplace_back(t, l,
                            uint64_t(m->waddr[2 * l]) |
                                uint64_t(m->waddr[2 * l + 1]) << 32);
    dut.tick();
  }
  std::sort(writes.begin(), writes.end());
  ASSERT_FALSE(writes.empty());
  EXPECT_EQ(std::get<0>(writes.back()), cdur - 1) << "last write cycle";
  EXPECT_EQ(writes, expectedWrites(I, cfg, f)) << "write schedule";
}

// Runs `count` random instructions of a window engine on a preset: `make(r,
// cfg, shape)` draws one (shape 0 for the first 4, 1 for the next 16, then
// 2), `h.run(I, r, what)` checks it, `classify(I, lanes, hits)` counts its
// edge cases; each of the NumCases must come up at least 5 times.
template <class Harness, size_t NumCases, class Make, class Classify>
void randomWindowRuns(const char *preset, uint64_t seed, Make make,
                      Classify classify, int count = 300) {
  isa::HwConfig cfg = loadConfig(preset);
  ASSERT_GT(cfg.vector.lanes, 0u);
  Harness h(cfg);
  Rng r(seed);
  std::array<int, NumCases> hits{};
  for (int i = 0; i < count; ++i) {
    int shape = i < 4 ? 0 : i < 20 ? 1 : 2;
    auto I = make(r, cfg, shape);
    classify(I, cfg.vector.lanes, hits);
    h.run(I, r, "instruction #" + std::to_string(i));
    if (::testing::Test::HasFailure())
      return;
  }
  for (size_t c = 0; c < NumCases; ++c)
    EXPECT_GE(hits[c], 5) << "edge case " << c << " rarely generated";
}

} // namespace systole::enginetest

#endif // SYSTOLE_TESTS_RTL_ENGINETESTUTIL_H
