//===- SweepTest.cpp - Sweep axes, derived configs, area, Pareto front ----===//
#include "SimTestUtil.h"

#include "systole/Runtime/Analysis.h"
#include "systole/Runtime/Sweep.h"

using namespace systole;
using namespace systole::rt;
using namespace systole::sim::test;

namespace {

TEST(Sweep, ParsesAxes) {
  auto a = parseArrayList("8x8,16x32");
  ASSERT_TRUE(bool(a));
  EXPECT_EQ((*a)[1], std::make_pair(uint64_t(16), uint64_t(32)));
  auto s = parseSizeList("256K,1M,4096,2MiB");
  ASSERT_TRUE(bool(s));
  EXPECT_EQ(*s, (std::vector<uint64_t>{262144, 1048576, 4096, 2097152}));
  EXPECT_FALSE(bool(parseArrayList("8by8")));
  llvm::consumeError(parseArrayList("8by8").takeError());
  auto bad = parseSizeList("0");
  EXPECT_FALSE(bool(bad));
  llvm::consumeError(bad.takeError());
}

TEST(Sweep, PointsAndDerivedConfigs) {
  SweepSpec spec;
  spec.base = preset("default-32x32");
  spec.arrays = {{8, 8}, {64, 64}};
  spec.scratchpadBytes = {256 * 1024, 2 * 1024 * 1024};
  spec.dramBytesPerCycle = {8, 32, 128};
  ASSERT_EQ(spec.size(), 12u);
  SweepPoint p = sweepPoint(spec, 10); // array 1, sram 1, bw 1
  EXPECT_EQ(p.rows, 64u);
  EXPECT_EQ(p.scratchpadBytes, 2u * 1024 * 1024);
  EXPECT_EQ(p.dramBytesPerCycle, 32u);
  auto c = sweepPointConfig(spec, sweepPoint(spec, 11));
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  EXPECT_EQ(c->vector.lanes, 64u);
  EXPECT_EQ(c->sram.accumulatorBytes, 1024u * 1024);
  EXPECT_EQ(c->dram.burstBytes, 128u); // widened to the bandwidth
  // The base's 9.06 pJ/B (512 KiB) moved along the curve to 2 MiB; the
  // preset lies on the curve (to 4 digits), so this is f(2 MiB) = 17.25.
  EXPECT_DOUBLE_EQ(c->energy.spReadPjPerByte,
                   9.06 * sramPjPerByte(2 << 20) / sramPjPerByte(512 << 10));
  EXPECT_NEAR(c->energy.spReadPjPerByte, sramPjPerByte(2 << 20), 1e-3);
  auto round = sweepSpecFromJson(sweepSpecToJson(spec));
  ASSERT_TRUE(bool(round));
  EXPECT_EQ(round->size(), 12u);
  EXPECT_EQ(round->arrays, spec.arrays);
}

TEST(Sweep, AreaModel) {
  isa::HwConfig c = preset("default-32x32");
  auto a = estimateArea(c);
  ASSERT_TRUE(bool(a));
  // 1024 PEs x (282 + 137 + 48 x 4.52) um^2; 768 KiB x 5.536 um^2/B; 32
  // lanes x 11,884 um^2 plus the depthwise engine's 32 x (5 - 1) extra MACs
  // (vector.dwconv_taps = 5) at a PE's area; 0.1 mm^2.
  const double pe = 282 + 137 + 48 * 4.52;
  EXPECT_NEAR(a->arrayMm2, 1024 * pe / 1e6, 1e-9);
  EXPECT_NEAR(a->sramMm2, 786432 * 5.536 / 1e6, 1e-9);
  EXPECT_NEAR(a->vectorMm2, (32 * 11884 + 32 * 4 * pe) / 1e6, 1e-9);
  EXPECT_NEAR(a->totalMm2, a->arrayMm2 + a->sramMm2 + a->vectorMm2 + 0.1, 1e-9);
  EXPECT_EQ(a->source, "model");
}

TEST(Sweep, ParetoFrontOfThreeObjectives) {
  auto pt = [](double t, double e, double a, const char *status = "ok") {
    PointResult r;
    r.timeUs = t;
    r.energyPj = e;
    r.areaMm2 = a;
    r.status = status;
    return r;
  };
  std::vector<PointResult> rs = {pt(1, 10, 5),
                                 pt(2, 5, 5),
                                 pt(2, 10, 5),
                                 pt(3, 3, 1),
                                 pt(0.5, 1, 0.1, "infeasible"),
                                 pt(1, 10, 5)};
  markParetoFront(rs);
  EXPECT_TRUE(rs[0].pareto);
  EXPECT_TRUE(rs[1].pareto);
  EXPECT_FALSE(rs[2].pareto); // dominated by 0 and 1
  EXPECT_TRUE(rs[3].pareto);
  EXPECT_FALSE(rs[4].pareto); // not mapped
  EXPECT_TRUE(rs[5].pareto);  // equal to 0: neither dominates
}

} // namespace
