//===- ConvertGraphToNPU.cpp - An annotated graph's program as npu ops ----===//
//
// The code generators (lib/Target/NPU, emitProgram) write each layer's items
// as npu IR; the npu.program they build (npu.layer ops, before
// npu-schedule-pipeline) is appended to the module, which makes the
// generated code visible to systole-opt and lit, instruction by instruction.
//
//===----------------------------------------------------------------------===//
#include "systole/ISA/Presets.h"
#include "systole/Target/GraphToNPU/Passes.h"
#include "systole/Target/NPU/Emit.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace systole::conversion {
#define GEN_PASS_DEF_CONVERTGRAPHTONPU
#include "systole/Target/GraphToNPU/Passes.h.inc"
} // namespace systole::conversion

using namespace mlir;
using namespace systole;

namespace {
struct ConvertGraphToNPU
    : public conversion::impl::ConvertGraphToNPUBase<ConvertGraphToNPU> {
  using ConvertGraphToNPUBase::ConvertGraphToNPUBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>("main");
    if (!func) {
      module.emitError("convert-graph-to-npu: the module has no func @main");
      return signalPassFailure();
    }
    auto config = isa::resolveHwConfig(hw);
    if (!config) {
      module.emitError("convert-graph-to-npu: ")
          << llvm::toString(config.takeError());
      return signalPassFailure();
    }
    auto emitted = npu::emitProgram(func, *config, nullptr);
    if (!emitted) {
      func.emitError("convert-graph-to-npu: ")
          << llvm::toString(emitted.takeError());
      return signalPassFailure();
    }
    for (Operation &op :
         llvm::make_early_inc_range(emitted->npu->getBody()->getOperations())) {
      op.remove();
      module.getBody()->push_back(&op);
    }
  }
};
} // namespace
