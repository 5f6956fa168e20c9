//===- Translations.cpp - systole-translate's npu translations ------------===//
//
//   --npu-to-mlir      a .npu binary -> its NPU program as npu IR
//   --npu-roundtrip    a .npu binary -> npu IR -> the same binary (the IR
//                      path of `systole compile`, on any binary)
//
//===----------------------------------------------------------------------===//
#include "systole/Target/NPUBinary/NPUBinary.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using namespace systole;

static llvm::ArrayRef<uint8_t> bytesOf(llvm::StringRef s) {
  return {reinterpret_cast<const uint8_t *>(s.data()), s.size()};
}

static llvm::StringRef inputBytes(llvm::SourceMgr &sources) {
  return sources.getMemoryBuffer(sources.getMainFileID())->getBuffer();
}

/// Errors name the input file (a binary has no lines to point at).
static Location inputLoc(llvm::SourceMgr &sources, MLIRContext *ctx) {
  return FileLineColLoc::get(
      ctx,
      sources.getMemoryBuffer(sources.getMainFileID())->getBufferIdentifier(),
      0, 0);
}

void npu::registerNPUTranslations() {
  TranslateToMLIRRegistration toMlir(
      "npu-to-mlir", "a .npu binary's NPU program as npu IR",
      [](llvm::SourceMgr &sources,
         MLIRContext *ctx) -> OwningOpRef<Operation *> {
        auto program = isa::readProgram(bytesOf(inputBytes(sources)));
        if (!program) {
          emitError(inputLoc(sources, ctx))
              << llvm::toString(program.takeError());
          return nullptr;
        }
        auto module = importProgram(*program, ctx);
        if (!module) {
          emitError(inputLoc(sources, ctx))
              << llvm::toString(module.takeError());
          return nullptr;
        }
        return OwningOpRef<Operation *>(module->release());
      },
      [](DialectRegistry &registry) { registry.insert<NPUDialect>(); });

  TranslateRegistration roundTrip(
      "npu-roundtrip",
      "a .npu binary through npu IR back to a binary (bytes unchanged)",
      [](const std::shared_ptr<llvm::SourceMgr> &sources, llvm::raw_ostream &os,
         MLIRContext *ctx) -> LogicalResult {
        ctx->getOrLoadDialect<NPUDialect>();
        auto program = isa::readProgram(bytesOf(inputBytes(*sources)));
        Location loc = inputLoc(*sources, ctx);
        if (!program)
          return emitError(loc) << llvm::toString(program.takeError());
        auto module = importProgram(*program, ctx);
        if (!module)
          return emitError(loc) << llvm::toString(module.takeError());
        if (failed(verify(**module)))
          return failure();
        if (llvm::Error e = exportProgram(**module, *program))
          return emitError(loc) << llvm::toString(std::move(e));
        std::vector<uint8_t> bytes = isa::writeProgram(*program);
        os.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
        return success();
      });
}
