//===- RtlCosimTest.cpp - Verilated RTL vs the SystemC model, exactly -----===//
//
// The gold check of docs/rtl.md: the same instruction streams run on the
// cycle-accurate SystemC model and on the Verilated RTL inside SystemC;
// every instruction's fetch, start and end cycle (and DMA channel window),
// the total cycles and DRAM, scratchpad and accumulator contents must be
// equal.
//
//===----------------------------------------------------------------------===//
#include "../simulator/SimTestUtil.h"

#include "systole/ISA/Assembly.h"
#include "systole/ISA/Program.h"

#include "llvm/Support/MemoryBuffer.h"

#include <random>

// The random token-synchronized program generator of the simulator suite
// (its own functional-vs-cycle test is registered here too).
#include "../simulator/RandomProgramTest.cpp"

using namespace systole;
using namespace systole::sim;
using namespace systole::sim::test;

namespace {

void expectSameRun(const std::vector<Instruction> &prog,
                   const isa::HwConfig &cfg, const MachineState &init,
                   const std::string &what) {
  MachineState cs = init, rs = init;
  RunResult c = runCycleAccurate(prog, cfg, cs);
  auto r = runRtl(prog, cfg, rs);
  ASSERT_TRUE(bool(r)) << what << ": " << llvm::toString(r.takeError());
  ASSERT_FALSE(c.fault) << what << ": " << c.fault->message();
  ASSERT_FALSE(r->fault) << what << ": " << r->fault->message();
  EXPECT_EQ(c.stats.totalCycles, r->stats.totalCycles) << what;
  EXPECT_EQ(c.stats.instructionsRetired, r->stats.instructionsRetired) << what;
  for (size_t i = 0; i < prog.size(); ++i) {
    const InstructionRecord &a = c.stats.instructions[i],
                            &b = r->stats.instructions[i];
    std::string at = what + " #" + std::to_string(i) + " " +
                     isa::printInstruction(prog[i]).substr(0, 40);
    EXPECT_EQ(a.fetch, b.fetch) << at;
    EXPECT_EQ(a.start, b.start) << at;
    EXPECT_EQ(a.end, b.end) << at;
    if (prog[i].opcode() == Opcode::Load || prog[i].opcode() == Opcode::Store) {
      EXPECT_EQ(a.channelStart, b.channelStart) << at;
      EXPECT_EQ(a.channelEnd, b.channelEnd) << at;
    }
  }
  EXPECT_TRUE(cs.dram == rs.dram) << what << ": DRAM differs";
  auto firstDiff = [](const auto &a, const auto &b) {
    size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i])
      ++i;
    return i;
  };
  size_t d = firstDiff(cs.scratchpad, rs.scratchpad);
  EXPECT_TRUE(cs.scratchpad == rs.scratchpad)
      << what << ": SP differs first at " << d << " ("
      << int(cs.scratchpad[std::min(d, cs.scratchpad.size() - 1)]) << " vs "
      << int(rs.scratchpad[std::min(d, rs.scratchpad.size() - 1)]) << ")";
  EXPECT_TRUE(cs.accumulator == rs.accumulator) << what << ": ACC differs";
}

MachineState randomState(const isa::HwConfig &cfg, uint64_t dramBytes,
                         uint64_t seed) {
  MachineState s = MachineState::create(cfg, dramBytes);
  std::mt19937_64 rng(seed);
  for (auto &b : s.dram)
    b = uint8_t(rng());
  return s;
}

} // namespace

TEST(RtlCosim, NoModelForAnUnverilatedConfig) {
  isa::HwConfig cfg = arrayConfig(5, 7);
  llvm::Error e = rtlSupports(cfg);
  ASSERT_TRUE(bool(e));
  EXPECT_NE(llvm::toString(std::move(e)).find("no Verilated RTL"),
            std::string::npos);
}

TEST(RtlCosim, HandWrittenTilesOnTiny4x4) {
  isa::HwConfig cfg = preset("tiny-4x4");
  MachineState init = randomState(cfg, 1 << 16, 7);
  // WS with preload and reuse, OS without and with a bank conflict.
  expectSameRun({matmul(isa::Dataflow_ws, 6, 4, 4, true), end()}, cfg, init,
                "ws");
  expectSameRun({matmul(isa::Dataflow_ws, 6, 4, 4, true),
                 matmul(isa::Dataflow_ws, 5, 4, 4, false, 64, 4096, 64), end()},
                cfg, init, "ws reuse");
  expectSameRun({matmul(isa::Dataflow_os, 4, 8, 4, false, 0, 8192), end()}, cfg,
                init, "os");
  expectSameRun({matmul(isa::Dataflow_os, 4, 8, 4, false, 0, 256), end()}, cfg,
                init, "os bank conflict");
  // DMA: bursts, overlapping latency, the load winning a tie, back-pressure.
  expectSameRun({dma(Opcode::Load, 1, 0, 128), end()}, cfg, init, "load");
  expectSameRun({dma(Opcode::Load, 1, 0, 128), dma(Opcode::Load, 300, 512, 128),
                 dma(Opcode::Store, 2000, 40, 77), end()},
                cfg, init, "dmas");
  std::vector<Instruction> full;
  for (int i = 0; i < 7; ++i)
    full.push_back(matmul(isa::Dataflow_ws, 3, 4, 4, true, 0, 4096, 16 * i));
  full.push_back(dma(Opcode::Load, 64, 9000, 64));
  full.push_back(end());
  expectSameRun(full, cfg, init, "full queue");
}

TEST(RtlCosim, AssembledMatmulTile) {
  isa::HwConfig cfg = preset("tiny-4x4");
  auto text = llvm::MemoryBuffer::getFile(
      SYSTOLE_SOURCE_DIR "/tests/lit/isa/Inputs/matmul-tile.s");
  ASSERT_TRUE(bool(text));
  auto prog = isa::parseProgramAsm((*text)->getBuffer(), cfg);
  ASSERT_TRUE(bool(prog)) << llvm::toString(prog.takeError());
  ASSERT_FALSE(prog->segments.empty());
  MachineState init = randomState(cfg, 4096, 3);
  for (const auto &c : prog->constants)
    std::copy(c.data.begin(), c.data.end(), init.dram.begin() + c.dramOffset);
  expectSameRun(prog->segments[0].npu().instructions, cfg, init,
                "matmul-tile.s");
}

TEST(RtlCosim, RandomTokenSynchronizedProgramsOnRtl8x8) {
  isa::HwConfig cfg = preset("rtl-8x8");
  for (uint64_t seed = 1; seed <= 25; ++seed) {
    Generator g(seed, cfg);
    std::vector<Instruction> prog = g.program(2 + seed % 7);
    MachineState init = MachineState::create(cfg, Generator::kDram);
    init.dram = g.dram();
    expectSameRun(prog, cfg, init, "seed " + std::to_string(seed));
    if (HasFatalFailure())
      return;
  }
}
