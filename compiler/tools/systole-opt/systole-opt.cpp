//===- systole-opt.cpp - MlirOptMain driver for Systole's passes ----------===//
//
// The lit tests' entry point: every dialect and pass of the compiler, plus the
// upstream ones our pipelines use.
//
//===----------------------------------------------------------------------===//
#include "systole/Conversion/HostCodegen.h"
#include "systole/Conversion/Passes.h"
#include "systole/Dialect/Graph/GraphDialect.h"
#include "systole/Dialect/Graph/Passes.h"
#include "systole/Dialect/NPU/NPUDialect.h"
#include "systole/Dialect/NPU/Passes.h"
#include "systole/Target/GraphToNPU/Passes.h"
#include "systole/Target/NPU/Emit.h"
#include "systole/Target/NPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Quant/QuantOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<systole::graph::GraphDialect, systole::npu::NPUDialect,
                  mlir::arith::ArithDialect, mlir::func::FuncDialect,
                  mlir::quant::QuantizationDialect, mlir::linalg::LinalgDialect,
                  mlir::tensor::TensorDialect, mlir::math::MathDialect,
                  mlir::memref::MemRefDialect,
                  mlir::bufferization::BufferizationDialect,
                  mlir::LLVM::LLVMDialect, mlir::tosa::TosaDialect,
                  mlir::scf::SCFDialect>();
  mlir::registerTransformsPasses();
  systole::graph::registerGraphPasses();
  systole::npu::registerNPUPasses();
  systole::npu::registerNPUTransformsPasses();
  systole::npu::registerSystolePipeline();
  systole::conversion::registerConversionPasses();
  systole::conversion::registerGraphToNPUPasses();
  systole::host::registerHostPipelines();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Systole optimizer driver\n", registry));
}
