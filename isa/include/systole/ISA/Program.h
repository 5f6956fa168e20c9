//===- Program.h - In-memory form of a .npu binary --------------*- C++ -*-===//
//
// Plain C++ structs mirroring isa/schema/npu.fbs. writeProgram/readProgram
// convert between them and the FlatBuffers bytes; readProgram always runs the
// verifier (Verifier.h), so a loaded Program is safe to execute.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_ISA_PROGRAM_H
#define SYSTOLE_ISA_PROGRAM_H

#include "systole/ISA/HwConfig.h"
#include "systole/ISA/Instruction.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace systole::isa {

/// Format version written by this library; readers accept the same major.
constexpr uint16_t kFormatMajor = 1;
/// 1: Program.placement; 2: host costs; 3: Program.hostLibrary
constexpr uint16_t kFormatMinor = 3;
constexpr const char *kFileIdentifier = "SNPU";
/// Name of the constant segments the compiler derives rather than takes
/// from the model (activation and requantization tables, the 0/1 matrices
/// of channel gathers): not part of the model bound's compulsory bytes.
constexpr const char *kDerivedConstantsName = "derived";

enum class DType : uint8_t {
  Int8 = 0,
  UInt8 = 1,
  Int32 = 2,
  Float32 = 3,
  // Host-only tensors (isa/schema/npu.fbs).
  Int64 = 4,
  Bool = 5,
  Float64 = 6,
  Int16 = 7,
  Float16 = 8,
  UInt16 = 9,
  UInt32 = 10,
  UInt64 = 11,
  BFloat16 = 12,
};
enum class TensorKind : uint8_t {
  Input = 0,
  Output = 1,
  Intermediate = 2,
  Constant = 3,
  // Listed for its name and shape, never stored (schema/npu.fbs).
  Transient = 4
};
enum class RegionKind : uint8_t {
  Constants = 0,
  IO = 1,
  Activations = 2,
  Scratch = 3
};
enum class HostCodeKind : uint8_t { CpuObject = 0, Ptx = 1, Builtin = 2 };

llvm::StringRef dtypeName(DType t);
uint64_t dtypeBytes(DType t);
std::optional<DType> dtypeByName(llvm::StringRef s);
llvm::StringRef tensorKindName(TensorKind k);
std::optional<TensorKind> tensorKindByName(llvm::StringRef s);
llvm::StringRef regionKindName(RegionKind k);
std::optional<RegionKind> regionKindByName(llvm::StringRef s);
llvm::StringRef hostCodeKindName(HostCodeKind k);
std::optional<HostCodeKind> hostCodeKindByName(llvm::StringRef s);

struct QuantParams {
  std::vector<float> scales;
  std::vector<int32_t> zeroPoints;
  int32_t axis = -1;
  bool operator==(const QuantParams &o) const;
};

struct TensorDesc {
  std::string name;
  TensorKind kind = TensorKind::Intermediate;
  DType dtype = DType::Int8;
  std::vector<int64_t> shape;
  std::optional<QuantParams> quant;
  uint64_t dramOffset = 0;
  uint64_t sizeBytes = 0;
  bool operator==(const TensorDesc &o) const;
};

struct ConstantSegment {
  std::string name;
  uint64_t dramOffset = 0;
  std::vector<uint8_t> data;
  bool operator==(const ConstantSegment &o) const;
};

struct MemoryRegion {
  std::string name;
  RegionKind kind = RegionKind::Scratch;
  uint64_t offset = 0;
  uint64_t size = 0;
  bool operator==(const MemoryRegion &o) const;
};

struct MemoryPlan {
  uint64_t dramSize = 0;
  std::vector<MemoryRegion> regions;
  bool operator==(const MemoryPlan &o) const;
};

struct NpuSegment {
  std::vector<Instruction> instructions;
  bool operator==(const NpuSegment &o) const {
    return instructions == o.instructions;
  }
};

struct HostSegment {
  HostCodeKind kind = HostCodeKind::CpuObject;
  std::string entry;
  std::vector<uint8_t> code;
  std::vector<uint32_t> args;  ///< indices into Program::tensors
  std::vector<int64_t> params; ///< Builtin: kernel parameters
  /// Elementary operations the host performs (the compiler's count,
  /// docs/hwconfig.md "host"); with the transfers, its time in a run.
  uint64_t ops = 0;
  bool operator==(const HostSegment &o) const;
};

struct Segment {
  std::string name;
  std::variant<NpuSegment, HostSegment> body;
  bool isNpu() const { return std::holds_alternative<NpuSegment>(body); }
  const NpuSegment &npu() const { return std::get<NpuSegment>(body); }
  NpuSegment &npu() { return std::get<NpuSegment>(body); }
  const HostSegment &host() const { return std::get<HostSegment>(body); }
  bool operator==(const Segment &o) const {
    return name == o.name && body == o.body;
  }
};

struct LayerDebugInfo {
  std::string name;
  uint32_t segment = 0;
  uint32_t firstInstruction = 0;
  uint32_t instructionCount = 0;
  bool operator==(const LayerDebugInfo &o) const;
};

/// Where the compiler placed one graph op and the MACs it does (reports).
struct OpPlacement {
  std::string name; ///< the ONNX node name
  std::string op;   ///< graph op, or the ONNX op type of a host op
  bool onHost = false;
  uint64_t macs = 0;
  std::string reason; ///< why on the host, if the partitioner recorded it
  std::string note;   ///< why macs is 0 for an op that multiplies
  bool operator==(const OpPlacement &o) const {
    return name == o.name && op == o.op && onHost == o.onHost &&
           macs == o.macs && reason == o.reason && note == o.note;
  }
};

struct Program {
  uint16_t versionMajor = kFormatMajor;
  uint16_t versionMinor = kFormatMinor;
  std::string producer;
  HwConfig config;
  std::vector<TensorDesc> tensors;
  std::vector<ConstantSegment> constants;
  MemoryPlan memoryPlan;
  std::vector<Segment> segments;
  std::vector<LayerDebugInfo> layers;
  std::vector<OpPlacement> placement; ///< empty in format 1.0 binaries
  /// Format 1.3: the shared object of every cpu_object segment whose own
  /// `code` is empty (one library per model instead of one per segment).
  std::vector<uint8_t> hostLibrary;
  bool operator==(const Program &o) const;
};

/// The shared object holding a cpu_object segment's entry: its own code, or
/// the program's host library when it has none (format 1.3).
inline llvm::ArrayRef<uint8_t> cpuObjectCode(const Program &p,
                                             const HostSegment &h) {
  return h.code.empty() ? llvm::ArrayRef<uint8_t>(p.hostLibrary)
                        : llvm::ArrayRef<uint8_t>(h.code);
}

/// Serializes to FlatBuffers bytes (identifier "SNPU"). Does not verify; call
/// verifyProgram() first when the Program comes from an untrusted producer.
std::vector<uint8_t> writeProgram(const Program &program);
llvm::Error writeProgramFile(const Program &program, llvm::StringRef path);

/// Parses and verifies (FlatBuffers Verifier + all semantic checks). Every
/// loader uses this; it never crashes on malformed input.
llvm::Expected<Program> readProgram(llvm::ArrayRef<uint8_t> bytes);
llvm::Expected<Program> readProgramFile(llvm::StringRef path);

} // namespace systole::isa

#endif // SYSTOLE_ISA_PROGRAM_H
