//===- HostTensor.cpp - A dense tensor in host memory ---------------------===//
#include "systole/Support/HostTensor.h"

#include <cassert>
#include <limits>

namespace systole {

size_t elementSize(ElementType type) {
  switch (type) {
  case ElementType::Int8:
  case ElementType::UInt8:
  case ElementType::Bool:
    return 1;
  case ElementType::Int16:
  case ElementType::Float16:
  case ElementType::UInt16:
  case ElementType::BFloat16:
    return 2;
  case ElementType::Int32:
  case ElementType::Float32:
  case ElementType::UInt32:
    return 4;
  case ElementType::Int64:
  case ElementType::Float64:
  case ElementType::UInt64:
    return 8;
  }
  return 1;
}

const char *elementTypeName(ElementType type) {
  switch (type) {
  case ElementType::Int8:
    return "int8";
  case ElementType::UInt8:
    return "uint8";
  case ElementType::Int16:
    return "int16";
  case ElementType::Int32:
    return "int32";
  case ElementType::Int64:
    return "int64";
  case ElementType::Float32:
    return "float32";
  case ElementType::Float64:
    return "float64";
  case ElementType::Bool:
    return "bool";
  case ElementType::Float16:
    return "float16";
  case ElementType::UInt16:
    return "uint16";
  case ElementType::UInt32:
    return "uint32";
  case ElementType::UInt64:
    return "uint64";
  case ElementType::BFloat16:
    return "bfloat16";
  }
  return "?";
}

int64_t checkedNumElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return -1;
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d)
      return -1;
    n *= d;
  }
  return n;
}

HostTensor::HostTensor(ElementType type, std::vector<int64_t> shape)
    : elementType(type), dims(std::move(shape)) {
  int64_t n = checkedNumElements(dims);
  assert(n >= 0 && "callers validate shapes before allocating");
  bytes.assign(static_cast<size_t>(n) * elementSize(type), 0);
}

int64_t HostTensor::numElements() const { return checkedNumElements(dims); }

std::string HostTensor::describe() const {
  std::string s;
  for (int64_t d : dims)
    s += std::to_string(d) + "x";
  return s + elementTypeName(elementType);
}

} // namespace systole
