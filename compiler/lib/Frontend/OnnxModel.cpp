//===- OnnxModel.cpp - Loading ONNX models and tensors --------------------===//
#include "systole/Frontend/OnnxModel.h"

#include "onnx/onnx_pb.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstring>
#include <google/protobuf/io/coded_stream.h>
#include <limits>

using llvm::StringRef;

namespace systole::frontend {

static llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// Protobuf refuses messages over 64 MiB by default; ResNet-class models are
/// larger, and the hard 2 GiB protobuf limit still bounds a hostile file.
template <typename Message>
static bool parseLarge(Message &msg, StringRef bytes) {
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()),
      static_cast<int>(bytes.size()));
  stream.SetTotalBytesLimit(INT32_MAX);
  return msg.ParseFromCodedStream(&stream) && stream.ConsumedEntireMessage();
}

llvm::Expected<std::unique_ptr<onnx::ModelProto>>
loadOnnxModel(StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return makeError(path + ": cannot read: " + buf.getError().message());
  return parseOnnxModel((*buf)->getBuffer(), path);
}

llvm::Expected<std::unique_ptr<onnx::ModelProto>>
parseOnnxModel(StringRef bytes, StringRef path) {
  if (bytes.size() >= INT32_MAX)
    return makeError(path + ": file exceeds protobuf's 2 GiB limit");
  auto model = std::make_unique<onnx::ModelProto>();
  if (!parseLarge(*model, bytes))
    return makeError(path + ": not a valid ONNX model (protobuf parse of "
                            "ModelProto failed; truncated or not ONNX?)");
  if (!model->has_graph())
    return makeError(path + ": ONNX model has no graph");
  for (const auto &init : model->graph().initializer())
    if (init.data_location() == onnx::TensorProto::EXTERNAL)
      return makeError(path + ": initializer '" + init.name() +
                       "' uses external data, which is not supported; "
                       "save the model with weights inline");
  return model;
}

llvm::Expected<HostTensor> loadTensorProtoFile(StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false);
  if (!buf)
    return makeError(path + ": cannot read: " + buf.getError().message());
  onnx::TensorProto proto;
  if (!parseLarge(proto, (*buf)->getBuffer()))
    return makeError(path + ": not a valid TensorProto");
  return tensorFromProto(proto, path);
}

/// memcpy that accepts the null data pointer of a zero-element tensor
/// (memcpy's arguments must be non-null even for 0 bytes; fuzz-onnx-import).
static void copyBytes(void *dst, const void *src, size_t bytes) {
  if (bytes)
    std::memcpy(dst, src, bytes);
}

static bool elementTypeOf(int32_t dataType, ElementType &type) {
  switch (dataType) {
  case onnx::TensorProto::INT8:
    type = ElementType::Int8;
    return true;
  case onnx::TensorProto::UINT8:
    type = ElementType::UInt8;
    return true;
  case onnx::TensorProto::INT16:
    type = ElementType::Int16;
    return true;
  case onnx::TensorProto::INT32:
    type = ElementType::Int32;
    return true;
  case onnx::TensorProto::INT64:
    type = ElementType::Int64;
    return true;
  case onnx::TensorProto::FLOAT:
    type = ElementType::Float32;
    return true;
  case onnx::TensorProto::DOUBLE:
    type = ElementType::Float64;
    return true;
  case onnx::TensorProto::BOOL:
    type = ElementType::Bool;
    return true;
  case onnx::TensorProto::FLOAT16:
    type = ElementType::Float16;
    return true;
  case onnx::TensorProto::UINT16:
    type = ElementType::UInt16;
    return true;
  case onnx::TensorProto::BFLOAT16:
    type = ElementType::BFloat16;
    return true;
  case onnx::TensorProto::UINT32:
    type = ElementType::UInt32;
    return true;
  case onnx::TensorProto::UINT64:
    type = ElementType::UInt64;
    return true;
  default:
    return false;
  }
}

/// Number of values the typed field of `type` stores.
static int64_t typedCount(const onnx::TensorProto &proto, ElementType type) {
  // Typed fields: ONNX stores small integer types widened in int32_data.
  switch (type) {
  case ElementType::Float32:
    return proto.float_data_size();
  case ElementType::Float64:
    return proto.double_data_size();
  case ElementType::Int64:
    return proto.int64_data_size();
  case ElementType::UInt32:
  case ElementType::UInt64:
    return proto.uint64_data_size();
  default:
    return proto.int32_data_size();
  }
}

llvm::Error checkTensorStorage(const onnx::TensorProto &proto, StringRef what) {
  ElementType type;
  if (!elementTypeOf(proto.data_type(), type))
    return makeError(
        what + ": unsupported tensor data type " +
        onnx::TensorProto::DataType_Name(
            static_cast<onnx::TensorProto::DataType>(proto.data_type())));
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return makeError(what + ": external tensor data is not supported");
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  int64_t n = checkedNumElements(shape);
  if (n < 0)
    return makeError(what + ": invalid dimensions (negative or overflowing)");
  uint64_t elem = elementSize(type);
  // The declared shape is only trusted once the stored values match it: a
  // hostile file may declare billions of elements and store none, so every
  // count is checked before anything is allocated.
  if (static_cast<uint64_t>(n) > std::numeric_limits<uint64_t>::max() / elem)
    return makeError(what + ": invalid dimensions (byte size overflows)");
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != static_cast<uint64_t>(n) * elem)
      return makeError(what + ": raw_data has " +
                       llvm::Twine(proto.raw_data().size()) +
                       " bytes, the shape needs " +
                       llvm::Twine(static_cast<uint64_t>(n) * elem));
    return llvm::Error::success();
  }
  int64_t have = typedCount(proto, type);
  if (have != n)
    return makeError(what + ": has " + llvm::Twine(have) +
                     " values, the shape needs " + llvm::Twine(n));
  return llvm::Error::success();
}

llvm::Expected<HostTensor> tensorFromProto(const onnx::TensorProto &proto,
                                           StringRef what) {
  if (llvm::Error e = checkTensorStorage(proto, what))
    return std::move(e);
  ElementType type;
  elementTypeOf(proto.data_type(), type);
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  int64_t n = checkedNumElements(shape);
  if (proto.has_raw_data()) {
    HostTensor t(type, std::move(shape));
    copyBytes(t.data(), proto.raw_data().data(), t.byteSize());
    return t;
  }
  HostTensor t(type, std::move(shape));
  switch (type) {
  case ElementType::Float32:
    copyBytes(t.data(), proto.float_data().data(), t.byteSize());
    break;
  case ElementType::Float64:
    copyBytes(t.data(), proto.double_data().data(), t.byteSize());
    break;
  case ElementType::Int64:
    copyBytes(t.data(), proto.int64_data().data(), t.byteSize());
    break;
  case ElementType::UInt64:
    copyBytes(t.data(), proto.uint64_data().data(), t.byteSize());
    break;
  case ElementType::UInt32:
    for (int64_t i = 0; i < n; ++i)
      t.dataAs<uint32_t>()[i] =
          static_cast<uint32_t>(proto.uint64_data(static_cast<int>(i)));
    break;
  default: {
    for (int64_t i = 0; i < n; ++i) {
      int32_t v = proto.int32_data(static_cast<int>(i));
      switch (type) {
      case ElementType::Int8:
        t.dataAs<int8_t>()[i] = static_cast<int8_t>(v);
        break;
      case ElementType::UInt8:
      case ElementType::Bool:
        t.dataAs<uint8_t>()[i] = static_cast<uint8_t>(v);
        break;
      case ElementType::Int16:
      case ElementType::UInt16:
      case ElementType::BFloat16:
      case ElementType::Float16: // int32_data holds the 16 bits
        t.dataAs<int16_t>()[i] = static_cast<int16_t>(v);
        break;
      default:
        t.dataAs<int32_t>()[i] = v;
        break;
      }
    }
  }
  }
  return t;
}

const onnx::TensorProto *findInitializer(const onnx::GraphProto &g,
                                         StringRef name) {
  for (const auto &t : g.initializer())
    if (t.name() == name)
      return &t;
  return nullptr;
}

int64_t opsetVersion(const onnx::ModelProto &model, StringRef domain) {
  for (const auto &opset : model.opset_import()) {
    StringRef d = opset.domain();
    if (d == domain || (domain.empty() && d == "ai.onnx"))
      return opset.version();
  }
  return -1;
}

} // namespace systole::frontend
