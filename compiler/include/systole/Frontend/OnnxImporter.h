//===- OnnxImporter.h - ONNX model -> graph dialect -------------*- C++ -*-===//
//
// Imports an ONNX model (opset 13+, QDQ or QOperator int8, or float) into a
// `func.func @main` of graph-dialect ops with static shapes. Every failure
// names the node, its op type and the model file.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_FRONTEND_ONNXIMPORTER_H
#define SYSTOLE_FRONTEND_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace onnx {
class ModelProto;
} // namespace onnx

namespace systole::frontend {

struct ImportOptions {
  /// Value of a symbolic leading dimension named like a batch ("N",
  /// "batch_size", tf2onnx's "unk__0"); any other symbolic dimension must be
  /// given with `inputShapes` (a sequence length has no safe default).
  int64_t symbolicDimValue = 1;
  /// Overrides for input shapes by input name.
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Filled by the importer: one line per symbolic dimension it defaulted,
  /// for the compile report.
  std::vector<std::string> *defaultedDims = nullptr;
  /// Keep every QDQ ConvTranspose in float on the host, as ONNX Runtime
  /// runs it, instead of rewriting an upsampling one (kernel = stride) into
  /// a 1x1 Conv and a DepthToSpace the NPU runs (ConvTransposeAsConv.cpp).
  bool hostConvTranspose = false;
  /// Build the bodies of the graph.host ops (lib/Conversion/OnnxToLinalg)
  /// before returning; false leaves them empty with their params, the
  /// translation's own output (`systole import --no-host-bodies`).
  bool buildHostBodies = true;
  /// Fuse what ONNX Runtime fuses before it runs a model where the fused
  /// kernel rounds differently (a decomposed LayerNorm; OrtFusions.cpp), so
  /// that the results are ORT's.
  bool ortFusions = true;
};

/// The failure of an op that needs one of its inputs at compile time (a
/// Reshape's shape, a Slice's starts) when that input is a graph input:
/// callers that can supply the value (the conformance runner, which has it
/// in the test data) freeze it and import again.
class NotConstantError : public llvm::ErrorInfo<NotConstantError> {
public:
  static char ID;
  NotConstantError(std::string message, std::string valueName)
      : message(std::move(message)), valueName(std::move(valueName)) {}
  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  std::string message;
  /// The ONNX value that must be constant.
  std::string valueName;
};

/// Imports `model`; `modelPath` is only used in locations and messages.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnxModel(const onnx::ModelProto &model, llvm::StringRef modelPath,
                mlir::MLIRContext &context, const ImportOptions &options = {});

/// Loads and imports a model file.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importOnnxFile(llvm::StringRef path, mlir::MLIRContext &context,
               const ImportOptions &options = {});

/// True if the importer has a translation for `opType` in `domain` ("" or
/// "ai.onnx" for the standard domain, "com.microsoft" for ORT's ops).
bool isOpImportable(llvm::StringRef domain, llvm::StringRef opType);

/// Registers the dialects the importer produces.
void registerImportDialects(mlir::MLIRContext &context);

} // namespace systole::frontend

#endif // SYSTOLE_FRONTEND_ONNXIMPORTER_H
