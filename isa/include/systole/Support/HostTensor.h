//===- HostTensor.h - A dense tensor in host memory -------------*- C++ -*-===//
//
// The value type that crosses every host boundary: .npy files, ONNX
// TensorProtos, runtime input/output binding. Owns its bytes; row-major.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_SUPPORT_HOSTTENSOR_H
#define SYSTOLE_SUPPORT_HOSTTENSOR_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace systole {

enum class ElementType : uint8_t {
  Int8,
  UInt8,
  Int16,
  Int32,
  Int64,
  Float32,
  Float64,
  Bool,
  /// IEEE half, held as its 16 bits (host code converts).
  Float16,
  UInt16,
  UInt32,
  UInt64,
  /// bfloat16, held as its 16 bits (numpy has no such type).
  BFloat16,
};

/// Size of one element in bytes.
size_t elementSize(ElementType type);
/// "int8", "float32", ...: the names users see in messages.
const char *elementTypeName(ElementType type);

class HostTensor {
public:
  HostTensor() = default;
  HostTensor(ElementType type, std::vector<int64_t> shape);

  ElementType type() const { return elementType; }
  const std::vector<int64_t> &shape() const { return dims; }
  int64_t numElements() const;
  size_t byteSize() const { return bytes.size(); }

  uint8_t *data() { return bytes.data(); }
  const uint8_t *data() const { return bytes.data(); }
  template <typename T> T *dataAs() { return reinterpret_cast<T *>(data()); }
  template <typename T> const T *dataAs() const {
    return reinterpret_cast<const T *>(data());
  }

  /// "1x3x224x224xint8": for messages and reports.
  std::string describe() const;

private:
  ElementType elementType = ElementType::Float32;
  std::vector<int64_t> dims;
  std::vector<uint8_t> bytes;
};

/// Number of elements of a shape, or -1 if a dimension is negative or the
/// product overflows int64 (hostile inputs must not wrap around).
int64_t checkedNumElements(const std::vector<int64_t> &shape);

} // namespace systole

#endif // SYSTOLE_SUPPORT_HOSTTENSOR_H
