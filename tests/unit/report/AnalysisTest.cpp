//===- AnalysisTest.cpp - Roofline, energy and cycle breakdown ------------===//
#include "SimTestUtil.h"

#include "systole/Runtime/Analysis.h"

using namespace systole;
using namespace systole::rt;
using namespace systole::sim::test;

namespace {

TEST(Roofline, ConvLayerByHand) {
  // 3x3 conv 56x56x64 -> 64: 56*56*64*64*9 = 115,605,504 MACs; int8 input
  // 56*56*64 = 200,704 B, weights 36,864 B, output 200,704 B: 438,272 B.
  isa::HwConfig cfg = preset("default-32x32"); // 1024 MACs/cycle, 16 B/cycle
  sim::ActionCounts a;
  a.macs = 115605504;
  a.dramReadBytes = 200704 + 36864;
  a.dramWriteBytes = 200704;
  RooflinePoint p = roofline(a, 150000, cfg);
  EXPECT_FALSE(p.vector);
  EXPECT_DOUBLE_EQ(p.intensity, 115605504.0 / 438272.0); // 263.8 MACs/B
  EXPECT_DOUBLE_EQ(p.ridge(), 64.0);                     // 1024 / 16
  EXPECT_TRUE(p.computeBound);
  EXPECT_DOUBLE_EQ(p.attainable, 1024.0);
  EXPECT_DOUBLE_EQ(p.boundCycles, 115605504.0 / 1024); // 112,896
  EXPECT_DOUBLE_EQ(p.achieved, 115605504.0 / 150000);
}

TEST(Roofline, FullyConnectedIsMemoryBound) {
  // FC 2048 -> 1000, batch 1: 2,048,000 MACs over 2,048,000 weight bytes +
  // 2048 in + 1000 out.
  isa::HwConfig cfg = preset("default-32x32");
  sim::ActionCounts a;
  a.macs = 2048000;
  a.dramReadBytes = 2048000 + 2048;
  a.dramWriteBytes = 1000;
  RooflinePoint p = roofline(a, 200000, cfg);
  EXPECT_FALSE(p.computeBound);
  double ai = 2048000.0 / 2051048.0;
  EXPECT_DOUBLE_EQ(p.attainable, ai * 16);
  EXPECT_DOUBLE_EQ(p.boundCycles, 2051048.0 / 16); // 128,190.5
}

TEST(Roofline, VectorLayersUseTheLanes) {
  isa::HwConfig cfg = preset("default-32x32");
  sim::ActionCounts a;
  a.vectorOps = 3200;
  a.dramReadBytes = 6400;
  a.dramWriteBytes = 3200;
  RooflinePoint p = roofline(a, 500, cfg);
  EXPECT_TRUE(p.vector);
  EXPECT_DOUBLE_EQ(p.peakOpsPerCycle, 32.0);
  EXPECT_DOUBLE_EQ(p.boundCycles, 9600.0 / 16);
  EXPECT_FALSE(p.computeBound);
}

TEST(Energy, ComponentsAddUpToTheSimulatorsTotal) {
  isa::HwConfig cfg = preset("default-32x32");
  cfg.energy.leakagePjPerCycle = 2.0;
  sim::RunStats st;
  st.totalCycles = 1000;
  st.actions.macs = 1000000;
  st.actions.vectorMacs = 500;
  st.actions.vectorOps = 2000;
  st.actions.spReadBytes = 30000;
  st.actions.spWriteBytes = 10000;
  st.actions.accReadWords = 4000;
  st.actions.accWriteWords = 8000;
  st.actions.dramReadBytes = 20000;
  st.actions.dramWriteBytes = 5000;
  EnergyBreakdown e = energyOf(st.actions, st.totalCycles, cfg);
  EXPECT_DOUBLE_EQ(e.array, 0.3 * 1000000);
  EXPECT_DOUBLE_EQ(e.vector, 0.3 * 500 + 4.6 * 2000);
  // The preset's SRAM prices lie on sramPjPerByte's curve: 512 KiB SP ->
  // 9.06 pJ/B, 256 KiB ACC -> 4 x 6.566 = 26.265 pJ/word (docs/energy.md).
  EXPECT_DOUBLE_EQ(e.scratchpad, 9.06 * 40000);
  EXPECT_DOUBLE_EQ(e.accumulator, 26.265 * 12000);
  EXPECT_DOUBLE_EQ(e.dram, 160.0 * 25000);
  EXPECT_DOUBLE_EQ(e.leakage, 2000.0);
  EXPECT_NEAR(e.total(), st.energyPj(cfg), 1e-6);
}

TEST(Energy, SramEnergyFollowsHorowitzByCapacity) {
  EXPECT_NEAR(sramPjPerByte(8 * 1024), 10.0 / 8, 1e-12);
  EXPECT_NEAR(sramPjPerByte(32 * 1024), 20.0 / 8, 1e-12);
  EXPECT_NEAR(sramPjPerByte(1024 * 1024), 100.0 / 8, 1e-12);
  EXPECT_GT(sramPjPerByte(4 << 20), sramPjPerByte(1 << 20));
  EXPECT_LT(sramPjPerByte(2048), sramPjPerByte(8192));
}

TEST(CycleBreakdown, ComputeBeforeDmaBeforeStall) {
  // LOAD channel 0-10 (done 30), MATMUL 30-50, STORE channel 45-60 (done
  // 80): compute 20, DMA only 10 + 10 = 20, stall 80 - 40 = 40.
  std::vector<Instruction> s = {dma(Opcode::Load, 0, 0, 64),
                                matmul(isa::Dataflow_ws, 4, 4, 4, true),
                                dma(Opcode::Store, 0, 0, 64)};
  std::vector<sim::InstructionRecord> r(3);
  r[0] = {0, 0, 30, 0, 10, 0, 0, true};
  r[1] = {1, 30, 50, 0, 0, 0, 0, true};
  r[2] = {2, 40, 80, 45, 60, 5, 0, true};
  CycleBreakdown b = cycleBreakdown(s, r, 0, 3, 0, 80);
  EXPECT_EQ(b.compute, 20u);
  EXPECT_EQ(b.dma, 20u);
  EXPECT_EQ(b.stall, 40u);
  EXPECT_EQ(b.tokenWait, 5u);
}

} // namespace
