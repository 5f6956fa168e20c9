//===- InstructionTest.cpp - Encoding/decoding of every instruction -------===//
#include "systole/ISA/Instruction.h"
#include "systole/ISA/Assembly.h"

#include "gtest/gtest.h"

#include <set>

#include <random>

using namespace systole::isa;

namespace {
uint64_t randomBits(std::mt19937_64 &rng, unsigned width) {
  uint64_t v = rng();
  return width >= 64 ? v : v & ((uint64_t(1) << width) - 1);
}

// Random valid deps for the instruction's queue.
Deps randomDeps(std::mt19937_64 &rng, Queue q) {
  Deps d;
  d.popPrev = popPrevFifo(q) && (rng() & 1);
  d.popNext = popNextFifo(q) && (rng() & 1);
  d.pushPrev = pushPrevFifo(q) && (rng() & 1);
  d.pushNext = pushNextFifo(q) && (rng() & 1);
  return d;
}

Instruction
randomInstruction(std::mt19937_64 &rng, Opcode op,
                  std::vector<std::pair<Field, uint64_t>> *values = nullptr) {
  Instruction I(op);
  for (Field f : fieldsOf(op)) {
    const FieldInfo &fi = fieldInfo(f);
    uint64_t v;
    if (fi.kind == FieldKind::ENUM) {
      std::vector<uint8_t> members;
      for (const EnumInfo &e : allEnumValues())
        if (e.type == fi.enumType)
          members.push_back(e.value);
      v = members[rng() % members.size()];
    } else {
      v = randomBits(rng, fi.width);
    }
    I.setRaw(f, v);
    if (values)
      values->push_back({f, v});
  }
  I.setDeps(randomDeps(rng, I.queue()));
  return I;
}
} // namespace

TEST(InstructionTable, EveryOpcodeHasUniqueMnemonicValueAndDisjointFields) {
  std::set<std::string> names;
  std::set<unsigned> values;
  for (const OpcodeInfo &o : allOpcodes()) {
    EXPECT_TRUE(names.insert(o.mnemonic).second) << o.mnemonic;
    EXPECT_TRUE(values.insert(unsigned(o.opcode)).second) << o.mnemonic;
    unsigned bits = 12, used = 0;
    for (Field f : fieldsOf(o.opcode))
      bits += fieldInfo(f).width;
    for (uint64_t w : usedBits(o.opcode))
      used += __builtin_popcountll(w);
    EXPECT_EQ(bits, used) << o.mnemonic << ": overlapping fields";
  }
}

TEST(InstructionRoundTrip, RandomFieldValuesForEveryOpcode) {
  std::mt19937_64 rng(0x5157);
  for (const OpcodeInfo &o : allOpcodes()) {
    for (int iter = 0; iter < 500; ++iter) {
      std::vector<std::pair<Field, uint64_t>> values;
      Instruction I = randomInstruction(rng, o.opcode, &values);
      for (auto [f, v] : values)
        ASSERT_EQ(I.raw(f), v) << o.mnemonic << "." << fieldInfo(f).name;
      auto bytes = I.encode();
      auto back = decodeInstruction(bytes);
      ASSERT_TRUE(bool(back))
          << o.mnemonic << ": " << llvm::toString(back.takeError());
      EXPECT_EQ(*back, I);
      EXPECT_EQ(back->encode(), bytes);
      // The text form round-trips too.
      std::string text = printInstruction(I);
      auto parsed = parseInstruction(text);
      ASSERT_TRUE(bool(parsed))
          << text << ": " << llvm::toString(parsed.takeError());
      EXPECT_EQ(*parsed, I) << text;
    }
  }
}

TEST(InstructionRoundTrip, SignedFieldsSignExtendAndFitsChecksRange) {
  Instruction I(Opcode::Matmul);
  I.set(Field::Matmul_a_zp, -128);
  EXPECT_EQ(I.get(Field::Matmul_a_zp), -128);
  EXPECT_EQ(I.raw(Field::Matmul_a_zp), 0x80u);
  EXPECT_TRUE(Instruction::fits(Field::Matmul_a_zp, 127));
  EXPECT_FALSE(Instruction::fits(Field::Matmul_a_zp, 128));
  EXPECT_FALSE(Instruction::fits(Field::Matmul_a_zp, -129));
  EXPECT_TRUE(Instruction::fits(Field::Matmul_m, (1 << 24) - 1));
  EXPECT_FALSE(Instruction::fits(Field::Matmul_m, 1 << 24));
  EXPECT_FALSE(Instruction::fits(Field::Matmul_dataflow, 2));
  Instruction V(Opcode::Vadd);
  V.setF32(Field::Vadd_ratio_a, 0.375f);
  EXPECT_EQ(V.getF32(Field::Vadd_ratio_a), 0.375f);
  EXPECT_EQ(V.raw(Field::Vadd_ratio_a), 0x3ec00000u);
}

TEST(InstructionDecode, RejectsUnknownOpcode) {
  std::array<uint8_t, 64> bytes{};
  bytes[0] = 0xee;
  auto r = decodeInstruction(bytes);
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(llvm::toString(r.takeError()), "unknown opcode 0xee");
}

TEST(InstructionDecode, RejectsEveryReservedBit) {
  for (const OpcodeInfo &o : allOpcodes()) {
    auto used = usedBits(o.opcode);
    int rejected = 0;
    for (unsigned w = 0; w < kInstructionWords; ++w)
      for (unsigned b = 0; b < 64; ++b) {
        if ((used[w] >> b) & 1)
          continue;
        auto bytes = Instruction(o.opcode).encode();
        bytes[w * 8 + b / 8] |= uint8_t(1u << (b % 8));
        auto r = decodeInstruction(bytes);
        ASSERT_FALSE(bool(r)) << o.mnemonic << " word " << w << " bit " << b;
        EXPECT_NE(llvm::toString(r.takeError()).find("reserved bits"),
                  std::string::npos);
        ++rejected;
      }
    EXPECT_GT(rejected, 0) << o.mnemonic;
  }
}

TEST(InstructionDecode, RejectsInvalidEnumAndNonexistentNeighbours) {
  Instruction P(Opcode::Pool);
  auto bytes = P.encode();
  bytes[1] |= 0x30; // mode = 3 (bits 12..13)
  auto r = decodeInstruction(bytes);
  ASSERT_FALSE(bool(r));
  EXPECT_NE(llvm::toString(r.takeError())
                .find("field 'mode' has invalid PoolMode value 3"),
            std::string::npos);

  struct Case {
    Opcode op;
    Deps d;
    const char *flag;
  };
  for (Case c : {Case{Opcode::Load, {true, false, false, false}, "pop_prev"},
                 Case{Opcode::Load, {false, false, true, false}, "push_prev"},
                 Case{Opcode::Store, {false, true, false, false}, "pop_next"},
                 Case{Opcode::Store, {false, false, false, true}, "push_next"},
                 Case{Opcode::End, {false, false, false, true}, "push_next"}}) {
    Instruction I(c.op);
    I.setDeps(c.d);
    auto e = decodeInstruction(I.encode());
    ASSERT_FALSE(bool(e));
    EXPECT_NE(llvm::toString(e.takeError()).find(c.flag), std::string::npos);
  }
  // FENCE's neighbours follow its queue field.
  Instruction F(Opcode::Fence);
  F.set(Field::Fence_queue, QueueSel_store);
  F.setDeps({true, false, true, false});
  EXPECT_TRUE(bool(decodeInstruction(F.encode())));
  F.setDeps({false, true, false, false});
  auto fe = decodeInstruction(F.encode());
  EXPECT_FALSE(bool(fe));
  llvm::consumeError(fe.takeError());
}

TEST(InstructionDecode, WrongSize) {
  std::vector<uint8_t> bytes(63, 0);
  auto r = decodeInstruction(bytes);
  ASSERT_FALSE(bool(r));
  EXPECT_EQ(llvm::toString(r.takeError()),
            "instruction must be 64 bytes, got 63");
}

TEST(InstructionTable, GeneratedDocsAndSvPackageMentionEveryField) {
  std::string md = emitInstructionTableMarkdown();
  std::string sv = emitSystemVerilogPackage();
  for (const FieldInfo &fi : allFields()) {
    EXPECT_NE(md.find(std::string("`") + fi.name + "`"), std::string::npos)
        << fi.name;
    std::string svName =
        llvm::StringRef(opcodeInfo(fi.opcode).mnemonic).upper() + "_" +
        llvm::StringRef(fi.name).upper() + "_LSB";
    EXPECT_NE(sv.find(svName), std::string::npos) << svName;
  }
}
