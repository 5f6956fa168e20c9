//===- AssemblyTest.cpp - Text form of programs
//----------------------------===//
#include "TestUtil.h"

#include "systole/ISA/Assembly.h"

using namespace systole::isa;
using namespace systole::isa::test;

TEST(Assembly, ProgramRoundTripsThroughText) {
  Program p = sampleProgram();
  std::string text = printProgramAsm(p);
  auto back = parseProgramAsm(text, p.config, "sample.s");
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_TRUE(*back == p);
  EXPECT_EQ(printProgramAsm(*back), text);
}

TEST(Assembly, HostLibraryRoundTripsThroughText) {
  Program p = sampleProgram();
  std::get<HostSegment>(p.segments[1].body).code.clear();
  p.hostLibrary = {0x7f, 'E', 'L', 'F', 0x02};
  std::string text = printProgramAsm(p);
  EXPECT_NE(text.find(".host_library 7f454c4602\n"), std::string::npos);
  auto back = parseProgramAsm(text, p.config, "lib.s");
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_TRUE(*back == p);
}

TEST(Assembly, SpecialFloatsRoundTripBitExactly) {
  Instruction V(Opcode::Vadd);
  for (uint32_t bits : {0x80000000u, 0x7fc00001u, 0xff800000u, 0x00000001u,
                        0x3f800000u, 0x3e99999au}) {
    V.setRaw(Field::Vadd_fixed, bits);
    auto back = parseInstruction(printInstruction(V));
    ASSERT_TRUE(bool(back)) << printInstruction(V);
    EXPECT_EQ(back->raw(Field::Vadd_fixed), bits) << printInstruction(V);
  }
}

TEST(Assembly, CommentsBlankLinesAndImplicitSegment) {
  HwConfig cfg = preset("tiny-4x4");
  auto p = parseProgramAsm(
      "# header comment\n\n  fence queue=load ; trailing\nend\n", cfg);
  ASSERT_TRUE(bool(p)) << llvm::toString(p.takeError());
  ASSERT_EQ(p->segments.size(), 1u);
  EXPECT_EQ(p->segments[0].name, "main");
  EXPECT_EQ(p->segments[0].npu().instructions.size(), 2u);
  EXPECT_EQ(p->memoryPlan.dramSize, cfg.dram.capacityBytes);
}

TEST(Assembly, ErrorsNameLineAndColumn) {
  HwConfig cfg = preset("tiny-4x4");
  struct Case {
    const char *text;
    const char *error;
  };
  Case cases[] = {
      {"end\nfrob x=1\n", "t.s:2:1: error: unknown instruction 'frob'"},
      {"matmul m=1 m=2\n", "t.s:1:12: error: duplicate field 'm'"},
      {"matmul m=16777216\n",
       "t.s:1:10: error: value 16777216 does not fit m (24-bit unsigned)"},
      {"matmul a_zp=-129\n",
       "t.s:1:13: error: value -129 does not fit a_zp (8-bit signed)"},
      {"matmul dataflow=rs\n",
       "t.s:1:17: error: invalid value 'rs' for dataflow (expected one "
       "of: ws, os)"},
      {"vadd ratio_a=abc\n",
       "t.s:1:14: error: expected a float or 0x bit pattern for ratio_a"},
      {"load n0\n", "t.s:1:6: error: expected field=value, got 'n0'"},
      {".tensor \"x\" input int9 [1] 0 1\n",
       "t.s:1:19: error: unknown dtype 'int9' (int8, uint8, int32, float32)"},
      {".hw \"edge-16x16\"\n",
       "t.s:1:5: error: program was written for hardware config "
       "'edge-16x16', but the given config is 'tiny-4x4'"},
      {".segment \"main\n", "t.s:1:10: error: unterminated string"},
      {".frob\n", "t.s:1:1: error: unknown directive '.frob'"},
      {".region \"r\" io 0\n",
       "t.s:1:17: error: .region expects: .region \"name\" KIND OFFSET SIZE"},
  };
  for (const Case &c : cases) {
    auto p = parseProgramAsm(c.text, cfg, "t.s");
    EXPECT_EQ(errorText(p), c.error) << c.text;
  }
}
