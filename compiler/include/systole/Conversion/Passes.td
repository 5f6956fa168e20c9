//===- Passes.td - Host code conversion passes --------------*- tablegen -*-===//
//
// The host fallback: graph ops the NPU cannot run are lowered through
// upstream MLIR (linalg -> scf -> llvm, or gpu -> nvvm) to native code.
//
//===----------------------------------------------------------------------===//
#ifndef SYSTOLE_CONVERSION_PASSES_TD
#define SYSTOLE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertOnnxToLinalg : Pass<"convert-onnx-to-linalg"> {
  let summary = "Build the bodies of graph.host ops the importer left empty";
  let description = [{
    The importer validates an ONNX node the NPU cannot run and records what
    its body needs in the graph.host op's `params`; this pass builds the
    body (linalg/tensor/arith/math over the region's arguments, one file per
    op family under lib/Conversion/OnnxToLinalg); `params` stay. Ops
    that already have a body are left alone. The importer runs the same
    code after import, so its output never holds an empty body.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def ConvertGraphToLinalg : Pass<"convert-graph-to-linalg", "mlir::func::FuncOp"> {
  let summary = "Lower float graph ops to linalg/tensor/arith/math";
  let description = [{
    Elementwise ops (with ONNX broadcasting) become linalg.generic, matmul a
    linalg.generic contraction, conv and pooling the linalg named ops over a
    tensor.pad, softmax/layer_norm/reduce linalg reductions in the order ONNX
    Runtime computes them, transpose/reshape/slice/concat tensor ops. Only
    float32 ops are converted; anything else fails to legalize.
  }];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def ApproximateMath : Pass<"systole-approximate-math"> {
  let summary = "Expand math.exp/tanh/erf into polynomials (CPU and GPU alike)";
  let description = [{
    Upstream's polynomial approximations, so the shared object needs no
    libm and the PTX no libdevice, and both targets compute the same values.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect"
  ];
}

def ExpandBFloat16 : Pass<"systole-expand-bf16"> {
  let summary = "Write bfloat16 extf/truncf as integer arithmetic";
  let description = [{
    LLVM would call __truncsfbf2 for float -> bfloat16, which the system's
    libgcc lacks; upstream's expansion rounds to nearest even in integers.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif // SYSTOLE_CONVERSION_PASSES_TD
