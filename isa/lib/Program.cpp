//===- Program.cpp - Names and equality of the in-memory .npu model -------===//
#include "systole/ISA/Program.h"

#include <cstring>

using namespace systole::isa;

llvm::StringRef systole::isa::dtypeName(DType t) {
  switch (t) {
  case DType::Int8:
    return "int8";
  case DType::UInt8:
    return "uint8";
  case DType::Int32:
    return "int32";
  case DType::Float32:
    return "float32";
  case DType::Int64:
    return "int64";
  case DType::Bool:
    return "bool";
  case DType::Float64:
    return "float64";
  case DType::Int16:
    return "int16";
  case DType::Float16:
    return "float16";
  case DType::UInt16:
    return "uint16";
  case DType::UInt32:
    return "uint32";
  case DType::UInt64:
    return "uint64";
  case DType::BFloat16:
    return "bfloat16";
  }
  return "?";
}
uint64_t systole::isa::dtypeBytes(DType t) {
  switch (t) {
  case DType::Int8:
  case DType::UInt8:
  case DType::Bool:
    return 1;
  case DType::Int16:
  case DType::Float16:
  case DType::UInt16:
  case DType::BFloat16:
    return 2;
  case DType::Int32:
  case DType::Float32:
  case DType::UInt32:
    return 4;
  case DType::Int64:
  case DType::Float64:
  case DType::UInt64:
    return 8;
  }
  return 1;
}
std::optional<DType> systole::isa::dtypeByName(llvm::StringRef s) {
  for (DType t :
       {DType::Int8, DType::UInt8, DType::Int32, DType::Float32, DType::Int64,
        DType::Bool, DType::Float64, DType::Int16, DType::Float16,
        DType::UInt16, DType::UInt32, DType::UInt64, DType::BFloat16})
    if (s == dtypeName(t))
      return t;
  return std::nullopt;
}
llvm::StringRef systole::isa::tensorKindName(TensorKind k) {
  switch (k) {
  case TensorKind::Input:
    return "input";
  case TensorKind::Output:
    return "output";
  case TensorKind::Intermediate:
    return "intermediate";
  case TensorKind::Constant:
    return "constant";
  case TensorKind::Transient:
    return "transient";
  }
  return "?";
}
std::optional<TensorKind> systole::isa::tensorKindByName(llvm::StringRef s) {
  for (TensorKind k :
       {TensorKind::Input, TensorKind::Output, TensorKind::Intermediate,
        TensorKind::Constant, TensorKind::Transient})
    if (s == tensorKindName(k))
      return k;
  return std::nullopt;
}
llvm::StringRef systole::isa::regionKindName(RegionKind k) {
  switch (k) {
  case RegionKind::Constants:
    return "constants";
  case RegionKind::IO:
    return "io";
  case RegionKind::Activations:
    return "activations";
  case RegionKind::Scratch:
    return "scratch";
  }
  return "?";
}
std::optional<RegionKind> systole::isa::regionKindByName(llvm::StringRef s) {
  for (RegionKind k : {RegionKind::Constants, RegionKind::IO,
                       RegionKind::Activations, RegionKind::Scratch})
    if (s == regionKindName(k))
      return k;
  return std::nullopt;
}
llvm::StringRef systole::isa::hostCodeKindName(HostCodeKind k) {
  switch (k) {
  case HostCodeKind::CpuObject:
    return "cpu_object";
  case HostCodeKind::Ptx:
    return "ptx";
  case HostCodeKind::Builtin:
    return "builtin";
  }
  return "?";
}
std::optional<HostCodeKind>
systole::isa::hostCodeKindByName(llvm::StringRef s) {
  if (s == "cpu_object")
    return HostCodeKind::CpuObject;
  if (s == "ptx")
    return HostCodeKind::Ptx;
  if (s == "builtin")
    return HostCodeKind::Builtin;
  return std::nullopt;
}

// Scales compare by bit pattern so that NaN payloads and -0 round-trip.
static bool sameBits(const std::vector<float> &a, const std::vector<float> &b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * 4) == 0);
}

bool QuantParams::operator==(const QuantParams &o) const {
  return sameBits(scales, o.scales) && zeroPoints == o.zeroPoints &&
         axis == o.axis;
}
bool TensorDesc::operator==(const TensorDesc &o) const {
  return name == o.name && kind == o.kind && dtype == o.dtype &&
         shape == o.shape && quant == o.quant && dramOffset == o.dramOffset &&
         sizeBytes == o.sizeBytes;
}
bool ConstantSegment::operator==(const ConstantSegment &o) const {
  return name == o.name && dramOffset == o.dramOffset && data == o.data;
}
bool MemoryRegion::operator==(const MemoryRegion &o) const {
  return name == o.name && kind == o.kind && offset == o.offset &&
         size == o.size;
}
bool MemoryPlan::operator==(const MemoryPlan &o) const {
  return dramSize == o.dramSize && regions == o.regions;
}
bool HostSegment::operator==(const HostSegment &o) const {
  return kind == o.kind && entry == o.entry && code == o.code &&
         args == o.args && params == o.params && ops == o.ops;
}
bool LayerDebugInfo::operator==(const LayerDebugInfo &o) const {
  return name == o.name && segment == o.segment &&
         firstInstruction == o.firstInstruction &&
         instructionCount == o.instructionCount;
}
bool Program::operator==(const Program &o) const {
  return versionMajor == o.versionMajor && versionMinor == o.versionMinor &&
         producer == o.producer && config == o.config && tensors == o.tensors &&
         constants == o.constants && memoryPlan == o.memoryPlan &&
         segments == o.segments && layers == o.layers &&
         placement == o.placement && hostLibrary == o.hostLibrary;
}
