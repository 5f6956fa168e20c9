//===- Instruction.h - Encoded NPU instructions and their fields -*- C++
//-*-===//
//
// An Instruction is its 64-byte encoding (8 little-endian 64-bit words); the
// field accessors slice it using the table in Instructions.def, so encode and
// decode are exact by construction and nobody re-declares a field position.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_ISA_INSTRUCTION_H
#define SYSTOLE_ISA_INSTRUCTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <array>
#include <cstdint>
#include <optional>

namespace systole::isa {

/// Bytes per encoded instruction.
constexpr size_t kInstructionBytes = 64;
constexpr size_t kInstructionWords = 8;

enum class Opcode : uint8_t {
#define SYSTOLE_OPCODE(Name, Mnemonic, Value, Queue, Summary) Name = Value,
#include "systole/ISA/Instructions.def"
};

/// The command queue an instruction is dispatched to. `Selected` (FENCE) takes
/// it from its `queue` field; `None` (END) is consumed by the fetch unit.
enum class Queue : uint8_t { Load = 0, Compute = 1, Store = 2, Selected, None };

/// The four dependency-token FIFOs between the queues.
enum class TokenFifo : uint8_t {
  LoadToCompute = 0,
  ComputeToLoad = 1,
  ComputeToStore = 2,
  StoreToCompute = 3
};
constexpr unsigned kNumTokenFifos = 4;
llvm::StringRef tokenFifoName(TokenFifo f);
llvm::StringRef queueName(Queue q);

enum class FieldKind : uint8_t { U, S, F32, FLAG, ENUM };
enum class EnumType : uint8_t {
  None,
  Memory,
  Dataflow,
  PoolMode,
  AddMode,
  BinaryOp,
  QueueSel
};

/// Symbolic enum values, e.g. Dataflow_os, Memory_acc, PoolMode_avg_int.
enum EnumValue : uint8_t {
#define SYSTOLE_ENUM(Type, Value, Name) Type##_##Name = Value,
#include "systole/ISA/Instructions.def"
};

/// Every field of every opcode, e.g. Field::Matmul_a_addr.
enum class Field : uint16_t {
#define SYSTOLE_FIELD(Opcode, Name, Word, Lsb, Width, Kind, EnumType, Summary) \
  Opcode##_##Name,
#include "systole/ISA/Instructions.def"
  NumFields
};

struct FieldInfo {
  Field field;
  Opcode opcode;
  const char *name;
  uint8_t word;
  uint8_t lsb;
  uint8_t width;
  FieldKind kind;
  EnumType enumType;
  const char *summary;
};

struct OpcodeInfo {
  Opcode opcode;
  const char *mnemonic;
  Queue queue;
  const char *summary;
};

struct EnumInfo {
  EnumType type;
  uint8_t value;
  const char *name;
};

llvm::ArrayRef<OpcodeInfo> allOpcodes();
llvm::ArrayRef<FieldInfo> allFields();
llvm::ArrayRef<EnumInfo> allEnumValues();
const FieldInfo &fieldInfo(Field f);
const OpcodeInfo &opcodeInfo(Opcode op);
/// nullptr for an unknown opcode byte.
const OpcodeInfo *lookupOpcode(uint8_t value);
std::optional<Opcode> opcodeByMnemonic(llvm::StringRef mnemonic);
/// The fields of `op` in table order.
llvm::ArrayRef<Field> fieldsOf(Opcode op);
std::optional<Field> fieldByName(Opcode op, llvm::StringRef name);
/// nullptr if `value` is not a member of `type`.
const char *enumName(EnumType type, uint64_t value);
std::optional<uint8_t> enumValue(EnumType type, llvm::StringRef name);
llvm::StringRef enumTypeName(EnumType type);
llvm::StringRef fieldKindName(FieldKind kind);

/// Dependency flags in word 0 bits [11:8].
struct Deps {
  bool popPrev = false;
  bool popNext = false;
  bool pushPrev = false;
  bool pushNext = false;
  bool any() const { return popPrev || popNext || pushPrev || pushNext; }
  bool operator==(const Deps &o) const {
    return popPrev == o.popPrev && popNext == o.popNext &&
           pushPrev == o.pushPrev && pushNext == o.pushNext;
  }
};

class Instruction {
public:
  Instruction() = default;
  explicit Instruction(Opcode op);

  Opcode opcode() const { return static_cast<Opcode>(words_[0] & 0xff); }
  /// The queue that executes this instruction (FENCE: its `queue` field).
  Queue queue() const;

  Deps deps() const;
  void setDeps(const Deps &d);

  /// Raw field bits, zero-extended.
  uint64_t raw(Field f) const;
  void setRaw(Field f, uint64_t bits);
  /// Integer value: S fields are sign-extended. (U fields of width 64 are
  /// returned as their bit pattern.)
  int64_t get(Field f) const;
  /// Asserts that `value` fits (see fits()).
  void set(Field f, int64_t value);
  Instruction &with(Field f, int64_t value) {
    set(f, value);
    return *this;
  }
  float getF32(Field f) const;
  void setF32(Field f, float value);
  bool getFlag(Field f) const { return raw(f) != 0; }

  /// Whether `value` is representable in the field (U: [0, 2^w), S: two's
  /// complement range, FLAG: {0,1}, ENUM: a member of the enum, F32: 32 bits).
  static bool fits(Field f, int64_t value);

  const std::array<uint64_t, kInstructionWords> &words() const {
    return words_;
  }
  void encode(uint8_t *out) const;
  std::array<uint8_t, kInstructionBytes> encode() const;

  bool operator==(const Instruction &o) const { return words_ == o.words_; }
  bool operator!=(const Instruction &o) const { return !(*this == o); }

private:
  friend llvm::Expected<Instruction>
  decodeInstruction(llvm::ArrayRef<uint8_t> bytes);
  std::array<uint64_t, kInstructionWords> words_{};
};

/// Decodes 64 bytes. Rejects unknown opcodes, nonzero reserved bits, enum
/// values outside their enum, and dependency flags naming a nonexistent
/// neighbour queue. Config-dependent checks live in validateInstruction().
llvm::Expected<Instruction> decodeInstruction(llvm::ArrayRef<uint8_t> bytes);

/// The token FIFO a dependency flag of an instruction in `q` refers to, or
/// nothing if that neighbour does not exist (load has no prev, store no next).
std::optional<TokenFifo> popPrevFifo(Queue q);
std::optional<TokenFifo> popNextFifo(Queue q);
std::optional<TokenFifo> pushPrevFifo(Queue q);
std::optional<TokenFifo> pushNextFifo(Queue q);

/// Bits of each word used by the header and the fields of `op`.
std::array<uint64_t, kInstructionWords> usedBits(Opcode op);

} // namespace systole::isa

#endif // SYSTOLE_ISA_INSTRUCTION_H
