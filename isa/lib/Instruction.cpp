//===- Instruction.cpp - Field tables, encoding and decoding --------------===//
#include "systole/ISA/Instruction.h"

#include "llvm/Support/FormatVariadic.h"

#include <cassert>
#include <cstring>
#include <vector>

using namespace systole::isa;
using llvm::createStringError;
using llvm::inconvertibleErrorCode;

namespace {
constexpr Queue Load = Queue::Load, Compute = Queue::Compute,
                Store = Queue::Store, Selected = Queue::Selected,
                None = Queue::None;

constexpr OpcodeInfo kOpcodes[] = {
#define SYSTOLE_OPCODE(Name, Mnemonic, Value, Q, Summary)                      \
  {Opcode::Name, #Mnemonic, Q, Summary},
#include "systole/ISA/Instructions.def"
};

constexpr FieldInfo kFields[] = {
#define SYSTOLE_FIELD(Op, Name, Word, Lsb, Width, Kind, Enum, Summary)         \
  {Field::Op##_##Name, Opcode::Op,     #Name,  Word, Lsb, Width,               \
   FieldKind::Kind,    EnumType::Enum, Summary},
#include "systole/ISA/Instructions.def"
};

constexpr EnumInfo kEnums[] = {
#define SYSTOLE_ENUM(Type, Value, Name) {EnumType::Type, Value, #Name},
#include "systole/ISA/Instructions.def"
};

static_assert(sizeof(kFields) / sizeof(kFields[0]) ==
                  static_cast<size_t>(Field::NumFields),
              "field table out of sync");

constexpr uint64_t maskOf(unsigned width) {
  return width >= 64 ? ~uint64_t(0) : ((uint64_t(1) << width) - 1);
}

// Compile-time sanity of the table: no field crosses a word, none overlaps
// the header (bits [11:0] of word 0).
constexpr bool tableIsWellFormed() {
  for (const FieldInfo &f : kFields) {
    if (f.word >= kInstructionWords || f.width == 0 || f.lsb + f.width > 64)
      return false;
    if (f.word == 0 && f.lsb < 12)
      return false;
    if (f.kind == FieldKind::FLAG && f.width != 1)
      return false;
    if (f.kind == FieldKind::F32 && f.width != 32)
      return false;
  }
  return true;
}
static_assert(tableIsWellFormed(), "Instructions.def is malformed");

struct PerOpcode {
  std::vector<Field> fields;
  std::array<uint64_t, kInstructionWords> used{};
};

const PerOpcode &perOpcode(Opcode op) {
  static const auto table = [] {
    std::array<PerOpcode, 256> t;
    for (PerOpcode &p : t)
      p.used[0] = 0xfff;
    for (const FieldInfo &f : kFields) {
      PerOpcode &p = t[static_cast<uint8_t>(f.opcode)];
      p.fields.push_back(f.field);
      uint64_t m = maskOf(f.width) << f.lsb;
      assert((p.used[f.word] & m) == 0 && "overlapping fields");
      p.used[f.word] |= m;
    }
    return t;
  }();
  return table[static_cast<uint8_t>(op)];
}
} // namespace

llvm::ArrayRef<OpcodeInfo> systole::isa::allOpcodes() { return kOpcodes; }
llvm::ArrayRef<FieldInfo> systole::isa::allFields() { return kFields; }
llvm::ArrayRef<EnumInfo> systole::isa::allEnumValues() { return kEnums; }

const FieldInfo &systole::isa::fieldInfo(Field f) {
  assert(f < Field::NumFields);
  return kFields[static_cast<size_t>(f)];
}

const OpcodeInfo *systole::isa::lookupOpcode(uint8_t value) {
  for (const OpcodeInfo &o : kOpcodes)
    if (static_cast<uint8_t>(o.opcode) == value)
      return &o;
  return nullptr;
}

const OpcodeInfo &systole::isa::opcodeInfo(Opcode op) {
  const OpcodeInfo *info = lookupOpcode(static_cast<uint8_t>(op));
  assert(info && "unknown opcode");
  return *info;
}

std::optional<Opcode> systole::isa::opcodeByMnemonic(llvm::StringRef m) {
  for (const OpcodeInfo &o : kOpcodes)
    if (m == o.mnemonic)
      return o.opcode;
  return std::nullopt;
}

llvm::ArrayRef<Field> systole::isa::fieldsOf(Opcode op) {
  return perOpcode(op).fields;
}

std::optional<Field> systole::isa::fieldByName(Opcode op,
                                               llvm::StringRef name) {
  for (Field f : fieldsOf(op))
    if (name == fieldInfo(f).name)
      return f;
  return std::nullopt;
}

const char *systole::isa::enumName(EnumType type, uint64_t value) {
  for (const EnumInfo &e : kEnums)
    if (e.type == type && e.value == value)
      return e.name;
  return nullptr;
}

std::optional<uint8_t> systole::isa::enumValue(EnumType type,
                                               llvm::StringRef name) {
  for (const EnumInfo &e : kEnums)
    if (e.type == type && name == e.name)
      return e.value;
  return std::nullopt;
}

llvm::StringRef systole::isa::enumTypeName(EnumType type) {
  switch (type) {
  case EnumType::None:
    return "";
  case EnumType::Memory:
    return "Memory";
  case EnumType::Dataflow:
    return "Dataflow";
  case EnumType::PoolMode:
    return "PoolMode";
  case EnumType::AddMode:
    return "AddMode";
  case EnumType::BinaryOp:
    return "BinaryOp";
  case EnumType::QueueSel:
    return "QueueSel";
  }
  return "";
}

llvm::StringRef systole::isa::fieldKindName(FieldKind kind) {
  switch (kind) {
  case FieldKind::U:
    return "unsigned";
  case FieldKind::S:
    return "signed";
  case FieldKind::F32:
    return "fp32";
  case FieldKind::FLAG:
    return "flag";
  case FieldKind::ENUM:
    return "enum";
  }
  return "";
}

llvm::StringRef systole::isa::tokenFifoName(TokenFifo f) {
  switch (f) {
  case TokenFifo::LoadToCompute:
    return "load->compute";
  case TokenFifo::ComputeToLoad:
    return "compute->load";
  case TokenFifo::ComputeToStore:
    return "compute->store";
  case TokenFifo::StoreToCompute:
    return "store->compute";
  }
  return "";
}

llvm::StringRef systole::isa::queueName(Queue q) {
  switch (q) {
  case Queue::Load:
    return "load";
  case Queue::Compute:
    return "compute";
  case Queue::Store:
    return "store";
  case Queue::Selected:
    return "selected";
  case Queue::None:
    return "none";
  }
  return "";
}

std::array<uint64_t, kInstructionWords> systole::isa::usedBits(Opcode op) {
  return perOpcode(op).used;
}

// --- token FIFO wiring -----------------------------------------------------

std::optional<TokenFifo> systole::isa::popPrevFifo(Queue q) {
  if (q == Queue::Compute)
    return TokenFifo::LoadToCompute;
  if (q == Queue::Store)
    return TokenFifo::ComputeToStore;
  return std::nullopt;
}
std::optional<TokenFifo> systole::isa::popNextFifo(Queue q) {
  if (q == Queue::Load)
    return TokenFifo::ComputeToLoad;
  if (q == Queue::Compute)
    return TokenFifo::StoreToCompute;
  return std::nullopt;
}
std::optional<TokenFifo> systole::isa::pushPrevFifo(Queue q) {
  if (q == Queue::Compute)
    return TokenFifo::ComputeToLoad;
  if (q == Queue::Store)
    return TokenFifo::StoreToCompute;
  return std::nullopt;
}
std::optional<TokenFifo> systole::isa::pushNextFifo(Queue q) {
  if (q == Queue::Load)
    return TokenFifo::LoadToCompute;
  if (q == Queue::Compute)
    return TokenFifo::ComputeToStore;
  return std::nullopt;
}

// --- Instruction -------------------------------------------------------------

Instruction::Instruction(Opcode op) { words_[0] = static_cast<uint8_t>(op); }

Queue Instruction::queue() const {
  const OpcodeInfo *info = lookupOpcode(static_cast<uint8_t>(opcode()));
  if (!info)
    return Queue::None;
  if (info->queue != Queue::Selected)
    return info->queue;
  uint64_t v = raw(Field::Fence_queue);
  return v <= 2 ? static_cast<Queue>(v) : Queue::None;
}

Deps Instruction::deps() const {
  Deps d;
  d.popPrev = (words_[0] >> 8) & 1;
  d.popNext = (words_[0] >> 9) & 1;
  d.pushPrev = (words_[0] >> 10) & 1;
  d.pushNext = (words_[0] >> 11) & 1;
  return d;
}

void Instruction::setDeps(const Deps &d) {
  words_[0] &= ~uint64_t(0xf00);
  words_[0] |= uint64_t(d.popPrev) << 8 | uint64_t(d.popNext) << 9 |
               uint64_t(d.pushPrev) << 10 | uint64_t(d.pushNext) << 11;
}

uint64_t Instruction::raw(Field f) const {
  const FieldInfo &fi = fieldInfo(f);
  assert(fi.opcode == opcode() && "field of another opcode");
  return (words_[fi.word] >> fi.lsb) & maskOf(fi.width);
}

void Instruction::setRaw(Field f, uint64_t bits) {
  const FieldInfo &fi = fieldInfo(f);
  assert(fi.opcode == opcode() && "field of another opcode");
  assert((bits & ~maskOf(fi.width)) == 0 && "value does not fit the field");
  uint64_t m = maskOf(fi.width) << fi.lsb;
  words_[fi.word] = (words_[fi.word] & ~m) | ((bits << fi.lsb) & m);
}

int64_t Instruction::get(Field f) const {
  const FieldInfo &fi = fieldInfo(f);
  uint64_t v = raw(f);
  if (fi.kind == FieldKind::S && fi.width < 64 && (v >> (fi.width - 1)) & 1)
    v |= ~maskOf(fi.width);
  return static_cast<int64_t>(v);
}

bool Instruction::fits(Field f, int64_t value) {
  const FieldInfo &fi = fieldInfo(f);
  switch (fi.kind) {
  case FieldKind::S: {
    if (fi.width >= 64)
      return true;
    int64_t lo = -(int64_t(1) << (fi.width - 1));
    int64_t hi = (int64_t(1) << (fi.width - 1)) - 1;
    return value >= lo && value <= hi;
  }
  case FieldKind::ENUM:
    return value >= 0 && enumName(fi.enumType, value) != nullptr;
  case FieldKind::U:
  case FieldKind::F32:
  case FieldKind::FLAG:
    if (fi.width >= 64)
      return true; // any bit pattern
    return value >= 0 && static_cast<uint64_t>(value) <= maskOf(fi.width);
  }
  return false;
}

void Instruction::set(Field f, int64_t value) {
  assert(fits(f, value) && "value does not fit the field");
  setRaw(f, static_cast<uint64_t>(value) & maskOf(fieldInfo(f).width));
}

float Instruction::getF32(Field f) const {
  uint32_t bits = static_cast<uint32_t>(raw(f));
  float v;
  std::memcpy(&v, &bits, 4);
  return v;
}

void Instruction::setF32(Field f, float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  setRaw(f, bits);
}

void Instruction::encode(uint8_t *out) const {
  for (size_t w = 0; w < kInstructionWords; ++w)
    for (size_t b = 0; b < 8; ++b)
      out[w * 8 + b] = static_cast<uint8_t>(words_[w] >> (8 * b));
}

std::array<uint8_t, kInstructionBytes> Instruction::encode() const {
  std::array<uint8_t, kInstructionBytes> out;
  encode(out.data());
  return out;
}

llvm::Expected<Instruction>
systole::isa::decodeInstruction(llvm::ArrayRef<uint8_t> bytes) {
  if (bytes.size() != kInstructionBytes)
    return createStringError(inconvertibleErrorCode(),
                             "instruction must be %zu bytes, got %zu",
                             kInstructionBytes, bytes.size());
  Instruction inst;
  for (size_t w = 0; w < kInstructionWords; ++w) {
    uint64_t v = 0;
    for (size_t b = 0; b < 8; ++b)
      v |= uint64_t(bytes[w * 8 + b]) << (8 * b);
    inst.words_[w] = v;
  }
  uint8_t opByte = inst.words_[0] & 0xff;
  const OpcodeInfo *info = lookupOpcode(opByte);
  if (!info)
    return createStringError(inconvertibleErrorCode(), "unknown opcode 0x%02x",
                             opByte);
  auto used = usedBits(info->opcode);
  for (size_t w = 0; w < kInstructionWords; ++w)
    if (uint64_t extra = inst.words_[w] & ~used[w])
      return createStringError(
          inconvertibleErrorCode(),
          "%s: reserved bits set in word %zu (mask 0x%016llx)", info->mnemonic,
          w, static_cast<unsigned long long>(extra));
  for (Field f : fieldsOf(info->opcode)) {
    const FieldInfo &fi = fieldInfo(f);
    if (fi.kind == FieldKind::ENUM && !enumName(fi.enumType, inst.raw(f)))
      return createStringError(
          inconvertibleErrorCode(), "%s: field '%s' has invalid %s value %llu",
          info->mnemonic, fi.name, enumTypeName(fi.enumType).str().c_str(),
          static_cast<unsigned long long>(inst.raw(f)));
  }
  Queue q = inst.queue();
  Deps d = inst.deps();
  auto bad = [&](const char *flag) {
    return createStringError(
        inconvertibleErrorCode(),
        "%s: dependency flag %s names a queue that does not exist for the %s "
        "queue",
        info->mnemonic, flag, queueName(q).str().c_str());
  };
  if (d.popPrev && !popPrevFifo(q))
    return bad("pop_prev");
  if (d.popNext && !popNextFifo(q))
    return bad("pop_next");
  if (d.pushPrev && !pushPrevFifo(q))
    return bad("push_prev");
  if (d.pushNext && !pushNextFifo(q))
    return bad("push_next");
  return inst;
}
