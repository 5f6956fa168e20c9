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
  /// Value used for symbolic dimensions (e.g. a dynamic batch "N").
  int64_t symbolicDimValue = 1;
  /// Overrides for input shapes by input name.
  std::map<std::string, std::vector<int64_t>> inputShapes;
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
