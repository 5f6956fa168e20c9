//===- FuzzOnnxImport.cpp - libFuzzer target: the ONNX importer -----------===//
//
// Bytes -> parseOnnxModel (protobuf ModelProto) -> importOnnxModel (ONNX
// checker, shape/type inference of every node, graph dialect IR) -> the MLIR
// verifier. Any of them may refuse; none may crash, hang or allocate without
// bound.
//
//===----------------------------------------------------------------------===//
#include "FuzzOptions.h"
#include "systole/Frontend/OnnxImporter.h"
#include "systole/Frontend/OnnxModel.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "onnx/onnx_pb.h"

#include <memory>

using namespace systole;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A context interns every type and attribute forever; recycle it so a
  // long run's memory stays bounded.
  static std::unique_ptr<mlir::MLIRContext> context;
  static unsigned uses = 0;
  if (!context || ++uses % 512 == 0) {
    context = std::make_unique<mlir::MLIRContext>(
        mlir::MLIRContext::Threading::DISABLED);
    frontend::registerImportDialects(*context);
    context->getDiagEngine().registerHandler(
        [](mlir::Diagnostic &) { return mlir::success(); });
  }
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  auto model = frontend::parseOnnxModel(bytes, "fuzz.onnx");
  if (!model) {
    llvm::consumeError(model.takeError());
    return 0;
  }
  auto module = frontend::importOnnxModel(**model, "fuzz.onnx", *context);
  if (!module) {
    llvm::consumeError(module.takeError());
    return 0;
  }
  (void)mlir::verify(**module);
  return 0;
}
