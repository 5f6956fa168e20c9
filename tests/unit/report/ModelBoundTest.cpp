//===- ModelBoundTest.cpp - The one bound, energy and area by hand --------===//
//
// The model bound of hand-built programs (MACs, PEs, compulsory bytes and
// bandwidth -> bound worked out in the comments), the energy of a tiny run
// priced by the report path (a preset) and the sweep path (the sweep's
// derived config for the preset's own point), and the PE array area from
// the project's synthesis results.
//
//===----------------------------------------------------------------------===//
#include "SimTestUtil.h"

#include "systole/Runtime/Analysis.h"
#include "systole/Runtime/ModelBound.h"
#include "systole/Runtime/Sweep.h"

#include "llvm/Support/FileSystem.h"

using namespace systole;
using namespace systole::rt;
using namespace systole::sim::test;

namespace {

isa::TensorDesc tensor(const char *name, isa::TensorKind kind, uint64_t bytes) {
  isa::TensorDesc t;
  t.name = name;
  t.kind = kind;
  t.dtype = isa::DType::Int8;
  t.shape = {int64_t(bytes)};
  t.sizeBytes = bytes;
  return t;
}

isa::Program fcProgram(const isa::HwConfig &cfg) {
  isa::Program p;
  p.config = cfg;
  // A 2048 -> 1000 FC: 2,048,000 MACs on the NPU; a host op's MACs do not
  // count (the host is not the NPU's work).
  p.placement.push_back({"/fc/Gemm", "graph.matmul", false, 2048000, "", ""});
  p.placement.push_back({"/host/MatMul", "MatMul", true, 777, "float", ""});
  p.tensors.push_back(tensor("input", isa::TensorKind::Input, 2048));
  p.tensors.push_back(tensor("output", isa::TensorKind::Output, 1000));
  // Intermediates may stay on chip: not compulsory.
  p.tensors.push_back(tensor("act", isa::TensorKind::Intermediate, 999999));
  isa::ConstantSegment w, b;
  w.data.resize(2048000); // int8 weights
  b.data.resize(4000);    // int32 bias
  p.constants = {w, b};
  return p;
}

TEST(ModelBound, FullyConnectedIsMemoryBound) {
  ModelBound b = modelBound(fcProgram(preset("default-32x32")));
  EXPECT_EQ(b.macs, 2048000u);
  EXPECT_EQ(b.pes, 1024u);
  EXPECT_EQ(b.inputBytes, 2048u);
  EXPECT_EQ(b.constantBytes, 2052000u);
  EXPECT_EQ(b.outputBytes, 1000u);
  EXPECT_EQ(b.compulsoryBytes(), 2055048u);
  // max(2,048,000 / 1024, 2,055,048 / 16) = max(2000, 128,440.5).
  EXPECT_DOUBLE_EQ(b.computeCycles, 2000.0);
  EXPECT_DOUBLE_EQ(b.memoryCycles, 128440.5);
  EXPECT_DOUBLE_EQ(b.cycles, 128440.5);
  EXPECT_FALSE(b.computeBound);
  EXPECT_DOUBLE_EQ(b.ratio(256881), 2.0);
}

// Tables and channel-gather matrices the compiler derives are not the
// model's: segments named isa::kDerivedConstantsName leave the bound's
// compulsory bytes (the FC above plus a 64 KiB per-channel table).
TEST(ModelBound, DerivedConstantsAreNotCompulsory) {
  isa::Program p = fcProgram(preset("default-32x32"));
  isa::ConstantSegment t;
  t.name = isa::kDerivedConstantsName;
  t.data.resize(65536);
  p.constants.push_back(t);
  ModelBound b = modelBound(p);
  EXPECT_EQ(b.constantBytes, 2052000u); // 2,048,000 + 4,000, not + 65,536
  EXPECT_EQ(b.compulsoryBytes(), 2055048u);
  // A segment of another name counts.
  p.constants.back().name = "weights";
  EXPECT_EQ(modelBound(p).constantBytes, 2052000u + 65536u);
}

TEST(ModelBound, WideDramMakesItComputeBound) {
  isa::HwConfig cfg = preset("default-32x32");
  cfg.dram.bytesPerCycle = 2048;
  ModelBound b = modelBound(fcProgram(cfg));
  // max(2000, 2,055,048 / 2048 = 1003.4)
  EXPECT_DOUBLE_EQ(b.memoryCycles, 2055048.0 / 2048);
  EXPECT_DOUBLE_EQ(b.cycles, 2000.0);
  EXPECT_TRUE(b.computeBound);
}

TEST(ModelBound, WithoutPlacementCountsTheInstructions) {
  // A format 1.0 binary has no placement: the MACs of its MATMULs count.
  isa::Program p;
  p.config = preset("tiny-4x4");
  isa::Segment s;
  s.name = "npu0";
  s.body = isa::NpuSegment{{matmul(0, 8, 16, 4, true), end()}};
  p.segments.push_back(s);
  ModelBound b = modelBound(p);
  EXPECT_EQ(b.macs, 8u * 16 * 4); // 512
  EXPECT_DOUBLE_EQ(b.computeCycles, 512.0 / 16);
  EXPECT_DOUBLE_EQ(b.cycles, 32.0); // no compulsory bytes
  EXPECT_TRUE(b.computeBound);
}

/// analyzeRun of the estimate of a LOAD of 128 B and a STORE of 64 B.
ModelAnalysis tinyRun(const isa::HwConfig &cfg) {
  isa::Program p;
  p.config = cfg;
  p.tensors.push_back(tensor("input", isa::TensorKind::Input, 128));
  p.tensors.back().dramOffset = 0;
  p.tensors.push_back(tensor("output", isa::TensorKind::Output, 64));
  p.tensors.back().dramOffset = 128;
  p.memoryPlan.dramSize = 192;
  p.memoryPlan.regions.push_back({"io", isa::RegionKind::IO, 0, 192});
  isa::Segment s;
  s.name = "npu0";
  s.body = isa::NpuSegment{{dma(isa::Opcode::Load, 0, 0, 128),
                            dma(isa::Opcode::Store, 128, 0, 64), end()}};
  p.segments.push_back(s);
  auto model = Model::loadBytes(isa::writeProgram(p));
  EXPECT_TRUE(bool(model)) << llvm::toString(model.takeError());
  if (!model)
    return {};
  return analyzeRun(estimateRun(**model), **model, "tiny", "estimate");
}

TEST(Energy, ReportAndSweepPriceTheSameHardwareAlike) {
  // Report path: the preset as compiled into the .npu.
  isa::HwConfig base = preset("tiny-4x4");
  ModelAnalysis report = tinyRun(base);
  // 128 + 64 DRAM bytes x 160 pJ; 128 SP bytes written + 64 read x 1.768
  // pJ/B (tiny-4x4's 16 KiB scratchpad on the curve).
  EXPECT_DOUBLE_EQ(report.energy.dram, 192 * 160.0);
  EXPECT_DOUBLE_EQ(report.energy.scratchpad, 192 * 1.768);
  EXPECT_DOUBLE_EQ(report.energy.total(), 192 * 160.0 + 192 * 1.768);

  // Sweep path: the sweep's derived config of the preset's own point.
  SweepSpec spec;
  spec.base = base;
  spec.arrays = {{base.array.rows, base.array.cols}};
  spec.scratchpadBytes = {base.sram.scratchpadBytes};
  spec.dramBytesPerCycle = {base.dram.bytesPerCycle};
  auto cfg = sweepPointConfig(spec, sweepPoint(spec, 0));
  ASSERT_TRUE(bool(cfg)) << llvm::toString(cfg.takeError());
  ModelAnalysis sweep = tinyRun(*cfg);
  EXPECT_EQ(sweep.totalCycles, report.totalCycles);
  EXPECT_EQ(sweep.energy.total(), report.energy.total());
  EXPECT_EQ(sweep.energy.scratchpad, report.energy.scratchpad);
  EXPECT_EQ(sweep.energy.accumulator, report.energy.accumulator);
  // And the one bound: max(0 / 16, (128 + 64) B / 4 B/cycle) = 48 cycles
  // (tiny-4x4 moves 4 B per cycle).
  EXPECT_DOUBLE_EQ(report.bound.cycles, 48.0);
  EXPECT_DOUBLE_EQ(report.roof.boundCycles, 48.0);
  EXPECT_EQ(sweep.bound.cycles, report.bound.cycles);
}

TEST(Energy, PresetSramPricesLieOnTheCapacityCurve) {
  for (const char *name : {"tiny-4x4", "rtl-8x8", "edge-16x16", "default-32x32",
                           "datacenter-128x128"}) {
    isa::HwConfig c = preset(name);
    EXPECT_NEAR(c.energy.spReadPjPerByte, sramPjPerByte(c.sram.scratchpadBytes),
                1e-3)
        << name;
    EXPECT_NEAR(c.energy.accReadPjPerWord,
                4 * sramPjPerByte(c.sram.accumulatorBytes), 1e-3)
        << name;
  }
}

TEST(Area, PeArrayFromTheSynthesisResults) {
  std::string table = defaultAreaTable();
  ASSERT_TRUE(llvm::StringRef(table).ends_with("rtl/synth/pe_array_area.json"))
      << table;
  // tiny-4x4 (one weight register) was synthesized: 23,764.8 um^2.
  auto t = estimateArea(preset("tiny-4x4"), table);
  ASSERT_TRUE(bool(t)) << llvm::toString(t.takeError());
  EXPECT_NEAR(t->arrayMm2, 23764.8 / 1e6, 1e-12);
  // rtl-8x8 (matmul_inflight 3: the double-buffered PE) was synthesized
  // too: 103,091.0 um^2 for its 64 PEs, not the single-register 98,229.7.
  ASSERT_GT(preset("rtl-8x8").array.matmulInflight, 1u);
  auto a = estimateArea(preset("rtl-8x8"), table);
  ASSERT_TRUE(bool(a)) << llvm::toString(a.takeError());
  EXPECT_NEAR(a->arrayMm2, 103091.0 / 1e6, 1e-12);
  // 32x32 was not: 103,091.0 / 64 = 1610.8 um^2 per double-buffered PE x
  // 1024 PEs, 2.53x the model's 636.96 um^2.
  auto b = estimateArea(preset("default-32x32"), table);
  ASSERT_TRUE(bool(b)) << llvm::toString(b.takeError());
  EXPECT_NEAR(b->arrayMm2, 103091.0 / 64 * 1024 / 1e6, 1e-12);
  EXPECT_NEAR(b->sramMm2, 786432 * 5.536 / 1e6, 1e-9); // SRAM: the model
  EXPECT_NE(b->source.find("per PE of 8x8"), std::string::npos);
  // matmul_inflight = 1: the single-register PE's 98,229.7 / 64 per PE.
  isa::HwConfig single = preset("default-32x32");
  single.array.matmulInflight = 1;
  auto c = estimateArea(single, table);
  ASSERT_TRUE(bool(c)) << llvm::toString(c.takeError());
  EXPECT_NEAR(c->arrayMm2, 98229.7 / 64 * 1024 / 1e6, 1e-12);
}

TEST(Area, MalformedSynthesisTableIsAnError) {
  llvm::SmallString<64> path;
  int fd;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("area", "json", fd, path));
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << R"([{"rows": 8, "cols": 8}])";
  }
  auto a = estimateArea(preset("rtl-8x8"), path);
  ASSERT_FALSE(bool(a));
  EXPECT_NE(llvm::toString(a.takeError()).find("area_um2_45nm"),
            std::string::npos);
  llvm::sys::fs::remove(path);
}

} // namespace
