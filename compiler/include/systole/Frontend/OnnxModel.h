//===- OnnxModel.h - Loading ONNX models and tensors ------------*- C++ -*-===//
//
// The ONNX project's own protobuf classes (Debian's libonnx) are the parser;
// this layer turns their failures into messages that name the file.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_FRONTEND_ONNXMODEL_H
#define SYSTOLE_FRONTEND_ONNXMODEL_H

#include "systole/Support/HostTensor.h"

#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace onnx {
class GraphProto;
class ModelProto;
class TensorProto;
} // namespace onnx

namespace systole::frontend {

/// Parses an ONNX model file. Rejects files that are not a ModelProto, have
/// no graph, or reference external data (weights must be inline).
llvm::Expected<std::unique_ptr<onnx::ModelProto>>
loadOnnxModel(llvm::StringRef path);
/// Parses ModelProto bytes (what loadOnnxModel does after reading the file);
/// `path` names the source in error messages.
llvm::Expected<std::unique_ptr<onnx::ModelProto>>
parseOnnxModel(llvm::StringRef bytes, llvm::StringRef path);

/// Parses a serialized TensorProto (e.g. a node test's input_0.pb).
llvm::Expected<HostTensor> loadTensorProtoFile(llvm::StringRef path);

/// Checks that a TensorProto's element type is supported, its data is
/// inline and what it stores matches its dims (raw_data bytes or typed
/// values); `what` names it in errors. tensorFromProto's checks, without
/// the copy.
llvm::Error checkTensorStorage(const onnx::TensorProto &proto,
                               llvm::StringRef what);

/// Converts a TensorProto (raw_data or typed fields) into a host tensor;
/// `what` names it in errors.
llvm::Expected<HostTensor> tensorFromProto(const onnx::TensorProto &proto,
                                           llvm::StringRef what);

/// The initializer of `g` named `name`, or nullptr.
const onnx::TensorProto *findInitializer(const onnx::GraphProto &g,
                                         llvm::StringRef name);

/// The opset version the model imports for `domain` ("" is ai.onnx), or -1.
int64_t opsetVersion(const onnx::ModelProto &model, llvm::StringRef domain);

} // namespace systole::frontend

#endif // SYSTOLE_FRONTEND_ONNXMODEL_H
