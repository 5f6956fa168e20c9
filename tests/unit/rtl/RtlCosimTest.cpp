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
#include "systole/ISA/Timing.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstdio>
#include <cstring>
#include <random>

// The random token-synchronized program generator of the simulator suite
// (its own functional-vs-cycle test is registered here too).
#include "../simulator/RandomProgramTest.cpp"

using namespace systole;
using namespace systole::sim;
using namespace systole::sim::test;

namespace {

/// Runs `prog` on both models and expects identical cycles and memories.
/// With `sameFault`, a program the SystemC model stops with a fault must
/// stop the co-simulation with the same fault at the same instruction and
/// cycle; returns whether the run was fault-free.
bool expectSameRun(const std::vector<Instruction> &prog,
                   const isa::HwConfig &cfg, const MachineState &init,
                   const std::string &what, bool sameFault = false) {
  MachineState cs = init, rs = init;
  RunResult c = runCycleAccurate(prog, cfg, cs);
  auto r = runRtl(prog, cfg, rs);
  EXPECT_TRUE(bool(r)) << what << ": " << llvm::toString(r.takeError());
  if (!r)
    return false;
  if (sameFault && c.fault) {
    EXPECT_TRUE(r->fault) << what << ": SystemC faults, RTL does not: "
                          << c.fault->message();
    if (r->fault) {
      EXPECT_EQ(c.fault->kind, r->fault->kind) << what;
      EXPECT_EQ(c.fault->instruction, r->fault->instruction) << what;
      EXPECT_EQ(c.fault->cycle, r->fault->cycle) << what;
      // The RTL words its deadlock reports itself.
      if (c.fault->kind == FaultKind::PostProcessorHazard)
        EXPECT_EQ(c.fault->detail, r->fault->detail) << what;
    }
    return false;
  }
  EXPECT_FALSE(c.fault) << what << ": " << c.fault->message();
  EXPECT_FALSE(r->fault) << what << ": " << r->fault->message();
  if (c.fault || r->fault)
    return false;
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
  return true;
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
  expectSameRun({matmul(isa::Dataflow_os, 4, 8, 4, false, 0, 256)
                     .with(isa::Field::Matmul_bank_conflict, 1),
                 end()},
                cfg, init, "os bank conflict");
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

// FaultTest's two deadlocks (hand-derived there: cycles 14 and 2): the
// co-simulation reports the same instruction and cycle as the SystemC model.
TEST(RtlCosim, DeadlocksAtTheSameInstructionAndCycle) {
  isa::HwConfig cfg = preset("tiny-4x4");
  MachineState init = randomState(cfg, 1 << 16, 5);
  auto check = [&](const std::vector<Instruction> &prog, uint64_t cycle,
                   const char *what) {
    MachineState s = init;
    RunResult c = runCycleAccurate(prog, cfg, s);
    ASSERT_TRUE(c.fault) << what;
    EXPECT_EQ(c.fault->kind, FaultKind::TokenDeadlock) << what;
    EXPECT_EQ(c.fault->cycle, cycle) << what;
    EXPECT_FALSE(expectSameRun(prog, cfg, init, what, /*sameFault=*/true));
  };
  check({dma(Opcode::Load, 0, 0, 16),
         withDeps(fence(isa::Queue::Compute), true, false, false, false),
         end()},
        14, "fence waits for a load");
  check({withDeps(dma(Opcode::Load, 0, 0, 16), false, true, false, true),
         withDeps(fence(isa::Queue::Compute), true, false, true, false), end()},
        2, "load and compute wait for each other");
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

// Random token-synchronized programs. rtl-8x8 sets vector.requant_overlap,
// so a MATMUL the generator places after a REQUANT on the same accumulator
// tile is a post-processor hazard: both models must then stop with the same
// fault; most seeds run to the end.
void randomPrograms(const char *presetName, unsigned seeds, unsigned minClean) {
  isa::HwConfig cfg = preset(presetName);
  unsigned clean = 0, paddingBound = 0, conflicts = 0, luts = 0, lutColumns = 0;
  unsigned overlapped = 0, maxInArray = 0;
  // VSOFTMAX in clean runs: all, uint8, in place, with a partial last lane
  // group, with one column.
  unsigned softmaxes = 0, softmaxU8 = 0, softmaxInPlace = 0, softmaxPartial = 0,
           softmaxOneColumn = 0, softmaxWild = 0;
  // VLAYERNORM in clean runs: all, with beta, without, in place, with a
  // partial last lane group, with one column.
  unsigned norms = 0, normBias = 0, normNoBias = 0, normInPlace = 0,
           normPartial = 0, normOneColumn = 0;
  // VBINARY in clean runs: all, per op, per-row B (b_bcast, b_s1 = 1),
  // per-channel B (b_s1 = 0), in place, with a bank conflict; with an fp32
  // B from ACC (b_f32): all, per row (b_bcast), elementwise with a row
  // stride.
  unsigned binaries = 0, binOps[4] = {0, 0, 0, 0}, binPerRow = 0,
           binPerChannel = 0, binInPlace = 0, binConflicts = 0;
  unsigned binF32 = 0, binF32PerRow = 0, binF32Strided = 0;
  // VREDUCE in clean runs: all, mean, sum, with a partial last lane group,
  // more rows than lanes, rows without a whole packet (n0 < 4), by phase.
  unsigned reduces = 0, reduceMean = 0, reduceSum = 0, reducePartial = 0,
           reduceGroups = 0, reduceShort = 0, reducePhase[4] = {0, 0, 0, 0};
  for (uint64_t seed = 1; seed <= seeds; ++seed) {
    Generator g(seed, cfg);
    std::vector<Instruction> prog = g.program(2 + seed % 7);
    MachineState init = MachineState::create(cfg, Generator::kDram);
    init.dram = g.dram();
    bool ok = expectSameRun(prog, cfg, init, "seed " + std::to_string(seed),
                            /*sameFault=*/cfg.vector.requantOverlap);
    if (::testing::Test::HasFailure())
      return;
    clean += ok;
    // MATMULs that entered the array before the previous one had drained
    // (array.matmul_inflight > 1), and the most in it at once.
    if (ok && cfg.array.matmulInflight > 1) {
      MachineState cs = init;
      RunResult c = runCycleAccurate(prog, cfg, cs);
      std::vector<uint64_t> ends;
      for (size_t i = 0; i < prog.size(); ++i) {
        if (prog[i].opcode() != Opcode::Matmul)
          continue;
        const InstructionRecord &rec = c.stats.instructions[i];
        unsigned inArray = 1;
        for (uint64_t e : ends)
          inArray += e > rec.start;
        overlapped += inArray > 1;
        maxInArray = std::max(maxInArray, inArray);
        ends.push_back(rec.end);
      }
    }
    // What the clean runs exercised of the padding writer and of the
    // bank_conflict bit (its timing in both models).
    for (const Instruction &I : prog) {
      isa::DmaTiming t = isa::dmaTiming(I, cfg);
      paddingBound += ok && t.padCycles > t.burstCycles;
      Opcode op = I.opcode();
      luts += ok && op == Opcode::Vlut;
      lutColumns +=
          ok && op == Opcode::Vlut && I.getFlag(isa::Field::Vlut_per_column);
      if (ok && op == Opcode::Vsoftmax) {
        ++softmaxes;
        softmaxU8 += I.getFlag(isa::Field::Vsoftmax_u8);
        softmaxInPlace += I.raw(isa::Field::Vsoftmax_a_addr) ==
                          I.raw(isa::Field::Vsoftmax_o_addr);
        softmaxPartial +=
            I.raw(isa::Field::Vsoftmax_n1) % cfg.vector.lanes != 0;
        softmaxOneColumn += I.raw(isa::Field::Vsoftmax_n0) == 1;
        // Tables 2 and 3: e * c overflows, NaN / inf / negative entries.
        softmaxWild += I.raw(isa::Field::Vsoftmax_table_addr) >=
                       Generator::kSoftmaxAcc + 2 * 256;
      }
      if (ok && op == Opcode::Vlayernorm) {
        ++norms;
        bool bias = I.getFlag(isa::Field::Vlayernorm_bias);
        normBias += bias;
        normNoBias += !bias;
        normInPlace += I.raw(isa::Field::Vlayernorm_a_addr) ==
                       I.raw(isa::Field::Vlayernorm_o_addr);
        normPartial += I.raw(isa::Field::Vlayernorm_n1) % cfg.vector.lanes != 0;
        normOneColumn += I.raw(isa::Field::Vlayernorm_n0) == 1;
      }
      if (ok && op == Opcode::Vbinary) {
        ++binaries;
        ++binOps[I.raw(isa::Field::Vbinary_op)];
        binPerRow += I.getFlag(isa::Field::Vbinary_b_bcast) &&
                     I.raw(isa::Field::Vbinary_b_s1) == 1;
        binPerChannel += I.raw(isa::Field::Vbinary_b_s1) == 0;
        binInPlace += I.raw(isa::Field::Vbinary_a_addr) ==
                      I.raw(isa::Field::Vbinary_o_addr);
        binConflicts += I.getFlag(isa::Field::Vbinary_bank_conflict);
        if (I.getFlag(isa::Field::Vbinary_b_f32)) {
          ++binF32;
          bool perRow = I.getFlag(isa::Field::Vbinary_b_bcast);
          binF32PerRow += perRow;
          binF32Strided += !perRow && I.raw(isa::Field::Vbinary_b_s1) != 0 &&
                           I.raw(isa::Field::Vbinary_n1) > 1;
        }
      }
      if (ok && op == Opcode::Vreduce) {
        ++reduces;
        bool mean = I.getFlag(isa::Field::Vreduce_mean);
        reduceMean += mean;
        reduceSum += !mean;
        reducePartial += I.raw(isa::Field::Vreduce_n1) % cfg.vector.lanes != 0;
        reduceGroups += I.raw(isa::Field::Vreduce_n1) > cfg.vector.lanes;
        reduceShort += I.raw(isa::Field::Vreduce_n0) < 4;
        ++reducePhase[I.raw(isa::Field::Vreduce_phase)];
      }
      conflicts +=
          ok &&
          ((op == Opcode::Matmul &&
            I.getFlag(isa::Field::Matmul_bank_conflict)) ||
           (op == Opcode::Vadd && I.getFlag(isa::Field::Vadd_bank_conflict)) ||
           (op == Opcode::Vmul && I.getFlag(isa::Field::Vmul_bank_conflict)));
    }
  }
  EXPECT_GE(clean, minClean) << presetName;
  std::printf("%s: %u clean programs, %u padding-bound LOADs, %u compute "
              "instructions with a bank conflict, %u VLUT (%u per column)\n",
              presetName, clean, paddingBound, conflicts, luts, lutColumns);
  EXPECT_GE(paddingBound, 5u) << presetName;
  EXPECT_GE(luts, 5u) << presetName;
  EXPECT_GE(lutColumns, 2u) << presetName;
  EXPECT_GE(conflicts, 5u) << presetName;
  std::printf("%s: %u VSOFTMAX (%u uint8, %u in place, %u with a partial "
              "lane group, %u with one column, %u on the overflowing or "
              "arbitrary tables)\n",
              presetName, softmaxes, softmaxU8, softmaxInPlace, softmaxPartial,
              softmaxOneColumn, softmaxWild);
  EXPECT_GE(softmaxes, 15u) << presetName;
  EXPECT_GE(softmaxU8, 3u) << presetName;
  EXPECT_GE(softmaxInPlace, 3u) << presetName;
  EXPECT_GE(softmaxPartial, 3u) << presetName;
  EXPECT_GE(softmaxOneColumn, 1u) << presetName;
  EXPECT_GE(softmaxWild, 3u) << presetName;
  std::printf("%s: %u VLAYERNORM (%u with beta, %u without, %u in place, "
              "%u with a partial lane group, %u with one column)\n",
              presetName, norms, normBias, normNoBias, normInPlace, normPartial,
              normOneColumn);
  EXPECT_GE(norms, 15u) << presetName;
  EXPECT_GE(normBias, 3u) << presetName;
  EXPECT_GE(normNoBias, 3u) << presetName;
  EXPECT_GE(normInPlace, 3u) << presetName;
  EXPECT_GE(normPartial, 3u) << presetName;
  EXPECT_GE(normOneColumn, 1u) << presetName;
  std::printf("%s: %u VBINARY (add %u, sub %u, mul %u, div %u; %u per-row B, "
              "%u per-channel B, %u in place, %u with a bank conflict)\n",
              presetName, binaries, binOps[0], binOps[1], binOps[2], binOps[3],
              binPerRow, binPerChannel, binInPlace, binConflicts);
  EXPECT_GE(binaries, 15u) << presetName;
  for (unsigned o = 0; o < 4; ++o)
    EXPECT_GE(binOps[o], 2u) << presetName << " op " << o;
  EXPECT_GE(binPerRow, 3u) << presetName;
  EXPECT_GE(binPerChannel, 3u) << presetName;
  EXPECT_GE(binInPlace, 3u) << presetName;
  EXPECT_GE(binConflicts, 2u) << presetName;
  std::printf("%s: %u VBINARY with an fp32 B from ACC (%u per row, %u "
              "elementwise with a row stride)\n",
              presetName, binF32, binF32PerRow, binF32Strided);
  EXPECT_GE(binF32, 6u) << presetName;
  EXPECT_GE(binF32PerRow, 2u) << presetName;
  EXPECT_GE(binF32Strided, 2u) << presetName;
  std::printf("%s: %u VREDUCE (%u mean, %u sum, %u with a partial lane group, "
              "%u with more rows than lanes, %u with n0 < 4; phases %u %u %u "
              "%u)\n",
              presetName, reduces, reduceMean, reduceSum, reducePartial,
              reduceGroups, reduceShort, reducePhase[0], reducePhase[1],
              reducePhase[2], reducePhase[3]);
  EXPECT_GE(reduces, 15u) << presetName;
  EXPECT_GE(reduceMean, 3u) << presetName;
  EXPECT_GE(reduceSum, 3u) << presetName;
  EXPECT_GE(reducePartial, 3u) << presetName;
  EXPECT_GE(reduceGroups, 3u) << presetName;
  EXPECT_GE(reduceShort, 1u) << presetName;
  for (unsigned p = 0; p < 4; ++p)
    EXPECT_GE(reducePhase[p], 2u) << presetName << " phase " << p;
  if (cfg.array.matmulInflight > 1) {
    std::printf("%s: %u MATMULs issued into a busy array, at most %u in it\n",
                presetName, overlapped, maxInArray);
    EXPECT_GE(overlapped, 10u) << presetName;
    EXPECT_EQ(maxInArray, cfg.array.matmulInflight) << presetName;
  }
}

TEST(RtlCosim, RandomTokenSynchronizedProgramsOnRtl8x8) {
  ASSERT_EQ(preset("rtl-8x8").vector.requantOverlap, 1u);
  ASSERT_GT(preset("rtl-8x8").array.matmulInflight, 1u);
  randomPrograms("rtl-8x8", 25, 15);
}

// vector.requant_overlap through the RTL (rtl-8x8: R = C = 8, lanes 8,
// P 3). WS MATMUL M=16 K=8 N=8 with preload: 8 + 16 + 8 + 8 - 1 = 39 cycles;
// REQUANT M=16 N=8: 16 * ceil(8/8) + 3 = 19. Two tiles on separate ACC
// regions: MATMUL 0-39; REQUANT issues at 39 (array free) and holds only
// the post-processor, 39-58; the second MATMUL issues at 40 (one issue per
// queue per cycle), 40-79; the second REQUANT waits for the array, 79-98.
namespace {
Instruction tileRequant(uint64_t c, uint64_t o) {
  Instruction I(Opcode::Requant);
  I.with(isa::Field::Requant_m, 16)
      .with(isa::Field::Requant_n, 8)
      .with(isa::Field::Requant_c_addr, c)
      .with(isa::Field::Requant_c_stride, 8)
      .with(isa::Field::Requant_scale_addr, 2048)
      .with(isa::Field::Requant_o_addr, o)
      .with(isa::Field::Requant_o_stride, 8)
      .with(isa::Field::Requant_lo, -128)
      .with(isa::Field::Requant_hi, 127);
  return I;
}
/// REQUANT scales at ACC word 2048: `count` small positive fp32 values, so
/// the outputs are not all clamped.
void setScales(MachineState &s, unsigned count, float step) {
  for (unsigned n = 0; n < count; ++n) {
    float f = step * float(n + 1);
    std::memcpy(&s.accumulator[2048 + n], &f, 4);
  }
}
std::vector<Instruction> overlappedTiles(uint64_t secondC) {
  return {matmul(isa::Dataflow_ws, 16, 8, 8, true, 0, 4096, 0),
          tileRequant(0, 8192),
          matmul(isa::Dataflow_ws, 16, 8, 8, true, 1024, 4096, secondC),
          tileRequant(secondC, 9216), end()};
}
} // namespace

TEST(RtlCosim, RequantBesideTheNextMatmulOnRtl8x8) {
  isa::HwConfig cfg = preset("rtl-8x8");
  ASSERT_EQ(cfg.vector.requantOverlap, 1u);
  MachineState init = randomState(cfg, 1 << 16, 11);
  setScales(init, 8, 0.001f);
  for (size_t i = 0; i < 8192; ++i)
    init.scratchpad[i] = uint8_t(i * 13 + 5);
  std::vector<Instruction> prog = overlappedTiles(256);
  MachineState rs = init;
  auto r = runRtl(prog, cfg, rs);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_FALSE(r->fault) << r->fault->message();
  const auto &in = r->stats.instructions;
  uint64_t want[4][2] = {{0, 39}, {39, 58}, {40, 79}, {79, 98}};
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(in[i].start, want[i][0]) << "#" << i;
    EXPECT_EQ(in[i].end, want[i][1]) << "#" << i;
  }
  EXPECT_EQ(r->stats.totalCycles, 98u);
  expectSameRun(prog, cfg, init, "overlapped tiles");
  // The second MATMUL writing ACC [8, 135] while the first REQUANT reads
  // [0, 127]: a post-processor hazard at its issue, cycle 40, in both.
  MachineState hs = init;
  auto h = runRtl(overlappedTiles(8), cfg, hs);
  ASSERT_TRUE(bool(h)) << llvm::toString(h.takeError());
  ASSERT_TRUE(h->fault);
  EXPECT_EQ(h->fault->kind, FaultKind::PostProcessorHazard);
  EXPECT_EQ(h->fault->instruction, 2u);
  EXPECT_EQ(h->fault->cycle, 40u);
  expectSameRun(overlappedTiles(8), cfg, init, "hazard", /*sameFault=*/true);
}

// A fused residual add's VADD on the post-processor (vector.requant_overlap,
// docs/isa.md §3) through the RTL (rtl-8x8: lanes 8, P 3, 16 KiB banks).
// MATMUL 0-39 and REQUANT 39-58 as above; VADD of 16 x 8 elements in place
// over the REQUANT's output (A at 8192, bank 0; B at 20480, bank 1: no
// conflict), 128 / 8 + 3 = 19 cycles, issues when the post-processor is
// free, 58-77; the next MATMUL issues beside it at 59 (one issue per cycle),
// 59-98. Before VADD ran on the post-processor it held the compute queue:
// the MATMUL started at 77 and ended at 116.
namespace {
std::vector<Instruction> residualTile(uint64_t secondA) {
  Instruction v(Opcode::Vadd);
  v.with(isa::Field::Vadd_mode, isa::AddMode_fma)
      .with(isa::Field::Vadd_lo, -128)
      .with(isa::Field::Vadd_hi, 127)
      .with(isa::Field::Vadd_a_addr, 8192)
      .with(isa::Field::Vadd_b_addr, 20480)
      .with(isa::Field::Vadd_o_addr, 8192)
      .with(isa::Field::Vadd_n0, 8)
      .with(isa::Field::Vadd_n1, 16)
      .with(isa::Field::Vadd_a_s1, 8)
      .with(isa::Field::Vadd_b_s1, 8)
      .with(isa::Field::Vadd_o_s1, 8);
  v.setF32(isa::Field::Vadd_ratio_a, 0.75f);
  v.setF32(isa::Field::Vadd_ratio_b, 0.5f);
  v.setF32(isa::Field::Vadd_fixed, 3.0f);
  return {matmul(isa::Dataflow_ws, 16, 8, 8, true, 0, 4096, 0),
          tileRequant(0, 8192), v,
          matmul(isa::Dataflow_ws, 16, 8, 8, true, secondA, 4096, 256), end()};
}
} // namespace

TEST(RtlCosim, ResidualVaddBesideTheNextMatmulOnRtl8x8) {
  isa::HwConfig cfg = preset("rtl-8x8");
  ASSERT_EQ(cfg.vector.requantOverlap, 1u);
  MachineState init = randomState(cfg, 1 << 16, 12);
  setScales(init, 8, 0.001f);
  std::vector<Instruction> prog = residualTile(1024);
  MachineState rs = init;
  auto r = runRtl(prog, cfg, rs);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_FALSE(r->fault) << r->fault->message();
  const auto &in = r->stats.instructions;
  uint64_t want[4][2] = {{0, 39}, {39, 58}, {58, 77}, {59, 98}};
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(in[i].start, want[i][0]) << "#" << i;
    EXPECT_EQ(in[i].end, want[i][1]) << "#" << i;
  }
  EXPECT_EQ(r->stats.totalCycles, 98u);
  expectSameRun(prog, cfg, init, "VADD beside a MATMUL");
  // The MATMUL reading A at 8192, which the running VADD writes: a
  // post-processor hazard at its issue, cycle 59, in both models.
  MachineState hs = init;
  auto h = runRtl(residualTile(8192), cfg, hs);
  ASSERT_TRUE(bool(h)) << llvm::toString(h.takeError());
  ASSERT_TRUE(h->fault);
  EXPECT_EQ(h->fault->kind, FaultKind::PostProcessorHazard);
  EXPECT_EQ(h->fault->instruction, 3u);
  EXPECT_EQ(h->fault->cycle, 59u);
  EXPECT_NE(h->fault->detail.find("VADD writes SP"), std::string::npos)
      << h->fault->detail;
  expectSameRun(residualTile(8192), cfg, init, "VADD hazard",
                /*sameFault=*/true);
}

// Column slices of one accumulator tile through the RTL (rtl-8x8, three
// in flight; docs/isa.md §6): WS M=16 K=8 N=8 with preload, 8 + 16 + 15 =
// 39 cycles. #0 writes columns 0-7 of a 16-wide tile (row pitch 16), #1
// columns 8-15: #1 streams at max(rows 0 + 8 + 16 - 8, shadow 0 + 8) = 16,
// 16-55 (it waited for #0, 39-78, before the rule knew slices); the
// REQUANT of the whole tile, 16 x ceil(16 / 8) + 3 = 35 cycles, waits for
// the array, 55-90.
TEST(RtlCosim, ColumnSlicesInFlightOnRtl8x8) {
  isa::HwConfig cfg = preset("rtl-8x8");
  ASSERT_EQ(cfg.array.matmulInflight, 3u);
  MachineState init = randomState(cfg, 1 << 16, 15);
  setScales(init, 16, 0.0005f);
  Instruction a = matmul(isa::Dataflow_ws, 16, 8, 8, true, 0, 4096, 0);
  Instruction b = matmul(isa::Dataflow_ws, 16, 8, 8, true, 0, 4608, 8);
  a.with(isa::Field::Matmul_c_stride, 16);
  b.with(isa::Field::Matmul_c_stride, 16);
  Instruction rq = tileRequant(0, 8192);
  rq.with(isa::Field::Requant_n, 16)
      .with(isa::Field::Requant_c_stride, 16)
      .with(isa::Field::Requant_o_stride, 16);
  std::vector<Instruction> prog = {a, b, rq, end()};
  MachineState rs = init;
  auto r = runRtl(prog, cfg, rs);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_FALSE(r->fault) << r->fault->message();
  uint64_t want[3][2] = {{0, 39}, {16, 55}, {55, 90}};
  for (unsigned i = 0; i < 3; ++i) {
    EXPECT_EQ(r->stats.instructions[i].start, want[i][0]) << "#" << i;
    EXPECT_EQ(r->stats.instructions[i].end, want[i][1]) << "#" << i;
  }
  EXPECT_EQ(r->stats.totalCycles, 90u);
  expectSameRun(prog, cfg, init, "column slices in flight");
}

// array.matmul_inflight = 3 through the RTL (rtl-8x8: R = C = 8), every
// start and end hand-derived from docs/isa.md §6 ("MATMULs in flight"):
// WS with preload takes 8 + M + 15 cycles, a reuse M + 15, OS K + 22.
//   #0 WS M=4 preload, C at 0:     0-27
//   #1 WS M=4 preload, C at 64:    max(rows 0 + 8 + 4 - 8 = 4,
//      shadow 0 + R = 8) = 8, 8-35 (the weights rule alone: the
//      preload's columns latch at 8 + 7 + j, after #0's switch bit left
//      PE(7, j) at 0 + 8 + 7 + j; an unskewed latch had to wait R + C - 1)
//   #2 WS M=20 reuse, C at 128:    8 + 8 + 4 - 0 = 20, 20-55
//   #3 WS M=4 preload, C at 0 (#0's tile): max(20 + 0 + 20 - 8 = 32,
//      shadow 8 + 8 = 16, three in the array: #0's end 27) = 32, 32-59
//   #4 OS M=8 K=8 N=8 (A and B in different banks): the array drains
//      first, 59-89.
// One at a time the same program takes 27 + 27 + 35 + 27 + 30 = 146.
TEST(RtlCosim, MatmulsInFlightOnRtl8x8) {
  isa::HwConfig cfg = preset("rtl-8x8");
  ASSERT_EQ(cfg.array.matmulInflight, 3u);
  Instruction os = matmul(isa::Dataflow_os, 8, 8, 8, false, 0, 20000, 256);
  isa::setBankConflictFlag(os, cfg);
  ASSERT_FALSE(os.getFlag(isa::Field::Matmul_bank_conflict));
  std::vector<Instruction> prog = {
      matmul(isa::Dataflow_ws, 4, 8, 8, true, 0, 4096, 0),
      matmul(isa::Dataflow_ws, 4, 8, 8, true, 256, 4608, 64),
      matmul(isa::Dataflow_ws, 20, 8, 8, false, 512, 4608, 128),
      matmul(isa::Dataflow_ws, 4, 8, 8, true, 1024, 5120, 0),
      os,
      end()};
  MachineState init = randomState(cfg, 1 << 16, 13);
  MachineState rs = init;
  auto r = runRtl(prog, cfg, rs);
  ASSERT_TRUE(bool(r)) << llvm::toString(r.takeError());
  ASSERT_FALSE(r->fault) << r->fault->message();
  uint64_t want[5][2] = {{0, 27}, {8, 35}, {20, 55}, {32, 59}, {59, 89}};
  for (unsigned i = 0; i < 5; ++i) {
    EXPECT_EQ(r->stats.instructions[i].start, want[i][0]) << "#" << i;
    EXPECT_EQ(r->stats.instructions[i].end, want[i][1]) << "#" << i;
  }
  EXPECT_EQ(r->stats.totalCycles, 89u);
  expectSameRun(prog, cfg, init, "matmuls in flight");
  cfg.array.matmulInflight = 1;
  MachineState cs = init;
  EXPECT_EQ(runCycleAccurate(prog, cfg, cs).stats.totalCycles, 146u);
}
