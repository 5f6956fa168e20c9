//===- HostPipeline.cpp - Pass pipelines from graph ops to LLVM/NVVM ------===//
#include "systole/Conversion/HostCodegen.h"
#include "systole/Conversion/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToFuncs/MathToFuncs.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace systole::host {

// Copies bufferize as linalg.copy so they become loops (memref.copy of
// strided views would call MLIR's C runner library, which the runtime must
// not need).
void populateHostBufferization(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(conversion::createConvertGraphToLinalg());
  pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCanonicalizerPass());
  bufferization::OneShotBufferizationOptions opts;
  opts.memCpyFn = [](OpBuilder &b, Location loc, Value from,
                     Value to) -> LogicalResult {
    b.create<linalg::CopyOp>(loc, from, to);
    return success();
  };
  pm.addPass(bufferization::createOneShotBufferizePass(opts));
}

llvm::Error runHostPipeline(PassManager &pm, ModuleOp module,
                            llvm::StringRef what) {
  std::string diag;
  ScopedDiagnosticHandler handler(module->getContext(), [&](Diagnostic &d) {
    if (diag.empty())
      diag = d.str();
    return success();
  });
  if (failed(pm.run(module)))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   what + " failed: " + diag);
  return llvm::Error::success();
}

namespace {

void addToLLVM(OpPassManager &pm) {
  pm.addPass(conversion::createApproximateMath());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertSCFToCFPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  // Integer powers (ONNX Pow of integers) as generated loops.
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createConvertMathToLLVMPass());
  // What LLVM has no intrinsic for (tan, asin, sinh, ...) calls libm, which
  // the runtime process provides (docs/host.md, Linking).
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(conversion::createExpandBFloat16());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  ConvertFuncToLLVMPassOptions func;
  func.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(func));
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}
} // namespace

void populateHostCpuPipeline(OpPassManager &pm) {
  populateHostBufferization(pm);
  bufferization::BufferDeallocationPipelineOptions dealloc;
  bufferization::buildBufferDeallocationPipeline(pm, dealloc);
  populateHostLoweringToLLVM(pm);
}

void populateHostLoweringToLLVM(OpPassManager &pm) {
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  addToLLVM(pm);
}

void registerHostPipelines() {
  PassPipelineRegistration<>(
      "systole-host-cpu-pipeline",
      "Outlined host function (graph ops over DRAM views) -> LLVM dialect "
      "with the bare-pointer ABI",
      [](OpPassManager &pm) { populateHostCpuPipeline(pm); });
}

} // namespace systole::host
