//===- BinaryTest.cpp - Every field of the .npu format round-trips --------===//
#include "TestUtil.h"

#include "systole/ISA/Verifier.h"

#include "llvm/Support/FileSystem.h"

using namespace systole::isa;
using namespace systole::isa::test;

TEST(Binary, SampleProgramIsValid) {
  Program p = sampleProgram();
  EXPECT_EQ(errorText(verifyProgram(p)), "");
}

TEST(Binary, EveryFieldRoundTrips) {
  Program p = sampleProgram();
  // Unusual but legal values in every field.
  p.config.energy.leakagePjPerCycle = 12.5;
  p.config.array.os = false;
  p.config.clockMhz = 123.456;
  p.config.vector.dwconvTaps = 5;
  p.tensors[3].quant = QuantParams{{-0.0f + 1e-30f}, {}, -1};
  p.constants.push_back({"empty", 8192, {}});
  p.segments.push_back(
      {"ptx", HostSegment{HostCodeKind::Ptx, "k", {'.', 'v'}, {}}});
  // A cpu_object entry in the program's host library (format 1.3).
  p.segments.push_back(
      {"lib", HostSegment{HostCodeKind::CpuObject, "in_lib", {}, {2}}});
  p.hostLibrary = {0x7f, 'E', 'L', 'F', 0};
  p.placement = {{"/conv/Conv", "conv2d", false, 1ull << 40, "", ""},
                 {"", "Einsum", true, 0, "no NPU lowering for this op",
                  "dynamic loop bounds: MACs not derivable"}};
  std::vector<uint8_t> bytes = writeProgram(p);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(bytes.data()) + 4, 4),
            "SNPU");
  auto back = readProgram(bytes);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_TRUE(*back == p);
  EXPECT_EQ(back->producer, "unit-test");
  EXPECT_EQ(back->versionMajor, kFormatMajor);
  EXPECT_EQ(back->versionMinor, kFormatMinor);
  EXPECT_EQ(hwConfigToJsonText(back->config), hwConfigToJsonText(p.config));
  EXPECT_EQ(back->tensors[1].quant->axis, 1);
  EXPECT_EQ(back->segments[1].host().args, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(back->layers[1].firstInstruction, 4u);
  EXPECT_EQ(back->placement[0].macs, 1ull << 40);
  EXPECT_TRUE(back->placement[1].onHost);
  EXPECT_EQ(back->hostLibrary, p.hostLibrary);
  EXPECT_EQ(cpuObjectCode(*back, back->segments.back().host()).size(), 5u);
  EXPECT_EQ(cpuObjectCode(*back, back->segments[1].host()).size(),
            p.segments[1].host().code.size());
  // Writing what was read gives the same bytes.
  EXPECT_EQ(writeProgram(*back), bytes);
}

// One DWCONV tap per cycle is the absent field: a config that does not set
// vector.dwconv_taps writes the bytes it wrote before the field existed, and
// reads back as 1.
TEST(Binary, OneDwconvTapIsTheAbsentField) {
  Program p = sampleProgram();
  ASSERT_EQ(p.config.vector.dwconvTaps, 1u);
  std::vector<uint8_t> one = writeProgram(p);
  p.config.vector.dwconvTaps = 2;
  std::vector<uint8_t> two = writeProgram(p);
  // The field costs one vtable slot and one 8-byte value (with alignment).
  EXPECT_GT(two.size(), one.size());
  auto back = readProgram(one);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_EQ(back->config.vector.dwconvTaps, 1u);
  auto backTwo = readProgram(two);
  ASSERT_TRUE(bool(backTwo)) << llvm::toString(backTwo.takeError());
  EXPECT_EQ(backTwo->config.vector.dwconvTaps, 2u);
}

TEST(Binary, FileRoundTrip) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("isa-test", "npu", path));
  Program p = sampleProgram();
  ASSERT_EQ(errorText(writeProgramFile(p, path)), "");
  auto back = readProgramFile(path);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_TRUE(*back == p);
  llvm::sys::fs::remove(path);
  auto missing = readProgramFile(path);
  EXPECT_NE(errorText(missing).find("cannot read"), std::string::npos);
}

TEST(Binary, RejectsWrongIdentifierAndVersion) {
  std::vector<uint8_t> bytes = writeProgram(sampleProgram());
  std::vector<uint8_t> wrongId = bytes;
  wrongId[4] = 'X';
  auto r = readProgram(wrongId);
  EXPECT_EQ(errorText(r), "not a .npu file: file identifier is not \"SNPU\"");

  Program p = sampleProgram();
  p.versionMajor = 2;
  p.versionMinor = 0;
  auto v = readProgram(writeProgram(p));
  EXPECT_EQ(errorText(v),
            "version: format 2.0 is not supported (this reader reads 1.x)");
  p.versionMajor = kFormatMajor;
  p.versionMinor = 7; // newer minor: compatible additions, accepted
  EXPECT_TRUE(bool(readProgram(writeProgram(p))));

  auto tiny = readProgram(std::vector<uint8_t>{1, 2, 3});
  EXPECT_EQ(errorText(tiny), "not a .npu file: 3 bytes is too short");
}

TEST(Binary, ConfigInsideBinaryIsValidated) {
  Program p = sampleProgram();
  p.config.sram.scratchpadBanks = 3;
  auto r = readProgram(writeProgram(p));
  EXPECT_EQ(errorText(r), "config.sram.scratchpad_banks: must be a power of "
                          "two dividing scratchpad_bytes");
}
